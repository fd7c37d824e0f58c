"""A quiz named wrong in /round start quiz: or /settings quiz: (a typo, an old id): the
answer lists the quizzes by title and says what to do, privately, and shows no internal id
(it listed "• Title (id)" for a member to copy the id out of brackets)."""

from __future__ import annotations

import pytest

from bot.app.compose import App
from bot.domain import payloads as payload
from bot.domain.results import Actor
from bot.present.i18n import strip_isolates
from bot.store.commands import rounds_sql

from .conftest import ALICE, BOB, GUILD, replied
from .fake_discord import FakeDiscord


def no_ids(bot: App, text: str) -> None:
    """No quiz id shows: in brackets, or one with a hyphen anywhere (an id that is also a
    word of a title, like "parallelism", may show as that word)."""
    for quiz_id in bot.engine.library.quizzes:
        assert f"({quiz_id})" not in text and not ("-" in quiz_id and quiz_id in text), text


@pytest.mark.parametrize("command, options", [
    (("round", "start"), {"quiz": "pipline"}),
    (("settings", None), {"quiz": "pipline"}),
])
async def test_a_quiz_named_wrong_lists_titles_not_ids(
        fake: FakeDiscord, bot: App, command: tuple[str, str | None],
        options: dict[str, str]) -> None:
    name, sub = command
    ix = await replied(fake, await fake.slash(ALICE, name, guild=GUILD, subcommand=sub,
                                              options=options))
    said = ix.original
    assert said is not None and said.ephemeral  # a slip is nobody else's business
    text = said.text
    assert text.startswith("There is no quiz called pipline. In quiz:, type part of a title "
                           "and pick it from the suggestions. The quizzes:\n"), text
    assert text.splitlines()[1:] == [f"• {q.title.get('en')}"
                                     for q in bot.engine.library.ordered()]
    no_ids(bot, text)
    assert await bot.store.read(rounds_sql.active_round, "discord", str(GUILD)) is None

    await bot.engine.set_language(Actor("discord", BOB["id"]), "ur")
    ix = await replied(fake, await fake.slash(BOB, name, guild=GUILD, subcommand=sub,
                                              options=options))
    assert ix.original is not None and ix.original.ephemeral
    urdu = strip_isolates(ix.original.text)
    assert urdu.startswith("pipline نام کا کوئی کوئز موجود نہیں۔ quiz: میں کوئز کے نام کا کچھ "
                           "حصہ لکھیں اور تجاویز میں سے چنیں۔ کوئز یہ ہیں:\n"), urdu
    assert urdu.splitlines()[1:] == [f"• {q.title.get('ur')}"
                                     for q in bot.engine.library.ordered()]
    no_ids(bot, urdu)


async def test_a_part_of_a_title_names_its_quiz(fake: FakeDiscord, bot: App) -> None:
    """Enter pressed on "depth" before a suggestion was picked: the one quiz whose title
    holds it; a part two titles hold ("pipeline") names neither."""
    ix = await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                              options={"quiz": "depth"}))
    assert ix.original is not None and ix.original.content.startswith(
        "Alice started a round of Parallelism in depth")
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="stop"))
    ix = await replied(fake, await fake.slash(ALICE, "settings", guild=GUILD,
                                              options={"quiz": "pipeline"}))
    assert ix.original is not None and ix.original.text.startswith(
        "pipeline is part of several quiz titles.")


SEVERAL = ("parallelism", "pipeline-schedules")  # the quizzes whose titles hold "pipeline"


@pytest.mark.parametrize("command, options", [
    (("round", "start"), {"quiz": "pipeline"}),
    (("settings", None), {"quiz": "pipeline"}),
    (("daily", "on"), {"time": "09:00", "quiz": "pipeline"}),
])
async def test_a_word_several_titles_hold_lists_just_those(
        fake: FakeDiscord, bot: App, command: tuple[str, str | None],
        options: dict[str, str]) -> None:
    """It said "There is no quiz called pipeline": untrue, two titles hold it."""
    name, sub = command
    ix = await replied(fake, await fake.slash(ALICE, name, guild=GUILD, subcommand=sub,
                                              options=options))
    assert ix.original is not None and ix.original.ephemeral
    assert ix.original.text.splitlines() == [
        "pipeline is part of several quiz titles. In quiz:, type more of one and pick it "
        "from the suggestions. They are:",
        *[f"• {bot.engine.quiz(q).title.get('en')}" for q in SEVERAL]]
    assert await bot.store.read(rounds_sql.active_round, "discord", str(GUILD)) is None

    await bot.engine.set_language(Actor("discord", BOB["id"]), "ur")
    ix = await replied(fake, await fake.slash(BOB, name, guild=GUILD, subcommand=sub,
                                              options=options))
    assert ix.original is not None
    assert strip_isolates(ix.original.text).splitlines() == [
        "pipeline کئی کوئز کے ناموں کا حصہ ہے۔ quiz: میں ان میں سے کسی ایک کا نام کچھ اور لکھیں "
        "اور تجاویز میں سے چنیں۔ وہ یہ ہیں:",
        *[f"• {bot.engine.quiz(q).title.get('ur')}" for q in SEVERAL]]


async def test_quiz_with_a_word_several_titles_hold_offers_those_buttons(
        fake: FakeDiscord, bot: App) -> None:
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                              options={"quiz": "pipeline"}))
    listing = ix.original
    assert listing is not None and listing.ephemeral
    assert listing.content.startswith(
        "pipeline is part of several quiz titles: tap the one you mean.\n\n**Quizzes**\n")
    assert [payload.decode(b["custom_id"]).arg for b in listing.buttons] == list(SEVERAL)
    await bot.engine.set_language(Actor("discord", BOB["id"]), "ur")
    ix = await replied(fake, await fake.slash(BOB, "quiz", options={"quiz": "pipeline"}))
    assert ix.original is not None and strip_isolates(ix.original.content).startswith(
        "pipeline کئی کوئز کے ناموں کا حصہ ہے: جو کوئز آپ چاہتے ہیں اسے دبائیں۔")
    assert [payload.decode(b["custom_id"]).arg for b in ix.original.buttons] == list(SEVERAL)
