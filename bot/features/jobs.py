"""Due jobs, run once across processes: one loop claims what is due from the store.

A job is a row (kind, key, due time, JSON payload). `Scheduler.tick` claims a batch with a
conditional UPDATE ... RETURNING (`jobs_sql.claim_due`), runs each job's handler, and
finishes it: deleted, or moved to the time the handler returns. A process that dies
mid-batch leaves claims that expire after `lease` seconds and are claimed again, so a
restart misses nothing; a finished job is never run again. The clock and the sleep are
injected: tests drive time by hand and never wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable, Mapping

from bot.domain.tasks import spawn
from bot.store.commands import jobs_sql
from bot.store.protocol import Store
from bot.store.rows import JobRow

log = logging.getLogger(__name__)

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]
# A handler runs one job; it returns when to run the job again, or None when it is done.
Handler = Callable[[JobRow], Awaitable[float | None]]

MAX_BACKOFF = 3600.0


def default_worker() -> str:
    """A name for this process in `claimed_by` (host and pid), for logs and guards."""
    return f"{socket.gethostname()}:{os.getpid()}"


class Scheduler:
    """Claims due jobs in batches and runs them through the handler of their kind."""

    def __init__(self, store: Store, handlers: Mapping[str, Handler], *,
                 clock: Clock = time.time, sleep: Sleep = asyncio.sleep,
                 worker: str | None = None, batch: int = 30, lease: float = 600.0,
                 idle: float = 1.0) -> None:
        self.store = store
        self.handlers = dict(handlers)
        self.clock, self.sleep = clock, sleep
        self.worker = worker or default_worker()
        self.batch, self.lease, self.idle = batch, lease, idle
        self._task: asyncio.Task[None] | None = None

    async def tick(self) -> int:
        """Claim one batch of due jobs and run it (handlers concurrently); return how many."""
        jobs = await self.store.write(jobs_sql.claim_due,
                                      self.clock(), self.batch, self.worker, self.lease,
                                      tuple(self.handlers))  # only what we can run
        if jobs:
            await asyncio.gather(*(self._run(job) for job in jobs))
        return len(jobs)

    async def run_until_idle(self, max_ticks: int = 1_000_000) -> int:
        """Tick until nothing is due (tests, benchmarks); return the jobs run."""
        done = 0
        for _ in range(max_ticks):
            n = await self.tick()
            if n == 0:
                break
            done += n
        return done

    async def _run(self, job: JobRow) -> None:
        handler = self.handlers.get(job.kind)
        try:
            if handler is None:
                raise LookupError(f"no handler for job kind {job.kind!r}")
            next_due = await handler(job)
        except Exception:
            backoff = min(MAX_BACKOFF, 30.0 * 2 ** (job.attempts - 1))
            log.exception("job %s (%s) failed on attempt %d; again in %.0f s",
                          job.key, job.kind, job.attempts, backoff)
            next_due = self.clock() + backoff
        if not await self.store.write(jobs_sql.finish_job, job, next_due):
            log.info("job %s changed while it ran (rescheduled or cancelled); left as is",
                     job.key)

    async def _loop(self) -> None:
        kinds = tuple(self.handlers)
        while True:
            # A read first: with nothing due the loop writes nothing, however long it idles.
            # It looks again every `idle` seconds at most, for jobs other processes write.
            try:
                due = await self.store.read(jobs_sql.next_job_due, kinds, self.lease)
                if due is not None and due <= self.clock() and await self.tick():
                    continue
            except Exception:  # the store may be briefly unavailable; keep the loop alive
                log.exception("scheduler tick failed")
                due = None
            wait = self.idle if due is None else min(self.idle, due - self.clock())
            await self.sleep(max(wait, 0.01))

    def start(self) -> None:
        """Run the loop in a background task until `stop`."""
        if self._task is None:
            self._task = spawn(self._loop(), name="scheduler")

    async def stop(self) -> None:
        """Cancel the loop; claims in flight expire after the lease and run again."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class Pace:
    """At most `rate` calls of `wait` per second, as a queue: each waits for its slot."""

    def __init__(self, rate: float, *, clock: Clock = time.monotonic,
                 sleep: Sleep = asyncio.sleep) -> None:
        self.interval = 1.0 / rate
        self.clock, self.sleep = clock, sleep
        self._next = 0.0

    def hold(self, seconds: float) -> None:
        """No slot before `seconds` from now (the platform said to wait)."""
        self._next = max(self._next, self.clock() + seconds)

    async def wait(self) -> None:
        """Return at this caller's slot (slots are handed out in call order)."""
        now = self.clock()
        slot = max(self._next, now)
        self._next = slot + self.interval
        if slot > now:
            await self.sleep(slot - now)
