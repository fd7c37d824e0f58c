"""Due work, run once across processes by one scheduler that sleeps until something is due.

A job is a row (kind, key, due time, JSON payload); each kind has one handler, registered
by kind: reminders, housekeeping, the question of the day, and each platform's round posts
(registered by the adapter that shows them). Work that keeps its due times in rows of its
own is `follow`ed: a platform's rounds (a question's deadline, the next one's opening; a
claim writes the post jobs) and the Telegram webhook inbox (an update whose worker's lease
ran out). The scheduler reads their due times with the jobs and calls a claim when it is due.

The loop reads (once) when the earliest job of its kinds or followed work is next due,
then waits for that time, for a wakeup (`wake`: this process just wrote something due), or for
`recheck` seconds (work another process wrote), whichever comes first. Only what is due is
claimed (a conditional UPDATE ... RETURNING): an idle bot reads now and then and writes
nothing. A claimed job runs as a task of its own (a slow chat never holds up another's
reveal); it is finished (deleted, or moved to the time its handler returns) or, when its
handler raises, tried again after the one backoff (`retry_in`). A process that dies
mid-job leaves its claims to expire after `lease` seconds (at once for a dead process of
this host), so a restart misses nothing. The clock and the wait are injected: tests drive
time by hand and never sleep.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Hashable, Mapping

from bot.domain.errors import StoreUnreachable
from bot.domain.tasks import spawn
from bot.store.command import Command
from bot.store.commands import jobs_sql
from bot.store.protocol import Store
from bot.store.rows import JobRow

log = logging.getLogger(__name__)

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]
# Wait until the event is set or the seconds have passed (tests pass simulated time).
Nap = Callable[[asyncio.Event, float], Awaitable[None]]
# A handler runs one job; it returns when to run the job again, or None when it is done.
Handler = Callable[[JobRow], Awaitable[float | None]]
# A read of when followed work (a platform's rounds, the webhook inbox) is next due.
Due = Callable[[], Command[float | None]]
# Claims followed work due by `now` (a round's reveal or opening, which writes its post jobs;
# an update left by a worker that died); False when there was nothing it could take.
Claim = Callable[[float], Awaitable[bool]]
# A job's lane: jobs of one kind and one lane run one after another, in the order claimed.
Lane = Callable[[JobRow], Hashable]

LEASE = 120.0  # seconds a claimed job stays ours (a round post may wait for the group limit)
RECHECK = 30.0  # seconds between looks for work other processes wrote
BATCH = 50  # jobs running at once in one process
BACKOFF, MAX_BACKOFF = 1.0, 30.0


def retry_in(failures: int) -> float:
    """The one backoff: a job whose handler failed runs again 1, 2, 4 ... 30 s later."""
    return min(MAX_BACKOFF, BACKOFF * 2.0 ** max(failures - 1, 0))


def default_worker() -> str:
    """A name for this process in `claimed_by` (host and pid), for logs and guards."""
    return f"{socket.gethostname()}:{os.getpid()}"


async def nap(wakeup: asyncio.Event, seconds: float) -> None:
    """Return when `wakeup` is set or after `seconds`, whichever comes first."""
    # asyncio.timeout, not wait_for: Python 3.11's wait_for swallows a cancellation that
    # arrives as the event is set, and the loop would not stop
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await wakeup.wait()


class Scheduler:
    """Claims due jobs of the registered kinds and runs each through its kind's handler."""

    def __init__(self, store: Store, handlers: Mapping[str, Handler] | None = None, *,
                 clock: Clock, wait: Nap = nap, worker: str | None = None,
                 batch: int = BATCH, lease: float = LEASE, recheck: float = RECHECK) -> None:
        self.store, self.clock, self.wait = store, clock, wait
        self.handlers: dict[str, Handler] = dict(handlers or {})
        self.lanes: dict[str, Lane] = {}
        self.follows: dict[str, tuple[Due, Claim]] = {}  # name -> when due, how claimed
        self.worker = worker or default_worker()
        self.batch, self.lease, self.recheck = batch, lease, recheck
        self._wakeup = asyncio.Event()
        self._running: dict[asyncio.Task[None], str] = {}  # job tasks and their kinds
        self._tails: dict[tuple[str, Hashable], asyncio.Task[None]] = {}  # last job per lane
        self._unchecked = set(self.handlers)  # kinds whose dead claims are not looked at
        # this process's own timed work (no job row: every process does it): name -> (every
        # how many seconds, what), and when each is next due
        self._periodic: dict[str, tuple[float, Callable[[], Awaitable[object]]]] = {}
        self._next_run: dict[str, float] = {}
        self._task: asyncio.Task[None] | None = None

    # --- what this process runs ------------------------------------------------------------

    def register(self, kind: str, handler: Handler, *, lane: Lane | None = None) -> None:
        """Run jobs of `kind` with `handler` from now on (one handler per kind); jobs of
        one `lane` (e.g. one round's posts) run in order, different lanes side by side."""
        self.handlers[kind] = handler
        if lane is not None:
            self.lanes[kind] = lane
        self._unchecked.add(kind)
        self.wake()

    def every(self, name: str, seconds: float, run: Callable[[], Awaitable[object]]) -> None:
        """Run `run` in this process every `seconds` (e.g. a read that keeps a cache in
        step with what other processes wrote); a failure is logged and tried next time."""
        self._periodic[name] = (seconds, run)
        self._next_run[name] = self.clock() + seconds
        self.wake()

    def follow(self, name: str, due: Due, claim: Claim) -> None:
        """Watch work with due times of its own too: `due()` is read with the jobs (one
        read), and `claim(now)` takes what is due (e.g. a platform's rounds)."""
        self.follows[name] = (due, claim)
        self.wake()

    async def withdraw(self, kinds: tuple[str, ...], follows: tuple[str, ...] = (), *,
                       grace: float = 5.0) -> None:
        """Stop claiming `kinds` and the followed work named `follows`; let their jobs in
        flight finish, cancelling what still runs after `grace` seconds (its claim expires
        and it runs again)."""
        for kind in kinds:
            self.handlers.pop(kind, None)
            self.lanes.pop(kind, None)
        for name in follows:
            self.follows.pop(name, None)
        await self._settle([t for t, k in self._running.items() if k in kinds], grace)

    def wake(self) -> None:
        """Look at the store now (something was just written that may be due)."""
        self._wakeup.set()

    # --- claiming ---------------------------------------------------------------------------

    async def tick(self) -> int:
        """Claim what is due now and run it to its end; return how many jobs ran (tests,
        tools: the loop does not wait for its jobs)."""
        _, followed = await self._look()
        await self._claim_followed(followed)
        jobs = await self._claim(self.batch)
        if jobs:
            await asyncio.wait([self._submit(job) for job in jobs])
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

    async def next_due(self) -> float | None:
        """When the earliest job or followed work is next due (one read)."""
        jobs_due, followed = await self._look()
        return _earliest(jobs_due, *followed.values())

    async def _look(self) -> tuple[float | None, dict[str, float | None]]:
        """(when the next job can be claimed, when each followed work is next due)."""
        names = list(self.follows)
        jobs_due, followed = await self.store.read(
            next_due, tuple(self.handlers), self.lease, [self.follows[n][0] for n in names])
        return jobs_due, dict(zip(names, followed, strict=True))

    async def _claim_followed(self, due: Mapping[str, float | None]) -> bool:
        """Claim the followed work that is due; False when none of it took anything."""
        now, worked = self.clock(), False
        for name, t in due.items():
            follow = self.follows.get(name)
            if follow is not None and t is not None and t <= now:
                worked = await follow[1](now) or worked
        return worked

    async def _claim(self, limit: int) -> list[JobRow]:
        kinds = tuple(self.handlers)  # only what this process can run
        if not kinds or limit <= 0:
            return []
        return await self.store.write(jobs_sql.claim_due, self.clock(), limit, self.worker,
                                      self.lease, kinds)

    async def _run(self, job: JobRow, previous: asyncio.Task[None] | None) -> None:
        if previous is not None:  # its lane's earlier job first
            await asyncio.wait({previous})
        handler = self.handlers.get(job.kind)
        if handler is None:  # withdrawn while it waited for its lane: unclaimed, on time,
            with contextlib.suppress(Exception):  # for whichever process serves it next
                await self.store.write(jobs_sql.retry_job, job, job.due_at)
            return
        try:
            next_due = await handler(job)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            wait = retry_in(job.attempts)
            log.log(logging.DEBUG if isinstance(exc, StoreUnreachable) else logging.ERROR,
                    "job %s (%s) failed on attempt %d; again in %.0f s", job.key, job.kind,
                    job.attempts, wait, exc_info=True)  # an unreachable store says so once
            with contextlib.suppress(Exception):  # if even that fails, the lease expires
                await self.store.write(jobs_sql.retry_job, job, self.clock() + wait)
            return
        if not await self.store.write(jobs_sql.finish_job, job, next_due):
            log.debug("job %s changed while it ran (rescheduled or cancelled); left as is",
                      job.key)

    # --- the loop ---------------------------------------------------------------------------

    def start(self) -> None:
        """Run the loop in a background task until `stop`."""
        if self._task is None:
            self._task = spawn(self._loop(), name="scheduler")

    async def stop(self, *, grace: float = 5.0) -> None:
        """Stop claiming; let jobs in flight finish for `grace` seconds, then cancel them
        (their claims expire after the lease and they run again)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._settle(list(self._running), grace)

    async def _loop(self) -> None:
        while True:
            self._wakeup.clear()
            try:
                await self._release_dead()
                due = min((t for t in (await self._run_periodic(), await self._step())
                           if t is not None), default=None)
            except StoreUnreachable:  # the store said so, once per outage
                due = None
            except Exception:  # the store may be briefly unavailable; keep the loop alive
                log.exception("scheduler: claiming due work failed")
                due = None
            wait = self.recheck if due is None else min(self.recheck, due - self.clock())
            if wait > 0:
                await self.wait(self._wakeup, wait)

    async def _run_periodic(self) -> float | None:
        """Run this process's timed work that is due; when the next is."""
        now = self.clock()
        for name, (seconds, run) in list(self._periodic.items()):
            if self._next_run.get(name, now) <= now:
                self._next_run[name] = now + seconds
                try:
                    await run()
                except Exception:
                    log.exception("scheduler: %s failed; again in %.0f s", name, seconds)
        return min(self._next_run.values(), default=None)

    async def _step(self) -> float | None:
        """One read of what is next due, and claims of what is due now (a claim is a write,
        made only then); when to look again (None: only at the recheck)."""
        jobs_due, followed = await self._look()
        now = self.clock()
        worked = await self._claim_followed(followed)  # e.g. writes round post jobs due now
        if worked or (jobs_due is not None and jobs_due <= now):
            room = self.batch - len(self._running)
            if room <= 0:
                return None  # full: a job ending wakes the loop
            jobs = await self._claim(room)
            for job in jobs:
                self._submit(job)
            worked = worked or bool(jobs)
        if worked:
            return now  # look again at once: more may be due
        due = _earliest(jobs_due, *followed.values())
        # looked due, yet nothing to claim (another process took it): not a busy loop
        return None if due is None else max(due, now + BACKOFF) if due <= now else due

    def _submit(self, job: JobRow) -> asyncio.Task[None]:
        lane = self.lanes.get(job.kind)
        key = None if lane is None else (job.kind, lane(job))
        previous = None if key is None else self._tails.get(key)
        task = spawn(self._run(job, previous), name=f"job-{job.kind}")
        self._running[task] = job.kind
        task.add_done_callback(functools.partial(self._ended, key))
        if key is not None:
            self._tails[key] = task
        return task

    def _ended(self, key: tuple[str, Hashable] | None, task: asyncio.Task[None]) -> None:
        self._running.pop(task, None)
        if key is not None and self._tails.get(key) is task:
            del self._tails[key]
        self.wake()  # room for the next batch; a handler may have written new work

    async def idle(self) -> None:
        """Wait until every job in flight has ended (tests, shutdown)."""
        while self._running:
            await asyncio.wait(list(self._running))

    async def _settle(self, tasks: list[asyncio.Task[None]], grace: float) -> None:
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=grace)
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _release_dead(self) -> None:
        """Free the claims of processes of this host that are gone (killed) on the kinds
        just registered: their lease would otherwise hold a reveal back for minutes."""
        kinds, self._unchecked = self._unchecked, set()
        host = socket.gethostname()
        for kind in sorted(kinds):
            # a read; a write only if a claimer died
            for worker in await self.store.read(jobs_sql.claimers, kind):
                name, _, pid = worker.rpartition(":")
                if name != host or not pid.isdigit() or worker == self.worker:
                    continue
                try:
                    os.kill(int(pid), 0)
                except ProcessLookupError:
                    freed = await self.store.write(jobs_sql.release_claims, worker, kind)
                    log.info("scheduler: %d %s jobs of a process that died are taken over",
                             freed, kind)
                except PermissionError:  # alive, someone else's
                    continue


def next_due(kinds: tuple[str, ...], lease: float, follows: list[Due]
             ) -> Command[tuple[float | None, list[float | None]]]:
    """The scheduler's one read before it sleeps: when the earliest job of `kinds` can next
    be claimed, and when each followed work is next due."""
    jobs_due = yield from jobs_sql.next_job_due(kinds, lease)
    followed = []
    for due in follows:
        followed.append((yield from due()))
    return jobs_due, followed


def _earliest(*times: float | None) -> float | None:
    return min((t for t in times if t is not None), default=None)


class Pace:
    """At most `rate` calls of `wait` per second, as a queue: each waits for its slot."""

    def __init__(self, rate: float, *, clock: Clock, sleep: Sleep = asyncio.sleep) -> None:
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
