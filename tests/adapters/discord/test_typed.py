"""A typed answer on Discord: "Type it" opens a modal, and its submission (MODAL_SUBMIT)
answers the computed question through the engine's answer path (real discord.py against
the fake Discord)."""

from __future__ import annotations

import pytest

from bot.app.compose import App
from bot.domain import numeric
from bot.domain.quiz.computed import draw, drawn_values
from bot.present.i18n import Catalogue
from bot.store.commands import sessions_sql

from .conftest import ALICE, GUILD, replied
from .fake_discord import FakeDiscord, Interaction

NUMBERS = "parallelism-numbers"
TYPE_IT = "⌨ Type it"


def kinds(ix: Interaction) -> list[str]:
    """What the bot sent on `ix`, in order, as the fake recorded it ("callback 7", ...):
    the callback type says how it was acknowledged, and it must come first."""
    return [what for what, _ in ix.events]


async def test_type_it_opens_a_modal_whose_submission_is_the_answer(fake: FakeDiscord,
                                                                    bot: App) -> None:
    ix = await replied(fake, await fake.slash(ALICE, "quiz", options={"quiz": NUMBERS}))
    question = ix.original  # a DM: a private chat
    assert question is not None and "Or type the number" in question.text
    row = await bot.store.read(sessions_sql.active_session, "discord", ALICE["id"], NUMBERS)
    assert row is not None and row.seed is not None
    q = bot.engine.quiz(NUMBERS).question(row.question_ids[0])
    assert q is not None and q.computed is not None
    values = [float(v) for v in drawn_values(q, row.seed)[1]]
    custom_id = str(question.button(TYPE_IT)["custom_id"])

    opened = await replied(fake, await fake.press(ALICE, question, custom_id))
    assert opened.callback is not None and opened.callback.type == 9  # MODAL
    assert opened.callback.data["custom_id"] == custom_id
    assert opened.callback.data["title"] == "Type the number"
    (field,) = opened.callback.data["components"][0]["components"]
    assert field["label"] == bot.catalogue.t("en", "typed.modal_label")  # whole, not cut
    assert kinds(opened) == ["callback 9"]  # the modal is the acknowledgement, and all

    typed = numeric.shown(values[1], q.computed.unit)  # a named mistake
    done = await replied(fake, await fake.submit(ALICE, question, custom_id, typed),
                         followups=1)
    assert done.callback is not None and done.callback.type == 7  # the question, edited
    assert kinds(done) == ["callback 7", "follow-up"]  # acknowledged by the edit, then next
    text = question.text
    assert "Not quite." in text and "You typed: " in text
    assert any("Why not" in f["value"] for f in question.embeds[0]["fields"])
    (nxt,) = done.followups
    assert (await bot.store.read(sessions_sql.get_session,
                                 row.id)).position == 1  # type: ignore[union-attr]

    # the same modal submitted again: counted once; text that is no number: asked again
    again = await replied(fake, await fake.submit(ALICE, question, custom_id, typed))
    assert (await bot.store.read(sessions_sql.get_session,
                                 row.id)).position == 1  # type: ignore[union-attr]
    assert again.callback is not None
    next_id = str(nxt.button(TYPE_IT)["custom_id"])
    refused = await replied(fake, await fake.submit(ALICE, nxt, next_id, "no idea"))
    assert refused.callback is not None and refused.callback.type == 4
    assert kinds(refused) == ["callback 4"]
    assert "Type one like" in refused.callback.data["content"]
    # a unit of another kind: refused, saying what the answer is in
    q2 = bot.engine.quiz(NUMBERS).question(row.question_ids[1])
    assert q2 is not None and q2.computed is not None
    other = "12 GB" if q2.computed.unit in ("ms", "s") else "12 ms"
    with pytest.raises(numeric.TypedError) as err:
        numeric.parse(other, q2.computed.unit)
    said = bot.catalogue.t("en", err.value.key, **err.value.fields)
    wrong = await replied(fake, await fake.submit(ALICE, nxt, next_id, other))
    assert wrong.callback is not None and wrong.callback.type == 4
    assert said in wrong.callback.data["content"] and "wrong kind of unit" in said
    assert (await bot.store.read(sessions_sql.get_session,
                                 row.id)).position == 1  # type: ignore[union-attr]


async def test_type_it_in_a_server_where_the_quiz_is_ephemeral(fake: FakeDiscord,
                                                               bot: App) -> None:
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                              options={"quiz": NUMBERS}))
    question = ix.original
    assert question is not None and question.ephemeral
    row = await bot.store.read(sessions_sql.active_session, "discord", ALICE["id"], NUMBERS)
    assert row is not None and row.seed is not None
    q = bot.engine.quiz(NUMBERS).question(row.question_ids[0])
    assert q is not None and q.computed is not None
    right = numeric.shown(float(drawn_values(q, row.seed)[1][0]), q.computed.unit)
    custom_id = str(question.button(TYPE_IT)["custom_id"])
    done = await replied(fake, await fake.submit(ALICE, question, custom_id, right),
                         followups=1)
    assert done.callback is not None and done.callback.type == 7
    assert kinds(done) == ["callback 7", "follow-up"]
    shown = draw(q, row.seed).options[0].text.get("en")  # as the options write it
    assert "Correct!" in question.text and f"You typed: {shown}" in question.text
    assert done.followups[0].ephemeral  # the next question, still for the learner alone


def test_the_modals_words_fit_in_discords_45_characters() -> None:
    """Discord cuts nothing itself: a modal's title or a field's label over 45 characters
    is refused, so the adapter cuts it, mid-word ("…with its unit if you l")."""
    cat = Catalogue.load()
    for lang in cat.languages:
        for key in ("typed.modal_title", "typed.modal_label"):
            assert len(cat.t(lang, key)) <= 45, (lang, key)
