"""Housekeeping jobs: what the database no longer needs goes, by one simple rule.

Every "Try again" abandons the unfinished attempt; one that was never answered holds
nothing anyone can see, so once a day the scheduler deletes abandoned sessions with no
answers that started more than a day ago (`sessions_sql.prune_abandoned`). Abandoned attempts
with answers stay: /stats and /review read them. The same job forgets webhook updates
processed more than two days ago (`inbox_sql.inbox_prune`): Telegram keeps an undelivered
update for at most a day, so a late repeat of one still counts once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.store.commands import inbox_sql, jobs_sql, sessions_sql
from bot.store.protocol import Store
from bot.store.rows import JobRow, NewJob

log = logging.getLogger(__name__)

PRUNE_KIND = "prune"
PRUNE_KEY = "prune:abandoned"
KEEP_ABANDONED = 86_400.0  # seconds an unanswered abandoned attempt is kept
KEEP_UPDATES = 2 * 86_400.0  # seconds a processed webhook update's id is remembered
EVERY = 86_400.0  # the job runs once a day


class Housekeeping:
    """The prune job's handler: delete, log how many, run again in a day."""

    def __init__(self, store: Store, *, clock: Callable[[], float]) -> None:
        self.store, self.clock = store, clock

    async def __call__(self, job: JobRow) -> float:
        """Run the prune; return when it runs next."""
        now = self.clock()
        gone = await self.store.write(sessions_sql.prune_abandoned, now - KEEP_ABANDONED)
        if gone:
            log.info("housekeeping: %d abandoned attempts without answers pruned", gone)
        updates = await self.store.write(inbox_sql.inbox_prune, now - KEEP_UPDATES)
        if updates:
            log.info("housekeeping: %d processed webhook updates pruned", updates)
        return now + EVERY

    async def schedule(self) -> None:
        """Make sure the daily job exists (due now: a fresh start prunes at once)."""
        await self.store.write(jobs_sql.schedule, NewJob(PRUNE_KIND, PRUNE_KEY, self.clock()))
