"""An idle bot writes nothing: with no round running and no job due, the one scheduler
(reminders, housekeeping, every platform's rounds) only reads, however long it waits; a
round that ran to its end leaves it idle again."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from bot.app.compose import build_engine
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.domain.round_results import RoundEvent, RoundReveal
from bot.features.housekeeping import PRUNE_KIND
from bot.features.jobs import Scheduler
from bot.features.round_jobs import RoundJobs
from bot.store.commands import jobs_sql
from bot.store.rows import JobRow, NewJob
from bot.store.sqlite import SQLiteStore
from tests.clock import FakeClock

IDLE = 60.0  # simulated seconds the scheduler waits through
HOST = Actor("telegram", "1", "-100", "Host")


class Naps:
    """Simulated waiting: each nap moves the clock; `done` is set once the scheduler has
    waited `IDLE` seconds since the last `reset`. Time passes only once every job in flight
    has ended, as it does when handlers take milliseconds (on a loaded machine the clock
    ran ahead of a round's post, which then counted as late and was timed again)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock, self.waited, self.done = clock, 0.0, asyncio.Event()
        self.scheduler: Scheduler | None = None

    def reset(self) -> None:
        self.waited = 0.0
        self.done.clear()

    async def wait(self, wakeup: asyncio.Event, seconds: float) -> None:
        await asyncio.sleep(0)  # let the test run
        if self.scheduler is not None:
            await self.scheduler.idle()
        if wakeup.is_set():
            return
        self.clock.advance(seconds)
        self.waited += seconds
        if self.waited >= IDLE:
            self.done.set()


async def test_an_idle_bot_makes_no_write_transaction(tmp_path: Path,
                                                      quizzes: dict[str, Quiz]) -> None:
    clock = FakeClock()
    naps = Naps(clock)
    store = await SQLiteStore.open(tmp_path / "idle.db")
    scheduler = naps.scheduler = Scheduler(store, clock=clock, wait=naps.wait)
    engine = build_engine(store, quizzes, rng=random.Random(1), clock=clock, wake=scheduler.wake)
    # Work exists, none of it due within the minute: a reminder and the daily housekeeping.
    await store.write(jobs_sql.schedule,
                      NewJob("remind:telegram", "remind:telegram:1", clock() + 3600))
    await store.write(jobs_sql.schedule, NewJob(PRUNE_KIND, "prune", clock() + 86400))
    commits: list[float] = []
    store.on_commit = commits.append

    async def run(job: JobRow) -> float | None:
        return None

    shown: asyncio.Queue[RoundEvent] = asyncio.Queue()

    async def sink(event: RoundEvent) -> str | None:
        shown.put_nowait(event)
        return "m1"

    scheduler.register("remind:telegram", run)
    scheduler.register(PRUNE_KIND, run)
    posts = RoundJobs(engine.rounds, scheduler)
    for platform in ("telegram", "discord"):
        posts.serve(platform, sink)
    scheduler.start()
    try:
        await asyncio.wait_for(naps.done.wait(), 10)
        assert commits == []  # a minute of idling, not one write transaction
        # The same loop does write once something is due: a round started in a group, its
        # question shown, then its reveal (the scheduler sleeps until the deadline).
        await engine.rounds.start(HOST, "-100", questions=1)
        await asyncio.wait_for(shown.get(), 10)
        assert isinstance(await asyncio.wait_for(shown.get(), 10), RoundReveal)
        assert commits
        # The round's end (its last write follows the reveal) within a first idle minute;
        # then it is over: idle again, and writing nothing again.
        naps.reset()
        await asyncio.wait_for(naps.done.wait(), 10)
        await scheduler.idle()
        naps.reset()
        commits.clear()
        await asyncio.wait_for(naps.done.wait(), 10)
        assert commits == []
    finally:
        await scheduler.stop()
        await store.close()
