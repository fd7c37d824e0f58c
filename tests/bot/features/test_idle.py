"""An idle bot writes nothing: with no round running and no job due, the job scheduler and
every platform's round driver only read, however long they wait."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from pathlib import Path

from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.features.engine import Engine
from bot.features.housekeeping import PRUNE_KIND
from bot.features.jobs import Scheduler
from bot.features.round_driver import RoundDriver
from bot.features.rounds import Rounds
from bot.store.commands import jobs_sql
from bot.store.rows import JobRow, NewJob
from bot.store.sqlite import SQLiteStore
from tests.clock import FakeClock

IDLE = 60.0  # simulated seconds each loop waits through
HOST = Actor("telegram", "1", "-100", "Host")


class Naps:
    """Simulated waiting for one loop: each nap moves the shared clock; `done` is set once
    the loop has waited `IDLE` seconds in all."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock, self.waited, self.done = clock, 0.0, asyncio.Event()

    async def nap(self, seconds: float) -> None:
        await asyncio.sleep(0)  # let the other loops run
        self.clock.advance(seconds)
        self.waited += seconds
        if self.waited >= IDLE:
            self.done.set()

    def waiter(self) -> Callable[[asyncio.Event, float], Awaitable[None]]:
        async def wait(_wakeup: asyncio.Event, seconds: float) -> None:
            await self.nap(seconds)
        return wait


async def test_an_idle_bot_makes_no_write_transaction(tmp_path: Path,
                                                      quizzes: dict[str, Quiz]) -> None:
    clock = FakeClock()
    store = await SQLiteStore.open(tmp_path / "idle.db")
    engine = Engine(store, quizzes, rng=random.Random(1), clock=clock)
    rounds = Rounds(engine, store, clock=clock)
    # Work exists, none of it due within the minute: a reminder and the daily housekeeping.
    await store.write(jobs_sql.schedule,
                      NewJob("remind:telegram", "remind:telegram:1", clock() + 3600))
    await store.write(jobs_sql.schedule, NewJob(PRUNE_KIND, "prune", clock() + 86400))
    commits: list[float] = []
    store.on_commit = commits.append

    async def run(job: JobRow) -> float | None:
        return None

    shown: asyncio.Queue[object] = asyncio.Queue()

    async def sink(event: object) -> str | None:
        shown.put_nowait(event)
        return "m1"

    naps = {name: Naps(clock) for name in ("jobs", "telegram", "discord")}
    scheduler = Scheduler(store, {"remind:telegram": run, PRUNE_KIND: run}, clock=clock,
                          sleep=naps["jobs"].nap)
    drivers = [RoundDriver(rounds, platform, sink, wait=naps[platform].waiter())
               for platform in ("telegram", "discord")]
    scheduler.start()
    for driver in drivers:
        driver.start()
    try:
        await asyncio.wait_for(asyncio.gather(*(n.done.wait() for n in naps.values())), 10)
        assert commits == []  # a minute of idling per loop, not one write transaction
        # The same loops do write once something is due: a round started in a group.
        await rounds.start(HOST, "-100", questions=1)
        await asyncio.wait_for(shown.get(), 10)
        assert commits
    finally:
        await scheduler.stop()
        for driver in drivers:
            await driver.stop()
        await store.close()
