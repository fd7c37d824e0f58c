"""A round nobody plays ends by itself (`product_limits.UNANSWERED_TO_END` questions in a
row unanswered), on a real SQLite file and a real PostgreSQL database with an injected
clock: the second silent question's reveal is the round's end, as a stop shows it; an
answered round is not cut; two stores on one database cannot both go on and end it."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.app.compose import build_engine
from bot.domain import product_limits
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.domain.round_results import RoundQuestion, RoundReveal
from bot.features.engine import Engine
from bot.features.rounds import Rounds
from bot.store.commands import rounds_sql
from bot.store.protocol import Store
from tests.backends import Opener
from tests.clock import FakeClock
from tests.helpers import due, rounds_of

GROUP = "-1001"
HOST = Actor("telegram", "1", GROUP, "Hana")
BILAL = Actor("telegram", "2", GROUP, "Bilal")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1_800_000_000.0)


@pytest.fixture
def store(backend_store: Store) -> Store:
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_store


@pytest.fixture
def rounds(engine: Engine, store: Store, clock: FakeClock) -> Rounds:
    return rounds_of(engine, clock=clock, default_seconds=20, reveal_seconds=5,
                     rng=random.Random(3))


async def one(rounds: Rounds, kind: type) -> RoundQuestion | RoundReveal:
    events = await due(rounds, "telegram")
    assert [type(e) for e in events] == [kind], events
    return events[0]  # type: ignore[return-value]


async def question_then_reveal(rounds: Rounds, clock: FakeClock, *,
                               answer: Actor | None = None) -> RoundReveal:
    """The next question opens (after the pause), `answer` presses A on it, its time runs out."""
    clock.now += 5
    question = await one(rounds, RoundQuestion)
    assert isinstance(question, RoundQuestion)
    if answer is not None:
        await rounds.press(answer, question.round_id, question.qindex, 0)
    clock.now += 20
    reveal = await one(rounds, RoundReveal)
    assert isinstance(reveal, RoundReveal)
    return reveal


def test_the_limit_is_two_questions() -> None:
    assert product_limits.UNANSWERED_TO_END == 2


async def test_a_round_nobody_answers_ends_after_its_second_question(
        rounds: Rounds, clock: FakeClock, store: Store, engine: Engine) -> None:
    started = await rounds.start(HOST, GROUP)
    assert started.total == 8
    clock.now -= 5  # question 1 opens at once
    first = await question_then_reveal(rounds, clock)
    assert not first.final and first.idle == 0 and first.next_at is not None
    second = await question_then_reveal(rounds, clock)
    # the reveal is the podium a stop shows, saying why it ended
    assert second.final and second.stopped and second.idle == 2
    assert second.question is not None and second.question.qindex == 1
    assert second.standings == () and second.next_at is None
    row = await store.read(rounds_sql.get_round, started.round_id)
    assert row is not None and (row.status, row.ended_idle, row.position) == ("stopped", 2, 1)
    assert await store.read(rounds_sql.active_round, "telegram", GROUP) is None
    clock.now += 600
    assert await due(rounds, "telegram") == []  # nothing more is posted
    assert (await engine.stats(HOST)).attempts == 0  # nobody played: no attempt recorded


async def test_a_round_answered_once_ends_after_two_silent_questions(
        rounds: Rounds, clock: FakeClock, engine: Engine) -> None:
    await rounds.start(HOST, GROUP)
    clock.now -= 5
    assert (await question_then_reveal(rounds, clock, answer=BILAL)).idle == 0
    assert not (await question_then_reveal(rounds, clock)).final  # one silent: goes on
    last = await question_then_reveal(rounds, clock)
    assert last.final and last.idle == 2 and last.question is not None
    assert last.question.qindex == 2
    assert [s.display_name for s in last.standings] == ["Bilal"]
    clock.now += 600
    assert await due(rounds, "telegram") == []
    stats = await engine.stats(BILAL)  # what was answered counts, as after a stop
    assert (stats.attempts, stats.best_total) == (1, 3)


async def test_answers_every_other_question_run_the_round_to_its_end(
        rounds: Rounds, clock: FakeClock) -> None:
    await rounds.start(HOST, GROUP, questions=5)
    clock.now -= 5
    for n in range(5):
        reveal = await question_then_reveal(rounds, clock, answer=BILAL if n % 2 == 0 else None)
        assert reveal.idle == 0 and reveal.final == (n == 4)
    assert not reveal.stopped  # finished, not ended early


async def test_two_stores_cannot_both_go_on_and_end_a_silent_round(
        open_store: Opener, quizzes: dict[str, Quiz], clock: FakeClock) -> None:
    stores = [await open_store() for _ in range(2)]
    pair = [rounds_of(build_engine(s, quizzes), clock=clock, default_seconds=10)
            for s in stores]
    started = await pair[0].start(HOST, GROUP)
    for number in (1, 2):
        both = await asyncio.gather(*(due(r, "telegram") for r in pair))
        assert sorted(len(events) for events in both) == [0, 1]  # one opens the question
        clock.now += 10
        both = await asyncio.gather(*(due(r, "telegram") for r in pair))
        reveals = [e for events in both for e in events]
        assert len(reveals) == 1 and isinstance(reveals[0], RoundReveal)
        assert reveals[0].final == (number == 2)
        clock.now += 5
    clock.now += 60
    both = await asyncio.gather(*(due(r, "telegram") for r in pair))
    assert both == [[], []]  # no third question from either
    row = await stores[1].read(rounds_sql.get_round, started.round_id)
    assert row is not None and (row.status, row.ended_idle) == ("stopped", 2)
