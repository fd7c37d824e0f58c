"""Discord's size limits met on purpose: the fake refuses what Discord refuses (a
description over 4,096, a field over 1,024, 6,000 in all), so these play the longest
messages quizbot can send and check they arrive whole or cut with a note."""

from __future__ import annotations

import pytest

from adapters.discord.views import MARKDOWN
from bot.app.compose import App
from bot.domain.quiz import Quiz, default_content_dir, load_quizzes
from bot.present.render import content_text

from .conftest import ALICE, GUILD, replied
from .fake_discord import FakeDiscord, Message

QUIZZES: dict[str, Quiz] = load_quizzes([default_content_dir()])


def wrong_letter(quiz: Quiz, message: Message, lang: str) -> str:
    """The custom_id of a wrong answer on a question message of `quiz`."""
    lines = message.embeds[0]["description"].splitlines()
    question = next(q for q in quiz.questions
                    if MARKDOWN.escape(content_text(lang, q.text.get(lang))) in lines)
    right = MARKDOWN.escape(content_text(lang, question.options[question.correct].text.get(lang)))
    options = lines[-len(question.options):]
    shown = next(i for i, line in enumerate(options) if not line.endswith(f") {right}"))
    return str(message.button("ABCDEFGHIJ"[shown])["custom_id"])


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_a_long_quiz_all_missed_ends_with_its_summary(fake: FakeDiscord, bot: App,
                                                            lang: str) -> None:
    """22 questions, every one missed: the summary lists what one embed holds, then
    "…and N more", instead of a 400 from Discord and "Something went wrong"."""
    quiz = QUIZZES["parallelism-deep"]
    await replied(fake, await fake.slash(ALICE, "language", guild=GUILD,
                                         options={"language": lang}))
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                              options={"quiz": quiz.id}))
    message = ix.original
    assert message is not None
    for _ in quiz.questions:
        ix = await replied(fake, await fake.press(ALICE, message,
                                                  wrong_letter(quiz, message, lang)),
                           followups=1)
        (message,) = ix.followups
    (summary,) = message.embeds
    description = summary["description"]
    assert f"0/{len(quiz.questions)}" in description
    assert len(description) <= 4096
    # the missed questions in full: embed fields under the description (1,024 each, 6,000
    # in all with it), as many as one card holds, then "…and N more"
    fields = summary["fields"]
    assert fields[0]["name"] == bot.catalogue.t(lang, "summary.missed_detail")
    assert all(len(f["value"]) <= 1024 for f in fields) and len(fields) <= 25
    assert len(description) + sum(len(f["name"]) + len(f["value"]) for f in fields) <= 6000
    detail = "\n\n".join(f["value"] for f in fields)
    shown = detail.count("\n   ")  # each missed item's answer line
    assert 0 < shown < len(quiz.questions)
    more = bot.catalogue.t(lang, "summary.missed_more", count=len(quiz.questions) - shown)
    assert detail.endswith(more)
    assert {bot.catalogue.t(lang, "button.review"), bot.catalogue.t(lang, "button.retry")
            } <= {b["label"] for b in message.buttons}
