"""Confidence moves the schedule: a wrong answer marked "sure" comes back sooner than one
marked "a guess" (a same-day step, then FSRS Again), and /review shows it first (simulated
clock, real SQLite)."""

from __future__ import annotations

import random

from bot.app.compose import build_engine
from bot.domain import learning
from bot.domain.results import Actor, AnswerResult
from bot.features.engine import Engine
from bot.store.commands import learning_sql, sessions_sql
from bot.store.sqlite import SQLiteStore
from tests.clock import FakeClock

QUIZ = "parallelism"
DAY = 86400.0
SURE = Actor("telegram", "1", display_name="Sure")
GUESS = Actor("telegram", "2", display_name="Guess")


async def pick(engine: Engine, store: SQLiteStore, actor: Actor, session_id: int,
               position: int, *, right: bool, sure: bool) -> AnswerResult:
    row = await store.read(sessions_sql.get_session, session_id)
    assert row is not None
    question = engine.quiz(QUIZ).question(row.question_ids[position])
    assert question is not None
    order = row.option_orders[position]
    shown = order.index(question.correct)
    option = shown if right else (shown + 1) % len(order)
    result = await engine.answer(actor, session_id, position, option, sure)
    assert isinstance(result, AnswerResult) and result.is_correct == right
    return result


async def test_sure_and_wrong_is_due_sooner_and_reviewed_first(store: SQLiteStore,
                                                               quizzes) -> None:
    clock = FakeClock()
    engine = build_engine(store, quizzes, rng=random.Random(3), clock=clock)
    for actor in (SURE, GUESS):
        await engine.set_confidence(actor, True)
        first = await engine.start(actor, QUIZ)
        await pick(engine, store, actor, first.session_id, 0, right=True, sure=True)
        await pick(engine, store, actor, first.session_id, 1, right=False, sure=False)
    clock.advance(DAY)  # right again: question 1 graduates to a review card
    for actor in (SURE, GUESS):
        second = await engine.restart(actor, QUIZ)
        await pick(engine, store, actor, second.session_id, 0, right=True, sure=True)
    clock.advance(3 * DAY)  # now both miss it
    for actor, sure in ((SURE, True), (GUESS, False)):
        again = await engine.restart(actor, QUIZ)
        await pick(engine, store, actor, again.session_id, 0, right=False, sure=sure)
    row = await store.read(sessions_sql.get_session, again.session_id)
    assert row is not None
    q1 = row.question_ids[0]
    due = {a.user_id: {c.question_id: c.due_at for c in await store.read(learning_sql.cards,
                                                                         "telegram", a.user_id)}
           for a in (SURE, GUESS)}
    assert due["1"][q1] < due["2"][q1]  # the confident miss comes back sooner
    assert due["1"][q1] - clock.now <= learning.SURE_MISS_STEP
    assert due["2"][q1] - clock.now > learning.SURE_MISS_STEP  # FSRS's relearning step
    # a day on, both misses are due; the confident one is reviewed first, although the
    # guessed miss of question 2 has been due for four days longer
    clock.advance(DAY)
    review = await engine.review_due(SURE)
    assert review.question_id == learning.qualify(QUIZ, q1)
    review = await engine.review_due(GUESS)
    assert review.question_id == learning.qualify(QUIZ, row.question_ids[1])
