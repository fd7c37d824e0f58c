"""SQLiteStore's half for spaced review and due jobs (see `bot.store.learning`)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from bot.domain.learning import local_day
from bot.store.group_commit import GroupCommit, fetchall
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

_CARD_COLUMNS = "quiz_id, question_id, card, due_at, reviews"


def apply_review(db: sqlite3.Connection, r: NewReview) -> bool:
    """Inside a write transaction: log the review once (by key), then move the card."""
    offset = r.utc_offset
    if offset is None:
        rows = fetchall(db,
            "SELECT utc_offset FROM learner_settings WHERE platform = ? AND user_id = ?",
            (r.platform, r.user_id))
        offset = int(next(iter(rows))["utc_offset"]) if rows else 0
    logged = db.execute(
        "INSERT INTO reviews (answer_key, platform, user_id, quiz_id, question_id, correct, "
        "sure, rating, reviewed_at, day) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (answer_key) DO NOTHING",
        (r.answer_key, r.platform, r.user_id, r.quiz_id, r.question_id, int(r.correct),
         None if r.sure is None else int(r.sure), r.rating, r.reviewed_at,
         local_day(r.reviewed_at, offset))).rowcount
    if not logged:  # this answer moved the card before (a repeat, another process)
        return False
    rows = fetchall(db,
        "SELECT card FROM cards WHERE platform = ? AND user_id = ? AND quiz_id = ? "
        "AND question_id = ?", (r.platform, r.user_id, r.quiz_id, r.question_id))
    card, due_at = r.update(next(iter(rows))["card"] if rows else None)
    db.execute(
        "INSERT INTO cards (platform, user_id, quiz_id, question_id, card, due_at, reviews, "
        "updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?) "
        "ON CONFLICT (platform, user_id, quiz_id, question_id) DO UPDATE SET "
        "card = excluded.card, due_at = excluded.due_at, reviews = cards.reviews + 1, "
        "updated_at = excluded.updated_at",
        (r.platform, r.user_id, r.quiz_id, r.question_id, card, due_at, r.reviewed_at))
    return True


def _card(row: Any) -> CardRow:
    return CardRow(row["quiz_id"], row["question_id"], row["card"], float(row["due_at"]),
                   int(row["reviews"]))


def _job(row: Any) -> JobRow:
    return JobRow(row["id"], row["kind"], row["key"], float(row["due_at"]),
                  json.loads(row["payload"]), float(row["claimed_at"]), row["claimed_by"],
                  int(row["attempts"]))


class SQLiteLearning:
    """Mixed into SQLiteStore, which provides the connections and the group commit."""

    _writes: GroupCommit

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    async def _one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        raise NotImplementedError

    # --- cards and reviews ---------------------------------------------------------------

    async def apply_review(self, review: NewReview) -> bool:
        """Log the review once (by key) and move the card, in one transaction."""
        def unit(db: sqlite3.Connection) -> bool:
            _ensure_user(db, review.platform, review.user_id, review.reviewed_at)
            return apply_review(db, review)

        return await self._writes.run(unit)

    async def due_cards(self, platform: str, user_id: str, now: float, limit: int
                        ) -> list[CardRow]:
        """The learner's cards due by `now`, most overdue first."""
        rows = await self._all(
            f"SELECT {_CARD_COLUMNS} FROM cards WHERE platform = ? AND user_id = ? "
            "AND due_at <= ? ORDER BY due_at, quiz_id, question_id LIMIT ?",
            (platform, user_id, now, limit))
        return [_card(r) for r in rows]

    async def cards(self, platform: str, user_id: str) -> list[CardRow]:
        """Every card of the learner."""
        rows = await self._all(
            f"SELECT {_CARD_COLUMNS} FROM cards WHERE platform = ? AND user_id = ? "
            "ORDER BY quiz_id, question_id", (platform, user_id))
        return [_card(r) for r in rows]

    async def next_due(self, platform: str, user_id: str) -> tuple[int, float | None]:
        """(cards the learner has, earliest due time or None)."""
        row = await self._one(
            "SELECT COUNT(*) AS n, MIN(due_at) AS first FROM cards "
            "WHERE platform = ? AND user_id = ?", (platform, user_id))
        return int(row["n"]), row["first"]

    async def due_count(self, platform: str, user_id: str, now: float) -> int:
        """How many of the learner's cards are due by `now`."""
        row = await self._one(
            "SELECT COUNT(*) AS n FROM cards WHERE platform = ? AND user_id = ? "
            "AND due_at <= ?", (platform, user_id, now))
        return int(row["n"])

    async def review_totals(self, platform: str, user_id: str) -> list[ReviewTotal]:
        """Reviews per (quiz, question, confidence mark)."""
        rows = await self._all(
            "SELECT quiz_id, question_id, sure, COUNT(*) AS n, SUM(correct) AS right "
            "FROM reviews WHERE platform = ? AND user_id = ? "
            "GROUP BY quiz_id, question_id, sure ORDER BY quiz_id, question_id",
            (platform, user_id))
        return [ReviewTotal(r["quiz_id"], r["question_id"],
                            None if r["sure"] is None else bool(r["sure"]),
                            int(r["n"]), int(r["right"])) for r in rows]

    async def review_days(self, platform: str, user_id: str, since_day: int) -> list[DayTotal]:
        """Reviews per local day from `since_day` on, in day order."""
        rows = await self._all(
            "SELECT day, COUNT(*) AS n, SUM(correct) AS right FROM reviews "
            "WHERE platform = ? AND user_id = ? AND day >= ? GROUP BY day ORDER BY day",
            (platform, user_id, since_day))
        return [DayTotal(int(r["day"]), int(r["n"]), int(r["right"])) for r in rows]

    # --- settings ----------------------------------------------------------------------

    async def learner_settings(self, platform: str, user_id: str) -> LearnerSettings:
        """The learner's settings (defaults when never set)."""
        row = await self._one(
            "SELECT confidence, utc_offset, remind_at, chat_id FROM learner_settings "
            "WHERE platform = ? AND user_id = ?", (platform, user_id))
        return settings_of(platform, user_id, row)

    async def save_settings(self, settings: LearnerSettings, *, job: NewJob | None = None,
                            cancel_job: str | None = None) -> None:
        """Store the settings and schedule or cancel a job, in one transaction."""
        s = settings

        def unit(db: sqlite3.Connection) -> None:
            _ensure_user(db, s.platform, s.user_id, job.due_at if job else 0.0)
            db.execute(
                "INSERT INTO learner_settings (platform, user_id, confidence, utc_offset, "
                "remind_at, chat_id) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (platform, user_id) DO UPDATE SET confidence = "
                "excluded.confidence, utc_offset = excluded.utc_offset, "
                "remind_at = excluded.remind_at, chat_id = excluded.chat_id",
                (s.platform, s.user_id, int(s.confidence), s.utc_offset, s.remind_at,
                 s.chat_id))
            if cancel_job is not None:
                db.execute("DELETE FROM jobs WHERE key = ?", (cancel_job,))
            if job is not None:
                _schedule(db, job)

        await self._writes.run(unit)

    # --- jobs --------------------------------------------------------------------------

    async def schedule_job(self, job: NewJob) -> None:
        """Insert the job, or replace the live job with the same key."""
        def unit(db: sqlite3.Connection) -> None:
            _schedule(db, job)

        await self._writes.run(unit)

    async def cancel_job(self, key: str) -> bool:
        """Delete the job with this key; True if there was one."""
        def unit(db: sqlite3.Connection) -> bool:
            cur = db.execute("DELETE FROM jobs WHERE key = ?", (key,))
            return cur.rowcount > 0

        return await self._writes.run(unit)

    async def claim_due(self, now: float, limit: int, worker: str, lease: float,
                        kinds: Sequence[str] | None = None) -> list[JobRow]:
        """Claim up to `limit` due jobs, oldest first, with one conditional UPDATE."""
        wanted = list(kinds) if kinds is not None else []
        # One placeholder per kind: the values still travel as parameters.
        of_kind = f"AND kind IN ({', '.join('?' * len(wanted))}) " if kinds is not None else ""

        def unit(db: sqlite3.Connection) -> list[JobRow]:
            if kinds is not None and not wanted:
                return []
            rows = fetchall(db,
                "UPDATE jobs SET claimed_at = ?, claimed_by = ?, attempts = attempts + 1 "
                "WHERE id IN (SELECT id FROM jobs WHERE done_at IS NULL AND due_at <= ? "
                f"AND (claimed_at IS NULL OR claimed_at < ?) {of_kind}"
                "ORDER BY due_at, id LIMIT ?) "
                "AND done_at IS NULL AND (claimed_at IS NULL OR claimed_at < ?) "
                "RETURNING id, kind, key, due_at, payload, claimed_at, claimed_by, attempts",
                (now, worker, now, now - lease, *wanted, limit, now - lease))
            return sorted((_job(r) for r in rows), key=lambda j: (j.due_at, j.id))

        return await self._writes.run(unit)

    async def finish_job(self, job: JobRow, next_due_at: float | None) -> bool:
        """Delete the job or move it to `next_due_at`, while it is still our claim."""
        def unit(db: sqlite3.Connection) -> bool:
            if next_due_at is None:
                cur = db.execute(
                    "DELETE FROM jobs WHERE id = ? AND claimed_by = ? AND claimed_at = ?",
                    (job.id, job.claimed_by, job.claimed_at))
            else:
                cur = db.execute(
                    "UPDATE jobs SET due_at = ?, claimed_at = NULL, claimed_by = NULL, "
                    "attempts = 0 WHERE id = ? AND claimed_by = ? AND claimed_at = ?",
                    (next_due_at, job.id, job.claimed_by, job.claimed_at))
            return cur.rowcount > 0

        return await self._writes.run(unit)


def _schedule(db: sqlite3.Connection, job: NewJob) -> None:
    db.execute(
        "INSERT INTO jobs (kind, key, due_at, payload) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (key) DO UPDATE SET kind = excluded.kind, due_at = excluded.due_at, "
        "payload = excluded.payload, claimed_at = NULL, claimed_by = NULL, attempts = 0, "
        "done_at = NULL", (job.kind, job.key, job.due_at, json.dumps(job.payload)))


def _ensure_user(db: sqlite3.Connection, platform: str, user_id: str, now: float
                       ) -> None:
    db.execute(
        "INSERT INTO users (platform, user_id, created_at) VALUES (?, ?, ?) "
        "ON CONFLICT (platform, user_id) DO NOTHING", (platform, user_id, now))
