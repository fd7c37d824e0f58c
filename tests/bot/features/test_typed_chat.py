"""Typed answers in a private chat (bot.features.typed_chat), on each store: the question
message noted when sent comes back with the answer, and the count of non-numbers in a row."""

from __future__ import annotations

import random

from bot.app.compose import build_engine
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.features.typed_chat import TypedTurn
from bot.store.commands import sessions_sql
from tests.backends import Opener

LEARNER = Actor("telegram", "7", display_name="Lin")


async def test_typed_chat_keeps_the_question_message_and_counts_non_numbers(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    """On each store: the noted question message comes back with the answer; non-numbers in
    a row are asked again, then hinted, then let be; a new question starts the count over."""
    engine = build_engine(await open_store(), quizzes, rng=random.Random(1))
    prompt = await engine.start(LEARNER, "parallelism-numbers")
    chat = engine.typed_chat
    await chat.asked(LEARNER, prompt.session_id, 0, "55")
    keys = []
    for _ in range(3):
        turn = await chat.answer(LEARNER, "no idea")
        keys.append(getattr(turn.outcome, "key", None))
    assert keys == ["typed.not_number", "typed.not_number_again", None]
    await chat.asked(LEARNER, prompt.session_id, 0, "56")  # asked again: counted afresh
    turn = await chat.answer(LEARNER, "no idea")
    assert getattr(turn.outcome, "key", None) == "typed.not_number" and turn.message_id == "56"
    await engine.store.write(sessions_sql.reset_user,
                             "telegram", LEARNER.user_id)  # /reset forgets it too
    assert await engine.typed_chat.answer(LEARNER, "12") == TypedTurn(None, asked=False)
