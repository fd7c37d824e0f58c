"""The loop that shows a platform's rounds: claims what is due, hands each event to the
adapter's sink, sleeps until the next due time or a wakeup (an injected clock and a wakeup
event, so tests never sleep)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.domain.round_results import RoundEvent, RoundReveal
from bot.domain.tasks import spawn
from bot.features.rounds import POLL, Rounds

log = logging.getLogger(__name__)

Sink = Callable[[RoundEvent], Awaitable[str | None]]


class RoundDriver:
    """One platform's loop: claim what is due, hand each event to `sink`, sleep until the
    next due time or a wakeup.

    `sink` shows an event (posting a question returns the message's id, which is stored so
    the reveal can edit it). Events of one round are shown in order; different rounds do
    not wait for each other, so a slow chat never delays another chat's reveal.
    """

    def __init__(self, rounds: Rounds, platform: str, sink: Sink, *, poll: float = POLL) -> None:
        self.rounds, self.platform, self.sink, self.poll = rounds, platform, sink, poll
        self._tails: dict[int, asyncio.Task[None]] = {}
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def start(self) -> None:
        """Run the loop as an owned background task."""
        if self._task is None:
            self._stopping = False
            self._task = spawn(self._loop(), name=f"rounds-{self.platform}")

    async def stop(self, *, grace: float = 5.0) -> None:
        """Stop the loop; let events already claimed be shown (a claimed reveal is not
        claimed again), cancelling what is still running after `grace` seconds."""
        task, self._task = self._task, None
        # Never cancel a claim in flight: its transaction commits regardless, and the events
        # it returns would be lost. The loop sees the flag between ticks.
        self._stopping = True
        self.rounds.wakeup(self.platform).set()
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
        while not self._stopping:
            wakeup.clear()
            try:
                await self.tick()
                due = await self.rounds.next_due(self.platform)
            except Exception:  # the store failing: try again shortly, never die
                log.exception("rounds: claiming due work on %s failed", self.platform)
                due = None
            wait = self.poll if due is None else min(self.poll, due - self.rounds.clock())
            if wait > 0 and not self._stopping:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wakeup.wait(), wait)

    async def tick(self) -> int:
        """Claim and dispatch everything due now; return how many events."""
        events = await self.rounds.due(self.platform)
        for event in events:
            self.submit(event)
        return len(events)

    def submit(self, event: RoundEvent) -> None:
        """Show `event` after the events of its round submitted before it."""
        previous = self._tails.get(event.round_id)
        task = spawn(self._show(previous, event), name=f"round-{event.round_id}")
        self._tails[event.round_id] = task
        task.add_done_callback(functools.partial(self._forget, event.round_id))

    def _forget(self, round_id: int, task: asyncio.Task[None]) -> None:
        if self._tails.get(round_id) is task:
            del self._tails[round_id]

    async def idle(self) -> None:
        """Wait until every submitted event has been shown (tests, shutdown)."""
        while self._tails:
            await asyncio.wait(list(self._tails.values()))

    async def _show(self, previous: asyncio.Task[None] | None, event: RoundEvent) -> None:
        if previous is not None:
            await asyncio.wait({previous})
        try:
            if isinstance(event, RoundReveal):
                ref = await self.rounds.message_of(event)
                await self.sink(replace(event, message_ref=ref))
            else:
                ref = await self.sink(event)
                if ref is not None:
                    await self.rounds.posted(event, ref)
        except Exception:
            log.exception("rounds: showing %s of round %s failed", type(event).__name__,
                          event.round_id)
