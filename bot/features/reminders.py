"""Daily review reminders: the scheduler's handler for jobs of kind "remind".

At the learner's chosen minute, if questions are due, one short message goes out through
the platform's `Sender`, paced per platform (`Pace`: a queue, never a burst). A blocked
bot turns the reminder off; a rate-limit answer tries again after the time it names.
Either way the job moves to the next local occurrence, so a restart neither misses nor
repeats a day.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from bot.domain import learning
from bot.domain.platforms import chat_apps
from bot.domain.results import Actor
from bot.domain.stats_results import ReminderNote
from bot.features.jobs import Clock, Pace, Sleep
from bot.store.commands import learning_sql
from bot.store.rows import JobRow

if TYPE_CHECKING:
    from bot.features.engine import Engine

log = logging.getLogger(__name__)

# Reminders a second per platform, under its global limit (the reasons: bot.domain.platforms)
RATES = {p.name: p.reminder_rate for p in chat_apps()}


class Delivery(StrEnum):
    SENT = "sent"
    BLOCKED = "blocked"  # the user blocked the bot / closed DMs: stop reminding them
    RETRY = "retry"  # rate-limited or a passing failure: try again after `retry_after`


@dataclass(frozen=True, slots=True)
class Sent:
    delivery: Delivery
    retry_after: float = 0.0


Sender = Callable[[ReminderNote], Awaitable[Sent]]


class Reminders:
    """Runs reminder jobs; `senders` maps a platform to how it delivers a note."""

    def __init__(self, engine: Engine, senders: Mapping[str, Sender], *,
                 clock: Clock | None = None, sleep: Sleep = asyncio.sleep,
                 rates: Mapping[str, float] | None = None) -> None:
        self.engine = engine
        self.senders = dict(senders)
        self.clock = clock or engine.clock
        rates = {**{p.name: p.reminder_rate for p in chat_apps()}, **(rates or {})}
        self.paces = {p: Pace(rates.get(p, 10.0), clock=self.clock, sleep=sleep)
                      for p in self.senders}
        self.sent = 0  # benchmarks and tests

    async def __call__(self, job: JobRow) -> float | None:
        """Send one reminder if anything is due; return the next time (None: stop)."""
        platform, user_id = str(job.payload["platform"]), str(job.payload["user_id"])
        store = self.engine.store
        settings = await store.read(learning_sql.learner_settings, platform, user_id)
        if settings.remind_at is None:
            return None  # turned off after the job was claimed
        now = self.clock()
        following = learning.next_occurrence(now, settings.remind_at, settings.utc_offset)
        sender = self.senders.get(platform)
        if sender is None:
            log.warning("no sender for %s reminders in this process; next one at %s",
                        platform, following)
            return following
        due = await store.read(learning_sql.due_count, platform, user_id, now)
        if not due:
            return following
        lang = await self.engine.language(Actor(platform, user_id))
        await self.paces[platform].wait()
        sent = await sender(ReminderNote(platform, user_id, settings.chat_id, lang, due))
        if sent.delivery == Delivery.BLOCKED:
            log.info("%s user %s blocked the bot; their reminder is off", platform, user_id)
            await store.write(learning_sql.save_settings,  # told when next seen in a group
                              replace(settings, remind_at=None, remind_stopped_at=now))
            return None
        if sent.delivery == Delivery.RETRY:
            self.paces[platform].hold(sent.retry_after)
            return self.clock() + max(1.0, sent.retry_after)
        self.sent += 1
        return following
