"""A simulated idle minute of a running app: its scheduler waits on a test clock while the
adapters talk to their fake platforms in real time; what the store committed meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from bot.app.compose import App
from tests.clock import FakeClock

IDLE = 60.0


async def idle_minute(app: App, *, then: Callable[[], object] = lambda: None) -> list[float]:
    """Let `app`'s scheduler wait through a simulated minute (after a first one, for work
    the start leaves: the day's housekeeping, which on a busy machine may run only now);
    the commits of the second. `then` is called between the two."""
    clock = FakeClock(app.engine.clock())
    waited, done = [0.0], asyncio.Event()

    async def wait(wakeup: asyncio.Event, seconds: float) -> None:
        await asyncio.sleep(0.05)  # the platforms' own loops run meanwhile
        clock.advance(seconds)
        waited[0] += seconds
        if waited[0] >= IDLE:
            done.set()

    app.scheduler.clock, app.scheduler.wait = clock, wait
    app.scheduler.wake()
    await asyncio.wait_for(done.wait(), 30)
    await app.scheduler.idle()
    then()
    commits: list[float] = []
    app.store.on_commit = commits.append
    waited[0] = 0.0
    done.clear()
    await asyncio.wait_for(done.wait(), 30)
    return commits
