"""What a platform's rounds show, as the scheduler's work: the rounds' due times (a
question's deadline, the next one's opening) followed by the scheduler, and every question post,
reveal edit and podium as a post job (`bot.store.round_rows.post_key`), written in the same
transaction that claimed it. A question whose post got no answer (`MAYBE_POSTED`: perhaps in
the chat) is done, never posted twice.

An adapter registers how it shows an event (`RoundJobs.serve`: its sink) and runs no loop
of its own. A sink returns normally for what is done (sent, or never sendable: the bot was
removed) and raises for what should be tried again: the scheduler's one backoff, and after
`MAX_TRIES` the post is given up (the platform refuses it for good). Posts of one round are
shown in order; different rounds never wait for each other.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.domain.round_results import MAYBE_POSTED, RoundEvent, RoundQuestion, RoundReveal
from bot.features.jobs import BACKOFF, Scheduler
from bot.features.rounds import Rounds
from bot.store.commands import jobs_sql, rounds_sql
from bot.store.round_rows import post_key, post_kind
from bot.store.rows import JobRow

log = logging.getLogger(__name__)

Sink = Callable[[RoundEvent], Awaitable[str | None]]
MAX_TRIES = 12  # about five minutes of failures: the platform refuses it for good


def _round_of(job: JobRow) -> int:
    return int(job.payload["round"])


class RoundJobs:
    """Shows each platform's round posts through the sink its adapter registered."""

    def __init__(self, rounds: Rounds, scheduler: Scheduler) -> None:
        self.rounds, self.scheduler = rounds, scheduler

    def serve(self, platform: str, sink: Sink) -> None:
        """Run `platform`'s rounds in this process, showing each post through `sink`
        (posting a question returns the message's id, stored so the reveal can edit it)."""
        self.scheduler.follow(platform, functools.partial(rounds_sql.next_round_due, platform),
                              functools.partial(self.claim, platform))
        self.scheduler.register(post_kind(platform), functools.partial(self.show, sink),
                                lane=_round_of)

    async def withdraw(self, platform: str, *, grace: float = 5.0) -> None:
        """Stop showing `platform`'s rounds; posts in flight get `grace` seconds (what is
        not shown stays due in the store for the next process)."""
        kind = post_kind(platform)
        await self.scheduler.withdraw((kind,), (platform,), grace=grace)

    async def claim(self, platform: str, now: float) -> bool:
        """Reveal and open what is due of `platform`'s rounds (writing their post jobs)."""
        await self.rounds.claim(platform, now)
        return True  # something was due: the scheduler looks again at once

    async def show(self, sink: Sink, job: JobRow) -> float | None:
        """Show one post job through `sink`; return when to look again (its question is
        not out yet), or None when done."""
        rounds, store, p = self.rounds, self.rounds.store, job.payload
        round_id, qindex, what = int(p["round"]), int(p["qindex"]), str(p["what"])
        if what != "q" and await store.read(jobs_sql.job_live, post_key(round_id, qindex, "q")):
            return rounds.clock() + BACKOFF  # its question is not out yet: after it
        post = await store.read(rounds_sql.round_post, round_id, qindex)
        if what == "q" and post is not None and post.message_ref is not None:
            return None  # out already: the process died after storing its id, before done
        event = rounds.event_of(post, what) if post is not None else None
        try:
            if isinstance(event, RoundReveal):
                await sink(replace(event, message_ref=await self.message_of(event)))
            elif isinstance(event, RoundQuestion):
                event = await rounds.on_time(event)
                ref = await sink(event)
                if ref is not None:
                    await rounds.posted(event, ref)
        except Exception as exc:
            if job.attempts < MAX_TRIES:
                raise
            log.error("rounds: giving up on %s of round %s after %d tries: %s", what,
                      round_id, job.attempts, exc)
        return None

    async def message_of(self, reveal: RoundReveal) -> str | None:
        """The stored message of a reveal's question (posted after the reveal was built, or
        found by a press since its post got no answer); None when there is none to edit."""
        ref = reveal.message_ref
        if ref in (None, MAYBE_POSTED) and reveal.question is not None:
            ref = await self.rounds.store.read(rounds_sql.round_message,
                                               reveal.round_id, reveal.question.qindex)
        return None if ref == MAYBE_POSTED else ref
