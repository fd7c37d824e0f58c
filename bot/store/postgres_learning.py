"""PostgresStore's half for spaced review and due jobs (see `bot.store.learning`).

The same rules as `sqlite_learning`, for many processes on one database at READ COMMITTED:
a review is logged by `INSERT ... ON CONFLICT (answer_key) DO NOTHING` (a second insert of
the key waits for the first to commit, then inserts nothing), and only the caller whose
insert inserted moves the card, under `SELECT ... FOR UPDATE`. Jobs are claimed by one
conditional UPDATE over a `FOR UPDATE SKIP LOCKED` subselect, so two workers never claim
one job and never wait on each other's claims.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from bot.domain.learning import local_day
from bot.store.learning import (
    CardRow,
    DayTotal,
    JobRow,
    LearnerSettings,
    NewJob,
    NewReview,
    ReviewTotal,
    settings_of,
)

T = TypeVar("T")
Conn = Any  # asyncpg.Connection (asyncpg ships no type hints)

_CARD_COLUMNS = "quiz_id, question_id, card, due_at, reviews"
_JOB_COLUMNS = ("id, kind, key, due_at, payload::text AS payload, claimed_at, claimed_by, "
                "attempts")


async def apply_review(db: Conn, r: NewReview) -> bool:
    """Inside a write transaction: log the review once (by key), then move the card."""
    offset = r.utc_offset
    if offset is None:
        offset = await db.fetchval(
            "SELECT utc_offset FROM learner_settings WHERE platform = $1 AND user_id = $2",
            r.platform, r.user_id)
    logged = await db.fetchval(
        "INSERT INTO reviews (answer_key, platform, user_id, quiz_id, question_id, correct, "
        "sure, rating, reviewed_at, day) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
        "ON CONFLICT (answer_key) DO NOTHING RETURNING answer_key",
        r.answer_key, r.platform, r.user_id, r.quiz_id, r.question_id, r.correct, r.sure,
        r.rating, r.reviewed_at, local_day(r.reviewed_at, int(offset or 0)))
    if logged is None:
        return False
    key = (r.platform, r.user_id, r.quiz_id, r.question_id)
    select = ("SELECT card FROM cards WHERE platform = $1 AND user_id = $2 AND quiz_id = $3 "
              "AND question_id = $4 FOR UPDATE")
    stored = await db.fetchval(select, *key)
    if stored is None:
        card, due_at = r.update(None)
        if await db.fetchval(
                "INSERT INTO cards (platform, user_id, quiz_id, question_id, card, due_at, "
                "reviews, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 1, $7) "
                "ON CONFLICT DO NOTHING RETURNING 1", *key, card, due_at, r.reviewed_at):
            return True
        # Another review of this card created it meanwhile (and has committed: ON CONFLICT
        # waited for it); move that card on, as if it had been there all along.
        stored = await db.fetchval(select, *key)
    card, due_at = r.update(str(stored))
    await db.execute(
        "UPDATE cards SET card = $5, due_at = $6, reviews = reviews + 1, updated_at = $7 "
        "WHERE platform = $1 AND user_id = $2 AND quiz_id = $3 AND question_id = $4",
        *key, card, due_at, r.reviewed_at)
    return True


def _card(row: Any) -> CardRow:
    return CardRow(row["quiz_id"], row["question_id"], row["card"], float(row["due_at"]),
                   int(row["reviews"]))


def _job(row: Any) -> JobRow:
    return JobRow(int(row["id"]), row["kind"], row["key"], float(row["due_at"]),
                  json.loads(row["payload"]), float(row["claimed_at"]), row["claimed_by"],
                  int(row["attempts"]))


class PostgresLearning:
    """Mixed into PostgresStore, which provides the pool and `_write`."""

    _pool: Any

    async def _write(self, unit: Callable[[Conn], Awaitable[T]]) -> T:
        raise NotImplementedError  # PostgresStore's

    # --- cards and reviews ---------------------------------------------------------------

    async def apply_review(self, review: NewReview) -> bool:
        """Log the review once (by key) and move the card, in one transaction."""
        async def unit(db: Conn) -> bool:
            await _ensure_user(db, review.platform, review.user_id, review.reviewed_at)
            return await apply_review(db, review)

        return await self._write(unit)

    async def due_cards(self, platform: str, user_id: str, now: float, limit: int
                        ) -> list[CardRow]:
        """The learner's cards due by `now`, most overdue first."""
        rows = await self._pool.fetch(
            f"SELECT {_CARD_COLUMNS} FROM cards WHERE platform = $1 AND user_id = $2 "
            "AND due_at <= $3 ORDER BY due_at, quiz_id, question_id LIMIT $4",
            platform, user_id, now, limit)
        return [_card(r) for r in rows]

    async def cards(self, platform: str, user_id: str) -> list[CardRow]:
        """Every card of the learner."""
        rows = await self._pool.fetch(
            f"SELECT {_CARD_COLUMNS} FROM cards WHERE platform = $1 AND user_id = $2 "
            "ORDER BY quiz_id, question_id", platform, user_id)
        return [_card(r) for r in rows]

    async def next_due(self, platform: str, user_id: str) -> tuple[int, float | None]:
        """(cards the learner has, earliest due time or None)."""
        row = await self._pool.fetchrow(
            "SELECT COUNT(*) AS n, MIN(due_at) AS first FROM cards "
            "WHERE platform = $1 AND user_id = $2", platform, user_id)
        return int(row["n"]), None if row["first"] is None else float(row["first"])

    async def due_count(self, platform: str, user_id: str, now: float) -> int:
        """How many of the learner's cards are due by `now`."""
        return int(await self._pool.fetchval(
            "SELECT COUNT(*) FROM cards WHERE platform = $1 AND user_id = $2 AND due_at <= $3",
            platform, user_id, now))

    async def review_totals(self, platform: str, user_id: str) -> list[ReviewTotal]:
        """Reviews per (quiz, question, confidence mark)."""
        # ORDER BY the mark too (SQLite leaves it to the grouping): NULL, false, true.
        rows = await self._pool.fetch(
            "SELECT quiz_id, question_id, sure, COUNT(*) AS n, "
            "COUNT(*) FILTER (WHERE correct) AS right_ FROM reviews "
            "WHERE platform = $1 AND user_id = $2 GROUP BY quiz_id, question_id, sure "
            "ORDER BY quiz_id, question_id, sure NULLS FIRST", platform, user_id)
        return [ReviewTotal(r["quiz_id"], r["question_id"], r["sure"], int(r["n"]),
                            int(r["right_"])) for r in rows]

    async def review_days(self, platform: str, user_id: str, since_day: int) -> list[DayTotal]:
        """Reviews per local day from `since_day` on, in day order."""
        rows = await self._pool.fetch(
            "SELECT day, COUNT(*) AS n, COUNT(*) FILTER (WHERE correct) AS right_ "
            "FROM reviews WHERE platform = $1 AND user_id = $2 AND day >= $3 "
            "GROUP BY day ORDER BY day", platform, user_id, since_day)
        return [DayTotal(int(r["day"]), int(r["n"]), int(r["right_"])) for r in rows]

    # --- settings ----------------------------------------------------------------------

    async def learner_settings(self, platform: str, user_id: str) -> LearnerSettings:
        """The learner's settings (defaults when never set)."""
        row = await self._pool.fetchrow(
            "SELECT confidence, utc_offset, remind_at, chat_id FROM learner_settings "
            "WHERE platform = $1 AND user_id = $2", platform, user_id)
        return settings_of(platform, user_id, row)

    async def save_settings(self, settings: LearnerSettings, *, job: NewJob | None = None,
                            cancel_job: str | None = None) -> None:
        """Store the settings and schedule or cancel a job, in one transaction."""
        s = settings

        async def unit(db: Conn) -> None:
            await _ensure_user(db, s.platform, s.user_id, job.due_at if job else 0.0)
            await db.execute(
                "INSERT INTO learner_settings (platform, user_id, confidence, utc_offset, "
                "remind_at, chat_id) VALUES ($1, $2, $3, $4, $5, $6) "
                "ON CONFLICT (platform, user_id) DO UPDATE SET confidence = "
                "excluded.confidence, utc_offset = excluded.utc_offset, "
                "remind_at = excluded.remind_at, chat_id = excluded.chat_id",
                s.platform, s.user_id, s.confidence, s.utc_offset, s.remind_at, s.chat_id)
            if cancel_job is not None:
                await db.execute("DELETE FROM jobs WHERE key = $1", cancel_job)
            if job is not None:
                await _schedule(db, job)

        await self._write(unit)

    # --- jobs --------------------------------------------------------------------------

    async def schedule_job(self, job: NewJob) -> None:
        """Insert the job, or replace the live job with the same key."""
        async def unit(db: Conn) -> None:
            await _schedule(db, job)

        await self._write(unit)

    async def cancel_job(self, key: str) -> bool:
        """Delete the job with this key; True if there was one."""
        async def unit(db: Conn) -> bool:
            return await db.fetchval("DELETE FROM jobs WHERE key = $1 RETURNING id",
                                     key) is not None

        return await self._write(unit)

    async def claim_due(self, now: float, limit: int, worker: str, lease: float,
                        kinds: Sequence[str] | None = None) -> list[JobRow]:
        """Claim up to `limit` due jobs, oldest first, with one conditional UPDATE.

        The subselect locks what it picks `FOR UPDATE SKIP LOCKED`: a job another worker is
        claiming right now is skipped, not waited for (and not claimed twice); the outer
        WHERE re-checks the claim against the row as it stands when locked.
        """
        if kinds is not None and not kinds:
            return []
        wanted = None if kinds is None else list(kinds)

        async def unit(db: Conn) -> list[JobRow]:
            rows = await db.fetch(
                "UPDATE jobs SET claimed_at = $1, claimed_by = $2, attempts = attempts + 1 "
                "WHERE id IN (SELECT id FROM jobs WHERE done_at IS NULL AND due_at <= $1 "
                "AND (claimed_at IS NULL OR claimed_at < $3) "
                "AND ($4::text[] IS NULL OR kind = ANY($4::text[])) "
                "ORDER BY due_at, id LIMIT $5 FOR UPDATE SKIP LOCKED) "
                "AND done_at IS NULL AND (claimed_at IS NULL OR claimed_at < $3) "
                f"RETURNING {_JOB_COLUMNS}", now, worker, now - lease, wanted, limit)
            return sorted((_job(r) for r in rows), key=lambda j: (j.due_at, j.id))

        return await self._write(unit)

    async def finish_job(self, job: JobRow, next_due_at: float | None) -> bool:
        """Delete the job or move it to `next_due_at`, while it is still our claim."""
        async def unit(db: Conn) -> bool:
            if next_due_at is None:
                done = await db.fetchval(
                    "DELETE FROM jobs WHERE id = $1 AND claimed_by = $2 AND claimed_at = $3 "
                    "RETURNING id", job.id, job.claimed_by, job.claimed_at)
            else:
                done = await db.fetchval(
                    "UPDATE jobs SET due_at = $4, claimed_at = NULL, claimed_by = NULL, "
                    "attempts = 0 WHERE id = $1 AND claimed_by = $2 AND claimed_at = $3 "
                    "RETURNING id", job.id, job.claimed_by, job.claimed_at, next_due_at)
            return done is not None

        return await self._write(unit)


async def _schedule(db: Conn, job: NewJob) -> None:
    await db.execute(
        "INSERT INTO jobs (kind, key, due_at, payload) VALUES ($1, $2, $3, $4::jsonb) "
        "ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, due_at = excluded.due_at, "
        "payload = excluded.payload, claimed_at = NULL, claimed_by = NULL, attempts = 0, "
        "done_at = NULL", job.kind, job.key, job.due_at, json.dumps(job.payload))


async def _ensure_user(db: Conn, platform: str, user_id: str, now: float) -> None:
    await db.execute(
        "INSERT INTO users (platform, user_id, created_at) VALUES ($1, $2, $3) "
        "ON CONFLICT (platform, user_id) DO NOTHING", platform, user_id, now)
