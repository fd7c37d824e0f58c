"""Reminders: once at the right minute, across a restart, never when off, off after 403."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime
from pathlib import Path

from bot.app.compose import build_engine
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.domain.stats_results import ReminderNote
from bot.features.engine import Engine
from bot.features.jobs import Scheduler
from bot.features.reminders import RATES, Delivery, Reminders, Sent
from bot.store.commands import jobs_sql, learning_sql
from bot.store.sqlite import SQLiteStore
from tests.clock import FakeClock
from tests.helpers import wrong_option

ALI = Actor("telegram", "1", None, "Ali")
SARA = Actor("telegram", "2", None, "Sara")


class Outbox:
    """A Sender that records notes and answers what it is told to."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.notes: list[tuple[float, ReminderNote]] = []
        self.answer = Sent(Delivery.SENT)

    async def __call__(self, note: ReminderNote) -> Sent:
        if self.answer.delivery == Delivery.SENT:
            self.notes.append((self.clock.now, note))
        return self.answer


def at(day: int, hour: int, minute: int = 0) -> float:
    return datetime(2025, 3, day, hour, minute, tzinfo=UTC).timestamp()


async def setup(path: Path, quizzes: dict[str, Quiz], clock: FakeClock, outbox: Outbox
                ) -> tuple[SQLiteStore, Engine, Scheduler]:
    store = await SQLiteStore.open(path)
    engine = build_engine(store, quizzes, rng=random.Random(1), clock=clock)
    reminders = Reminders(engine, {"telegram": outbox}, sleep=clock.sleep)
    scheduler = Scheduler(store, {"remind:telegram": reminders}, clock=clock)
    return store, engine, scheduler


async def miss_everything(engine: Engine, quizzes: dict[str, Quiz], actor: Actor) -> None:
    prompt = await engine.start(actor)
    while True:
        result = await engine.answer(actor, prompt.session_id, prompt.position,
                                     wrong_option(quizzes, prompt))
        if result.next is None:  # type: ignore[union-attr]
            return
        prompt = result.next  # type: ignore[union-attr]


async def test_fires_once_at_the_minute_and_again_next_day(tmp_path, quizzes):
    clock = FakeClock(at(1, 10))
    box = Outbox(clock)
    store, engine, scheduler = await setup(tmp_path / "q.db", quizzes, clock, box)
    try:
        await miss_everything(engine, quizzes, ALI)
        await engine.remind(ALI, "19:30", "+05:00")  # 14:30 UTC
        clock.now = at(1, 14, 29) + 59
        assert await scheduler.run_until_idle() == 0 and box.notes == []
        clock.now = at(1, 14, 30)
        assert await scheduler.run_until_idle() == 1
        [(when, note)] = box.notes
        assert when == at(1, 14, 30) and note.due == 8 and note.lang == "en"
        clock.advance(3600)
        assert await scheduler.run_until_idle() == 0 and len(box.notes) == 1
        clock.now = at(2, 14, 30)
        await scheduler.run_until_idle()
        assert [w for w, _ in box.notes] == [at(1, 14, 30), at(2, 14, 30)]
    finally:
        await store.close()


async def test_after_a_restart_nothing_is_missed_or_sent_twice(tmp_path, quizzes):
    clock = FakeClock(at(1, 10))
    box = Outbox(clock)
    store, engine, scheduler = await setup(tmp_path / "q.db", quizzes, clock, box)
    await miss_everything(engine, quizzes, ALI)
    await engine.remind(ALI, "12:00")
    await store.close()  # the bot is down across 12:00
    clock.now = at(1, 12, 45)
    store, engine, scheduler = await setup(tmp_path / "q.db", quizzes, clock, box)
    try:
        assert await scheduler.run_until_idle() == 1 and len(box.notes) == 1  # late, once
    finally:
        await store.close()
    clock.now = at(1, 13)  # restart again the same day: nothing new
    store, engine, scheduler = await setup(tmp_path / "q.db", quizzes, clock, box)
    try:
        assert await scheduler.run_until_idle() == 0 and len(box.notes) == 1
        clock.now = at(2, 12)
        assert await scheduler.run_until_idle() == 1 and len(box.notes) == 2
    finally:
        await store.close()


async def test_a_crash_mid_send_is_retried_after_the_lease(tmp_path, quizzes):
    clock = FakeClock(at(1, 10))
    box = Outbox(clock)
    store, engine, scheduler = await setup(tmp_path / "q.db", quizzes, clock, box)
    try:
        await miss_everything(engine, quizzes, ALI)
        await engine.remind(ALI, "12:00")
        clock.now = at(1, 12)
        [claimed] = await store.write(jobs_sql.claim_due,
                                      clock.now, 10, "dead-process", scheduler.lease)
        assert await scheduler.run_until_idle() == 0  # held by the dead process
        clock.advance(scheduler.lease + 1)
        assert await scheduler.run_until_idle() == 1 and len(box.notes) == 1
        assert not await store.write(jobs_sql.finish_job,
                                     claimed, None)  # a late finish cannot undo it
    finally:
        await store.close()


async def test_never_for_a_learner_who_turned_it_off_or_has_nothing_due(tmp_path, quizzes):
    clock = FakeClock(at(1, 10))
    box = Outbox(clock)
    store, engine, scheduler = await setup(tmp_path / "q.db", quizzes, clock, box)
    try:
        await miss_everything(engine, quizzes, ALI)
        await engine.remind(ALI, "12:00")
        await engine.remind_off(ALI)
        await engine.remind(SARA, "12:00")  # Sara has answered nothing: nothing due
        for day in (1, 2, 3):
            clock.now = at(day, 12)
            await scheduler.run_until_idle()
        assert box.notes == []
        assert (await store.read(learning_sql.learner_settings,
                                 "telegram", "2")).remind_at == 12 * 60
    finally:
        await store.close()


async def test_a_blocked_bot_turns_the_reminder_off(tmp_path, quizzes):
    clock = FakeClock(at(1, 10))
    box = Outbox(clock)
    store, engine, scheduler = await setup(tmp_path / "q.db", quizzes, clock, box)
    try:
        await miss_everything(engine, quizzes, ALI)
        await engine.remind(ALI, "12:00")
        box.answer = Sent(Delivery.BLOCKED)  # Telegram 403 / Discord 50007
        clock.now = at(1, 12)
        assert await scheduler.run_until_idle() == 1
        assert (await engine.settings(ALI)).remind_at is None
        box.answer = Sent(Delivery.SENT)
        for day in (2, 3):
            clock.now = at(day, 12)
            assert await scheduler.run_until_idle() == 0
        assert box.notes == []
    finally:
        await store.close()


async def test_rate_limited_sends_wait_and_go_through(tmp_path, quizzes):
    clock = FakeClock(at(1, 10))
    box = Outbox(clock)
    store, engine, scheduler = await setup(tmp_path / "q.db", quizzes, clock, box)
    try:
        await miss_everything(engine, quizzes, ALI)
        await engine.remind(ALI, "12:00")
        box.answer = Sent(Delivery.RETRY, retry_after=5)
        clock.now = at(1, 12)
        assert await scheduler.run_until_idle() == 1 and box.notes == []
        box.answer = Sent(Delivery.SENT)
        clock.advance(5)
        assert await scheduler.run_until_idle() == 1 and len(box.notes) == 1
    finally:
        await store.close()


async def test_many_reminders_at_one_minute_go_out_as_a_paced_queue(tmp_path, quizzes):
    clock = FakeClock(at(1, 10))
    box = Outbox(clock)
    store, engine, scheduler = await setup(tmp_path / "q.db", quizzes, clock, box)
    try:
        for i in range(90):
            actor = Actor("telegram", str(100 + i), None, f"L{i}")
            prompt = await engine.start(actor)
            await engine.answer(actor, prompt.session_id, 0, wrong_option(quizzes, prompt))
            await engine.remind(actor, "12:00")
        clock.now = at(1, 12)
        assert await scheduler.run_until_idle() == 90
        times = [w for w, _ in box.notes]
        assert len(times) == 90 and len({n.user_id for _, n in box.notes}) == 90
        gap = 1 / RATES["telegram"]  # under the 30/s limit: a queue, never a burst
        assert all(b - a >= gap - 1e-5 for a, b in itertools.pairwise(times))
        assert abs(times[-1] - times[0] - 89 * gap) < 1e-4
    finally:
        await store.close()
