"""A round nobody plays ends by itself on the fake Bot API, with the test's clock: after two
questions in a row nobody answered, the second one's reveal is the round's podium with why
it ended and how to start another (/round), in English and Urdu, and nothing more is posted
into the group; a round someone answers goes on."""

from __future__ import annotations

from typing import Any

import pytest

from bot.domain.results import Actor
from bot.present.i18n import strip_isolates
from tests.adapters.telegram.fake_bot_api import GROUP_POSTS, FakeBotAPI
from tests.adapters.telegram.support import AnswerKey, Running
from tests.adapters.telegram.test_telegram_rounds import GROUP_ID, Room

ENDED = {  # the line where a stopped round's podium says "The round was stopped."
    "en": ("The round ended by itself: nobody answered the last 2 questions. "
           "Start another with /round"),
    "ur": ("راؤنڈ خود ہی ختم ہو گیا: آخری 2 سوالوں کا کسی نے جواب نہیں دیا۔ "
           "نیا راؤنڈ شروع کرنے کے لیے /round بھیجیں"),
}
NOBODY = {"en": "Nobody answered in this round.", "ur": "اس راؤنڈ میں کسی نے جواب نہیں دیا۔"}


def group_posts(api: FakeBotAPI, since: int = 0) -> list[str]:
    return [c.method for c in api.calls[since:]
            if c.method in GROUP_POSTS and c.ok and c.params.get("chat_id") == GROUP_ID]


async def settle(room: Room, seconds: float) -> None:
    """Let `seconds` pass and the scheduler do all that is due by then."""
    room.advance(seconds)
    await room.bot.app.scheduler.run_until_idle()
    await room.bot.app.scheduler.idle()


async def play(room: Room, key: AnswerKey, since: int, *, answer: bool) -> tuple[dict[str, Any],
                                                                                 str]:
    """The next question (posted after `since`), Hana's right answer if `answer`, its reveal."""
    question = await room.question(since)
    if answer:
        await room.press(room.hana, question, key.right(question["text"]))
    mark = room.hana.mark()
    room.advance(20)
    edited = await room.hana.edited(mark, lambda m: m["message_id"] == question["message_id"])
    return question, strip_isolates(edited["text"])


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_a_round_nobody_answers_ends_after_question_2(
        bot: Running, api: FakeBotAPI, key: AnswerKey, lang: str) -> None:
    room = Room(bot, api)
    await bot.app.engine.set_language(Actor("telegram", "1001", None, "Hana"), lang)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    await play(room, key, since, answer=False)
    since = room.hana.mark()
    room.advance(5)
    second, reveal = await play(room, key, since, answer=False)
    assert "2/8" in strip_isolates(second["text"])
    # the podium as a stop shows it (nobody scored), saying why it ended and what to do
    assert "🏁" in reveal and f"\n{ENDED[lang]}\n" in reveal, reveal
    assert reveal.endswith(NOBODY[lang]), reveal
    assert "The round was stopped." not in reveal and "روک دیا گیا" not in reveal
    await settle(room, 600)  # long past the other six questions
    # two questions and their reveals: 4 posts of the group's 20 a minute, not 16
    assert group_posts(api) == ["sendMessage", "editMessageText"] * 2
    assert not await bot.app.engine.round_running("telegram", str(GROUP_ID))


async def test_a_round_answered_once_ends_after_two_silent_questions(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    for n in range(3):
        _, reveal = await play(room, key, since, answer=n == 0)
        since = room.hana.mark()
        if n < 2:
            assert "Next question in 5 s." in reveal
            room.advance(5)
    assert "🏁 Final podium" in reveal and "🥇 1. Hana: 1 right" in reveal
    assert reveal.endswith("The round ended by itself: nobody answered the last 2 questions. "
                           "Start another with /round\nScoring: accuracy (1 point per right "
                           "answer; less time breaks a tie)\n\n🥇 1. Hana: 1 right · 0.0 s")
    await settle(room, 600)
    assert group_posts(api) == ["sendMessage", "editMessageText"] * 3


async def test_answers_every_other_question_run_the_round_to_its_end(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    for n in range(8):
        _, reveal = await play(room, key, since, answer=n % 2 == 0)
        since = room.hana.mark()
        if n < 7:
            assert "Next question in 5 s." in reveal and "ended by itself" not in reveal
            room.advance(5)
    assert "🏁 Final podium" in reveal and "🥇 1. Hana: 4 right" in reveal
    assert "ended by itself" not in reveal and "stopped" not in reveal
    assert group_posts(api) == ["sendMessage", "editMessageText"] * 8
