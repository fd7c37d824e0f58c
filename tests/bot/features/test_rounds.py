"""Round rules on a real SQLite file and a real PostgreSQL database, with an injected clock:
lock-in, late/double/stale presses, reveals (timed, early, once only across two stores),
standings, stop/skip rights, restart, and what a finished round leaves in /stats, /review and
the boards."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from fsrs import Rating

from bot.app.compose import build_engine
from bot.domain import learning
from bot.domain.errors import BadRoundLength, NoRound, NotHost, RoundRunning, RoundsAreForGroups
from bot.domain.learning import Updater
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.domain.round_results import (
    LockedIn,
    PressRefused,
    RoundEvent,
    RoundQuestion,
    RoundReveal,
    WhoAnswered,
)
from bot.domain.shuffle import deal
from bot.features.engine import Engine
from bot.features.jobs import Scheduler
from bot.features.round_jobs import RoundJobs
from bot.features.rounds import Rounds, standings_of
from bot.store import open_url
from bot.store.commands import boards_sql, learning_sql, rounds_sql
from bot.store.protocol import Store
from bot.store.round_rows import RoundAnswer
from tests.backends import Opener
from tests.helpers import due, rounds_of

GROUP = "-1001"
HOST = Actor("telegram", "1", GROUP, "Hana")
BILAL = Actor("telegram", "2", GROUP, "Bilal")
CHEN = Actor("telegram", "3", GROUP, "Chen")


class Clock:
    """Time as the test says it is."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(backend_store: Store) -> Store:
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_store


@pytest.fixture
def rounds(engine: Engine, store: Store, clock: Clock) -> Rounds:
    return rounds_of(engine, clock=clock, default_seconds=20, reveal_seconds=5,
                  rng=random.Random(3))


def right(quizzes: dict[str, Quiz], q: RoundQuestion) -> int:
    """Shown index of the right option, through the quiz file."""
    question = next(x for x in quizzes["parallelism"].questions if x.text.get(q.lang) == q.text)
    return q.options.index(question.options[question.correct].text.get(q.lang))


def wrong(quizzes: dict[str, Quiz], q: RoundQuestion) -> int:
    return (right(quizzes, q) + 1) % len(q.options)


async def opened(rounds: Rounds) -> RoundQuestion:
    events = await due(rounds, "telegram")
    assert [type(e) for e in events] == [RoundQuestion], events
    question = events[0]
    assert isinstance(question, RoundQuestion)
    return question


async def revealed(rounds: Rounds) -> RoundReveal:
    events = await due(rounds, "telegram")
    assert [type(e) for e in events] == [RoundReveal], events
    reveal = events[0]
    assert isinstance(reveal, RoundReveal)
    return reveal


async def test_a_round_deals_as_a_solo_quiz_does(rounds: Rounds,
                                                  quizzes: dict[str, Quiz]) -> None:
    """One shuffle (`bot.domain.shuffle.deal`): a round's option order is the dealt one."""
    quiz = quizzes["parallelism"]
    await rounds.start(HOST, GROUP)
    q = await opened(rounds)
    asked, orders = deal(random.Random(3), quiz.questions, shuffle=quiz.shuffle_questions)
    assert q.text == asked[0].text.get(q.lang)
    assert q.options == tuple(asked[0].options[i].text.get(q.lang) for i in orders[0])


async def test_full_round_three_members_one_silent(rounds: Rounds, clock: Clock,
                                                   quizzes: dict[str, Quiz], engine: Engine,
                                                   store: Store) -> None:
    started = await rounds.start(HOST, GROUP, questions=3)
    assert (started.total, started.seconds) == (3, 20)
    q = await opened(rounds)
    assert (q.qindex, q.total, q.deadline) == (0, 3, clock.now + 20)

    # Question 1: Hana right after 4 s, Bilal right after 2 s, Chen wrong (then silent).
    clock.advance(2)
    assert await rounds.press(BILAL, q.round_id, 0, right(quizzes, q)) == \
        LockedIn(q.round_id, "en", right(quizzes, q))
    clock.advance(2)
    await rounds.press(HOST, q.round_id, 0, right(quizzes, q))
    await rounds.press(CHEN, q.round_id, 0, wrong(quizzes, q))
    assert await due(rounds, "telegram") == []  # everyone answered, but Q1 runs its full time
    clock.advance(16)
    reveal = await revealed(rounds)
    assert reveal.correct == right(quizzes, q)
    assert sum(reveal.counts) == 3 and reveal.counts[right(quizzes, q)] == 2
    assert reveal.right == ("Bilal", "Hana")  # fastest first
    assert [(s.display_name, s.score) for s in reveal.standings] == \
        [("Bilal", 1), ("Hana", 1), ("Chen", 0)]
    assert reveal.next_at == clock.now + 5 and not reveal.final
    assert await due(rounds, "telegram") == []  # the pause before the next question

    # Question 2: Hana right, Bilal wrong; Chen stays silent, so it runs to its deadline.
    clock.advance(5)
    q = await opened(rounds)
    assert q.qindex == 1
    clock.advance(1)
    await rounds.press(HOST, q.round_id, 1, right(quizzes, q))
    await rounds.press(BILAL, q.round_id, 1, wrong(quizzes, q))
    assert await due(rounds, "telegram") == []
    clock.advance(19)
    reveal = await revealed(rounds)
    assert reveal.right == ("Hana",)
    assert [s.display_name for s in reveal.standings][:1] == ["Hana"]

    # Question 3: nobody answers.
    clock.advance(5)
    q = await opened(rounds)
    clock.advance(20)
    reveal = await revealed(rounds)
    assert reveal.final and not reveal.stopped and reveal.counts == (0,) * len(q.options)
    assert [(s.rank, s.display_name, s.score) for s in reveal.standings] == \
        [(1, "Hana", 2), (2, "Bilal", 1), (3, "Chen", 0)]
    assert await due(rounds, "telegram") == []
    assert await store.read(rounds_sql.active_round, "telegram", GROUP) is None

    # The round counts in every participant's /stats, on the group's board, in /review.
    stats = await engine.stats(HOST)
    assert (stats.attempts, stats.best_score) == (1, 2)
    board = await engine.leaderboard(BILAL)
    assert [(r.display_name, r.score, r.total) for r in board.rows] == \
        [("Hana", 2, 3), ("Bilal", 1, 3), ("Chen", 0, 3)]
    assert [r.display_name for r in await store.read(boards_sql.board,
                                                     "parallelism", "telegram", GROUP,
                                                     rounds=True, limit=10)] == \
        ["Hana", "Bilal", "Chen"]
    assert await store.read(boards_sql.board,
                            "parallelism", "telegram", GROUP, rounds=False, limit=10) == []
    review = await engine.review(BILAL)
    assert review.total == 1  # Bilal's one wrong answer; unanswered questions are not his


async def test_double_late_stale_and_forged_presses(rounds: Rounds, clock: Clock,
                                                    quizzes: dict[str, Quiz]) -> None:
    await rounds.start(HOST, GROUP, questions=2)
    q = await opened(rounds)
    first = await rounds.press(BILAL, q.round_id, 0, wrong(quizzes, q))
    again = await rounds.press(BILAL, q.round_id, 0, right(quizzes, q))
    assert again == LockedIn(q.round_id, "en", wrong(quizzes, q), repeat=True)
    assert isinstance(first, LockedIn) and not first.repeat
    clock.advance(20)  # the deadline passed; nobody has claimed the reveal yet
    assert await rounds.press(CHEN, q.round_id, 0, 0) == PressRefused(q.round_id, "en", "late")
    await revealed(rounds)
    clock.advance(5)
    q2 = await opened(rounds)
    assert await rounds.press(CHEN, q.round_id, 0, 0) == PressRefused(q.round_id, "en", "stale")
    assert (await rounds.press(CHEN, q.round_id, 1, 9)).reason == "gone"  # type: ignore[union-attr]
    assert (await rounds.press(CHEN, 999, 0, 0)).reason == "gone"  # type: ignore[union-attr]
    assert isinstance(await rounds.press(CHEN, q2.round_id, 1, 0), LockedIn)


async def test_early_reveal_once_every_member_answered(rounds: Rounds, clock: Clock,
                                                       quizzes: dict[str, Quiz]) -> None:
    await rounds.start(HOST, GROUP, questions=2)
    q = await opened(rounds)
    await rounds.press(HOST, q.round_id, 0, 0)
    await rounds.press(BILAL, q.round_id, 0, 1)
    clock.advance(20)
    await revealed(rounds)
    clock.advance(5)
    q = await opened(rounds)
    wakeup = asyncio.Event()
    rounds.wake = wakeup.set
    await rounds.press(HOST, q.round_id, 1, right(quizzes, q))
    assert not wakeup.is_set() and await due(rounds, "telegram") == []
    clock.advance(3)
    await rounds.press(BILAL, q.round_id, 1, right(quizzes, q))
    assert wakeup.is_set()  # the scheduler is woken, not left to the 17 s still on the clock
    reveal = await revealed(rounds)
    assert reveal.final and reveal.right == ("Hana", "Bilal")
    assert [s.display_name for s in reveal.standings] == ["Hana", "Bilal"]


async def test_two_stores_on_one_file_reveal_each_question_once(
        open_store: Opener, quizzes: dict[str, Quiz], clock: Clock) -> None:
    stores = [await open_store() for _ in range(2)]
    pair = [rounds_of(build_engine(s, quizzes), clock=clock, default_seconds=10) for s in stores]
    await pair[0].start(HOST, GROUP, questions=2)
    for _ in range(2):
        both = await asyncio.gather(*(due(r, "telegram") for r in pair))
        assert sorted(len(events) for events in both) == [0, 1]  # one opens the question
        clock.advance(10)
        both = await asyncio.gather(*(due(r, "telegram") for r in pair))
        reveals = [e for events in both for e in events]
        assert len(reveals) == 1 and isinstance(reveals[0], RoundReveal)
        clock.advance(5)
    assert (await stores[1].read(rounds_sql.get_round,
                                 1)).status == "finished"  # type: ignore[union-attr]


async def test_restart_honours_the_stored_deadline(store_url: str, quizzes: dict[str, Quiz],
                                                   clock: Clock) -> None:
    store = await open_url(store_url)
    rounds = rounds_of(build_engine(store, quizzes), clock=clock)
    await rounds.start(HOST, GROUP, seconds=30, questions=2)
    q = await opened(rounds)
    await store.close()  # the process dies with the question open

    clock.advance(10)
    store = await open_url(store_url)
    try:
        rounds = rounds_of(build_engine(store, quizzes), clock=clock)
        assert await rounds.next_due("telegram") == q.deadline
        assert await due(rounds, "telegram") == []
        clock.advance(20)
        reveal = await revealed(rounds)
        assert reveal.question is not None and reveal.question.qindex == 0
        assert await rounds.next_due("telegram") == clock.now + 5  # and the round goes on
    finally:
        await store.close()


async def test_stop_and_skip_are_for_the_host_or_moderators(rounds: Rounds, clock: Clock
                                                            ) -> None:
    await rounds.start(HOST, GROUP, questions=3)
    q = await opened(rounds)
    with pytest.raises(NotHost):
        await rounds.skip(BILAL, GROUP)
    with pytest.raises(NotHost):
        await rounds.stop(BILAL, GROUP)
    assert await due(rounds, "telegram") == []
    await rounds.skip(HOST, GROUP)
    assert (await revealed(rounds)).question.qindex == 0  # type: ignore[union-attr]
    await rounds.skip(BILAL, GROUP, may_manage=True)  # between questions: the next one now
    q = await opened(rounds)
    await rounds.press(CHEN, q.round_id, 1, 0)
    stopped = await rounds.stop(BILAL, GROUP, may_manage=True)
    assert stopped.final and stopped.stopped and stopped.question is not None
    assert stopped.question.qindex == 1 and sum(stopped.counts) == 1
    assert [s.display_name for s in stopped.standings] == ["Chen"]
    clock.advance(60)
    [shown] = await due(rounds, "telegram")  # the stop's own post, once
    assert isinstance(shown, RoundReveal) and shown.stopped
    assert await due(rounds, "telegram") == []  # the stopped question is not revealed again
    with pytest.raises(NoRound):
        await rounds.stop(HOST, GROUP)


async def test_start_refusals(rounds: Rounds) -> None:
    with pytest.raises(RoundsAreForGroups):
        await rounds.start(Actor("telegram", "1"), None)
    with pytest.raises(BadRoundLength):
        await rounds.start(HOST, GROUP, seconds=5)
    with pytest.raises(BadRoundLength):
        await rounds.start(HOST, GROUP, questions=99)
    await rounds.start(HOST, GROUP)
    with pytest.raises(RoundRunning):
        await rounds.start(BILAL, GROUP)
    other = Actor("telegram", "2", "-1002", "Bilal")
    assert (await rounds.start(other, "-1002")).total == 8  # another group is free


def test_standings_tie_break_by_time() -> None:
    answers = [RoundAnswer("a", "A", 0, 1, True, 9.0), RoundAnswer("b", "B", 0, 1, True, 3.0),
               RoundAnswer("c", "C", 0, 0, False, 1.0), RoundAnswer("d", "D", 0, 1, True, 3.0)]
    assert [(s.rank, s.display_name) for s in standings_of(answers)] == \
        [(1, "B"), (1, "D"), (3, "A"), (4, "C")]


async def test_driver_shows_events_in_order_and_stores_message_refs(
        rounds: Rounds, clock: Clock, store: Store, quizzes: dict[str, Quiz]) -> None:
    shown: list[RoundEvent] = []

    async def sink(event: RoundEvent) -> str | None:
        shown.append(event)
        return f"msg-{len(shown)}" if isinstance(event, RoundQuestion) else None

    scheduler = Scheduler(store, clock=clock)
    RoundJobs(rounds, scheduler).serve("telegram", sink)
    await rounds.start(HOST, GROUP, questions=1)
    assert await scheduler.tick() == 1
    assert await store.read(rounds_sql.round_message, 1, 0) == "msg-1"
    clock.advance(20)
    await scheduler.tick()
    reveal = shown[-1]
    assert isinstance(reveal, RoundReveal) and reveal.message_ref == "msg-1" and reveal.final


async def test_a_question_whose_message_is_stored_is_not_posted_again(
        rounds: Rounds, clock: Clock, store: Store) -> None:
    """A process that posted a question and stored its message id, then died before its
    post job was marked done, left the job live: the next process posted the question a
    second time, and the reveal edited one of the two."""
    shown: list[RoundEvent] = []

    async def sink(event: RoundEvent) -> str | None:
        shown.append(event)
        return "msg-new" if isinstance(event, RoundQuestion) else None

    scheduler = Scheduler(store, clock=clock)
    RoundJobs(rounds, scheduler).serve("telegram", sink)
    await rounds.start(HOST, GROUP, questions=1)
    assert await scheduler.tick() == 1
    assert [type(e) for e in shown] == [RoundQuestion]
    # as if that process died before marking the job done: the job is live again
    await store.write(rounds_sql.post_job, "telegram", 1, 0, "q", clock())
    await scheduler.tick()
    assert [type(e) for e in shown] == [RoundQuestion]  # not posted a second time
    assert await store.read(rounds_sql.round_message, 1, 0) == "msg-new"
    clock.advance(20)
    await scheduler.tick()
    assert isinstance(shown[-1], RoundReveal) and shown[-1].message_ref == "msg-new"


async def test_scheduler_wakes_on_early_reveal(engine: Engine, store: Store,
                                               quizzes: dict[str, Quiz]) -> None:
    clock = Clock()
    scheduler = Scheduler(store, clock=clock, recheck=30.0)  # only a wakeup can help
    rounds = rounds_of(engine, clock=clock, wake=scheduler.wake)
    shown: asyncio.Queue[RoundEvent] = asyncio.Queue()

    async def sink(event: RoundEvent) -> str | None:
        shown.put_nowait(event)
        return None

    RoundJobs(rounds, scheduler).serve("telegram", sink)
    scheduler.start()
    try:
        await rounds.start(HOST, GROUP, questions=2)
        q = await asyncio.wait_for(shown.get(), 2)
        await rounds.press(HOST, q.round_id, 0, 0)
        await rounds.skip(HOST, GROUP)
        assert isinstance(await asyncio.wait_for(shown.get(), 2), RoundReveal)
        await rounds.skip(HOST, GROUP)
        q = await asyncio.wait_for(shown.get(), 2)
        assert isinstance(q, RoundQuestion) and q.qindex == 1
        await rounds.press(HOST, q.round_id, 1, right(quizzes, q))  # the only member: early
        reveal = await asyncio.wait_for(shown.get(), 2)
        assert isinstance(reveal, RoundReveal) and reveal.final
    finally:
        await scheduler.stop()


def test_round_payload_fits_and_round_trips() -> None:
    from bot.domain.payloads import RoundPayload, decode, encode_round

    data = encode_round(36**12 - 1, 299, 9)
    assert len(data.encode()) <= 64
    assert decode(data) == RoundPayload(36**12 - 1, 299, 9)
    assert decode("r1:1:0:x") is None and decode("r2:1:0:0") is None


def test_rounds_config_keys(tmp_path: Path) -> None:
    from bot.app.config import load_config
    from bot.domain.errors import ConfigError

    path = tmp_path / "c.yaml"
    path.write_text("rounds:\n  default_seconds: 20\n  reveal_seconds: 2.5\n")
    config = load_config(path, env={})
    assert (config.rounds.default_seconds, config.rounds.reveal_seconds) == (20, 2.5)
    assert load_config(None, env={}).rounds.default_seconds == 30
    path.write_text("rounds:\n  default_seconds: 5\n")
    with pytest.raises(ConfigError, match=r"rounds\.default_seconds"):
        load_config(path, env={})
    path.write_text("rounds:\n  seconds: 5\n")
    with pytest.raises(ConfigError, match=r"rounds\.seconds"):
        load_config(path, env={})


async def test_a_locked_in_round_answer_moves_the_members_card_once(
        rounds: Rounds, clock: Clock, quizzes: dict[str, Quiz], store: Store) -> None:
    await rounds.start(HOST, GROUP, questions=2)
    q = await opened(rounds)
    assert await store.read(learning_sql.cards, "telegram", BILAL.user_id) == []
    await rounds.press(BILAL, q.round_id, 0, wrong(quizzes, q))
    await rounds.press(BILAL, q.round_id, 0, right(quizzes, q))  # a repeat: no second review
    await rounds.press(CHEN, q.round_id, 0, right(quizzes, q))
    (bilal,) = await store.read(learning_sql.cards, "telegram", BILAL.user_id)
    (chen,) = await store.read(learning_sql.cards, "telegram", CHEN.user_id)
    assert bilal.reviews == 1 and chen.reviews == 1
    assert bilal.question_id == chen.question_id == quizzes["parallelism"].questions[
        [x.text.get("en") for x in quizzes["parallelism"].questions].index(q.text)].id
    # wrong (Again) comes back sooner than right (Good): the round fed the schedule
    assert bilal.due_at < chen.due_at
    assert await store.read(learning_sql.cards,
                            "telegram", HOST.user_id) == []  # silent: nothing to learn from


class BrokenMemory(learning.Memory):
    """A card update that fails inside the store's transaction."""

    def updater(self, rating: Rating, at: float, *, sooner: bool = False) -> Updater:
        def update(card_json: str | None) -> tuple[str, float]:
            raise RuntimeError("card update failed")
        return update


async def test_a_lock_in_and_its_card_update_are_one_transaction(
        rounds: Rounds, engine: Engine, quizzes: dict[str, Quiz], store: Store) -> None:
    await rounds.start(HOST, GROUP, questions=2)
    q = await opened(rounds)
    kept, rounds.memory = rounds.memory, BrokenMemory()
    with pytest.raises(RuntimeError, match="card update failed"):
        await rounds.press(BILAL, q.round_id, 0, right(quizzes, q))
    rounds.memory = kept
    # Nothing of the failed press stayed: the next press locks in (not a repeat) and moves
    # the card once.
    locked = await rounds.press(BILAL, q.round_id, 0, wrong(quizzes, q))
    assert isinstance(locked, LockedIn) and not locked.repeat
    (card,) = await store.read(learning_sql.cards, "telegram", BILAL.user_id)
    assert card.reviews == 1


async def test_who_answered_opens_only_once_the_question_is_revealed(
        rounds: Rounds, clock: Clock, quizzes: dict[str, Quiz]) -> None:
    await rounds.start(HOST, GROUP, questions=2)
    q = await opened(rounds)
    await rounds.press(BILAL, q.round_id, 0, right(quizzes, q))
    # Still open: a second account must not learn who is right before the reveal.
    assert await rounds.who(CHEN, q.round_id, 0) == PressRefused(q.round_id, "en",
                                                                  "not_revealed")
    clock.advance(20)  # past the deadline, not yet revealed
    assert await rounds.who(CHEN, q.round_id, 0) == PressRefused(q.round_id, "en",
                                                                  "not_revealed")
    await revealed(rounds)
    shown = await rounds.who(CHEN, q.round_id, 0)
    assert isinstance(shown, WhoAnswered)
    assert [(r.name, r.mark) for r in shown.rows] == [("Bilal", "right")]
    clock.advance(5)
    q2 = await opened(rounds)
    assert (await rounds.who(CHEN, q2.round_id, 1)).reason == "not_revealed"  # type: ignore[union-attr]
    assert isinstance(await rounds.who(CHEN, q2.round_id, 0), WhoAnswered)  # the old one
