"""The loop that shows a platform's rounds: claims what is due, then the post jobs that
claim wrote, hands each post to the adapter's sink, sleeps until the next due time or a
wakeup (an injected clock and a wakeup event, so tests never sleep).

Every question post, reveal edit and podium is a job row (`bot.store.round_rows.post_key`)
written in the same transaction that claimed it, and claimed here with a lease like the
reminders' jobs: a post that fails (an API error, a rate limit) is tried again with
backoff, and a process that dies between the claim and the send leaves the job behind for
the next process (a dead process on this host is noticed at once; elsewhere its lease runs
out). A sink returns normally for what is done (sent, or never sendable: the bot was
removed) and raises for what should be tried again.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.domain.round_results import RoundEvent, RoundQuestion, RoundReveal
from bot.domain.tasks import spawn
from bot.features.jobs import default_worker
from bot.features.rounds import POLL, Rounds
from bot.store.commands import jobs_sql, rounds_sql
from bot.store.round_rows import post_key, post_kind
from bot.store.rows import JobRow

log = logging.getLogger(__name__)

Sink = Callable[[RoundEvent], Awaitable[str | None]]
# Wait until the event is set or the seconds have passed (injected: tests pass simulated time).
Nap = Callable[[asyncio.Event, float], Awaitable[None]]


async def nap(wakeup: asyncio.Event, seconds: float) -> None:
    """Return when `wakeup` is set or after `seconds`, whichever comes first."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(wakeup.wait(), seconds)
LEASE = 120.0  # seconds a claimed post stays ours (a post may wait for the group's limit)
BACKOFF, MAX_BACKOFF = 1.0, 30.0  # a failed post is tried again after 1, 2, 4 ... 30 s
MAX_TRIES = 12  # about five minutes of failures: the platform refuses it for good
BATCH = 50


class RoundDriver:
    """One platform's loop: claim what is due, show each post through `sink`, sleep until
    the next due time or a wakeup.

    `sink` shows an event (posting a question returns the message's id, which is stored so
    the reveal can edit it). Posts of one round are shown in order; different rounds do
    not wait for each other, so a slow chat never delays another chat's reveal.
    """

    def __init__(self, rounds: Rounds, platform: str, sink: Sink, *, poll: float = POLL,
                 worker: str | None = None, wait: Nap = nap) -> None:
        self.rounds, self.platform, self.sink, self.poll = rounds, platform, sink, poll
        self.wait = wait
        self.worker = worker or default_worker()
        self.kind = post_kind(platform)
        self._tails: dict[int, asyncio.Task[None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def start(self) -> None:
        """Run the loop as an owned background task."""
        if self._task is None:
            self._stopping = False
            self._task = spawn(self._loop(), name=f"rounds-{self.platform}")

    def wake(self) -> None:
        """Look at the store now (a command just made something due)."""
        self.rounds.wakeup(self.platform).set()

    async def stop(self, *, grace: float = 5.0) -> None:
        """Stop the loop; let posts already claimed be shown, cancelling what is still
        running after `grace` seconds (its job stays in the store for the next process)."""
        task, self._task = self._task, None
        # Never cancel a claim in flight: its transaction commits regardless. The loop sees
        # the flag between ticks.
        self._stopping = True
        self.wake()
        with contextlib.suppress(TimeoutError):
            if task is not None:
                await asyncio.wait_for(asyncio.shield(task), grace)
            await asyncio.wait_for(self.idle(), grace)
        tasks = [t for t in (task, *self._tails.values()) if t is not None]
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t
        self._tails.clear()

    async def _loop(self) -> None:
        wakeup = self.rounds.wakeup(self.platform)
        with contextlib.suppress(Exception):  # best effort: leases expire anyway
            await self.release_dead()
        while not self._stopping:
            wakeup.clear()
            try:
                # Reads first: a claim is a write, made only when something is due, so an
                # idle bot (no round running, no post waiting) writes nothing.
                due = await self.next_due()
                if due is not None and due <= self.rounds.clock():
                    await self.tick()
                    due = await self.next_due()
            except Exception:  # the store failing: try again shortly, never die
                log.exception("rounds: claiming due work on %s failed", self.platform)
                due = None
            wait = self.poll if due is None else min(self.poll, due - self.rounds.clock())
            if wait > 0 and not self._stopping:
                await self.wait(wakeup, wait)

    async def next_due(self) -> float | None:
        """When a reveal, an opening or a post of this platform is next due (reads only)."""
        times = (await self.rounds.next_due(self.platform),
                 await self.rounds.store.read(jobs_sql.next_job_due, (self.kind,), LEASE))
        return min((t for t in times if t is not None), default=None)

    async def release_dead(self) -> int:
        """Free the posts claimed by processes of this host that are gone (killed): their
        lease would otherwise hold a reveal back for minutes."""
        host, freed = socket.gethostname(), 0
        for worker in await self.rounds.store.read(rounds_sql.claimers, self.kind):
            name, _, pid = worker.rpartition(":")
            if name != host or not pid.isdigit() or worker == self.worker:
                continue
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                freed += await self.rounds.store.write(rounds_sql.release_claims, worker, self.kind)
            except PermissionError:  # alive, someone else's
                continue
        if freed:
            log.info("rounds: %d posts of a process that died are taken over", freed)
        return freed

    async def tick(self) -> int:
        """Claim what is due and the posts it wrote, and dispatch them; return how many."""
        await self.rounds.claim(self.platform)  # the posts come from the jobs it wrote
        now = self.rounds.clock()
        jobs = await self.rounds.store.write(jobs_sql.claim_due,
                                             now, BATCH, self.worker, LEASE, (self.kind,))
        for job in jobs:
            self._submit(job)
        return len(jobs)

    def submit(self, event: RoundEvent) -> None:
        """An event a command produced (a stop): its post job is in the store already."""
        self.wake()

    def _submit(self, job: JobRow) -> None:
        round_id = int(job.payload["round"])
        previous = self._tails.get(round_id)
        task = spawn(self._show(previous, job), name=f"round-{round_id}")
        self._tails[round_id] = task
        task.add_done_callback(functools.partial(self._forget, round_id))

    def _forget(self, round_id: int, task: asyncio.Task[None]) -> None:
        if self._tails.get(round_id) is task:
            del self._tails[round_id]

    async def idle(self) -> None:
        """Wait until every claimed post has been shown or put back (tests, shutdown)."""
        while self._tails:
            await asyncio.wait(list(self._tails.values()))

    async def _show(self, previous: asyncio.Task[None] | None, job: JobRow) -> None:
        if previous is not None:
            await asyncio.wait({previous})
        store, p = self.rounds.store, job.payload
        try:
            if p["what"] != "q" and await store.read(rounds_sql.job_live,
                    post_key(int(p["round"]), int(p["qindex"]), "q")):
                # its question is not out yet (failing, or claimed elsewhere): after it
                await store.write(rounds_sql.retry_post, job, self.rounds.clock() + BACKOFF,
                                  int(p.get("tries", 0)))
                return
            post = await store.read(rounds_sql.round_post, int(p["round"]), int(p["qindex"]))
            event = self.rounds.event_of(post, str(p["what"])) if post is not None else None
            if isinstance(event, RoundReveal):
                ref = await self.rounds.message_of(event)
                await self.sink(replace(event, message_ref=ref))
            elif isinstance(event, RoundQuestion):
                ref = await self.sink(event)
                if ref is not None:
                    await self.rounds.posted(event, ref)
            await store.write(jobs_sql.finish_job, job, None)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            tries = int(p.get("tries", 0)) + 1
            if tries >= MAX_TRIES:
                log.error("rounds: giving up on %s of round %s after %d tries: %s",
                          p.get("what"), p.get("round"), tries, exc)
                with contextlib.suppress(Exception):
                    await store.write(jobs_sql.finish_job, job, None)
                return
            wait = min(MAX_BACKOFF, BACKOFF * 2 ** (tries - 1))
            log.warning("rounds: showing %s of round %s failed (try %d), again in %.0f s: %s",
                        p.get("what"), p.get("round"), tries, wait, exc)
            with contextlib.suppress(Exception):  # if even that fails, the lease expires
                await store.write(rounds_sql.retry_post, job, self.rounds.clock() + wait, tries)
