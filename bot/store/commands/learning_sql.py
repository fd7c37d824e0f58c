"""Spaced review (cards, reviews) and learner settings: one body per command.

A review is logged by `INSERT ... ON CONFLICT (answer_key) DO NOTHING`, and only the caller
whose insert inserted moves the card: on SQLite the writer lock makes that the whole story;
on PostgreSQL a second insert of the key waits for the first to commit, then inserts
nothing, and the card is read `FOR UPDATE`.
"""

from __future__ import annotations

from bot.domain.learning import local_day
from bot.store.command import Command, one, q
from bot.store.commands.jobs_sql import cancel_job, schedule
from bot.store.rows import (
    CardRow,
    DayTotal,
    LearnerSettings,
    NewJob,
    NewReview,
    ReviewTotal,
    columns,
    from_row,
)

_CARD = ("SELECT card FROM cards WHERE platform = ? AND user_id = ? AND quiz_id = ? "
         "AND question_id = ? FOR UPDATE")


def ensure_user(platform: str, user_id: str, now: float, display_name: str = ""
                ) -> Command[None]:
    """Create the user row if it is missing (rows that reference it need it)."""
    yield q("INSERT INTO users (platform, user_id, display_name, created_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (platform, user_id) DO NOTHING",
            platform, user_id, display_name, now)


def apply_review(r: NewReview) -> Command[bool]:
    """Inside a write transaction: log the review once (by key), then move the card."""
    offset = r.utc_offset
    if offset is None:
        row = one((yield q("SELECT utc_offset FROM learner_settings WHERE platform = ? "
                           "AND user_id = ?", r.platform, r.user_id)))
        offset = 0 if row is None else int(row["utc_offset"])
    logged = yield q(
        "INSERT INTO reviews (answer_key, platform, user_id, quiz_id, question_id, correct, "
        "sure, rating, reviewed_at, day) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (answer_key) DO NOTHING RETURNING answer_key",
        r.answer_key, r.platform, r.user_id, r.quiz_id, r.question_id, int(r.correct),
        None if r.sure is None else int(r.sure), r.rating, r.reviewed_at,
        local_day(r.reviewed_at, offset))
    if not logged:  # this answer moved the card before (a repeat, another process)
        return False
    key = (r.platform, r.user_id, r.quiz_id, r.question_id)
    sure_miss = int(r.sure is True and not r.correct)
    stored = one((yield q(_CARD, *key)))
    if stored is None:
        card, due_at = r.update(None)
        if (yield q("INSERT INTO cards (platform, user_id, quiz_id, question_id, card, due_at, "
                    "reviews, updated_at, sure_miss) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?) "
                    "ON CONFLICT DO NOTHING RETURNING reviews", *key, card, due_at,
                    r.reviewed_at, sure_miss)):
            return True
        # PostgreSQL: another review of this card created it meanwhile (and has committed:
        # ON CONFLICT waited for it); move that card on, as if it had been there all along.
        stored = one((yield q(_CARD, *key)))
    card, due_at = r.update(str(stored["card"]))
    yield q("UPDATE cards SET card = ?, due_at = ?, reviews = reviews + 1, updated_at = ?, "
            "sure_miss = ? WHERE platform = ? AND user_id = ? AND quiz_id = ? "
            "AND question_id = ?", card, due_at, r.reviewed_at, sure_miss, *key)
    return True


def apply_review_alone(review: NewReview) -> Command[bool]:
    """`apply_review` in a transaction of its own (creating the user if needed)."""
    yield from ensure_user(review.platform, review.user_id, review.reviewed_at)
    return (yield from apply_review(review))


def due_cards(platform: str, user_id: str, now: float, limit: int) -> Command[list[CardRow]]:
    """The learner's cards due by `now`: confident misses first, then most overdue first."""
    rows = yield q(f"SELECT {columns(CardRow)} FROM cards WHERE platform = ? AND user_id = ? "
                   "AND due_at <= ? ORDER BY sure_miss DESC, due_at, quiz_id, question_id "
                   "LIMIT ?", platform, user_id, now, limit)
    return [from_row(CardRow, r) for r in rows]


def cards(platform: str, user_id: str) -> Command[list[CardRow]]:
    """Every card of the learner."""
    rows = yield q(f"SELECT {columns(CardRow)} FROM cards WHERE platform = ? AND user_id = ? "
                   "ORDER BY quiz_id, question_id", platform, user_id)
    return [from_row(CardRow, r) for r in rows]


def next_due(platform: str, user_id: str) -> Command[tuple[int, float | None]]:
    """(cards the learner has, earliest due time or None)."""
    row = (yield q("SELECT COUNT(*) AS n, MIN(due_at) AS first FROM cards "
                   "WHERE platform = ? AND user_id = ?", platform, user_id))[0]
    return int(row["n"]), None if row["first"] is None else float(row["first"])


def due_count(platform: str, user_id: str, now: float) -> Command[int]:
    """How many of the learner's cards are due by `now`."""
    rows = yield q("SELECT COUNT(*) AS n FROM cards WHERE platform = ? AND user_id = ? "
                   "AND due_at <= ?", platform, user_id, now)
    return int(rows[0]["n"])


def review_totals(platform: str, user_id: str) -> Command[list[ReviewTotal]]:
    """Reviews per (quiz, question, confidence mark): no mark, then guesses, then sure."""
    rows = yield q(
        "SELECT quiz_id, question_id, sure, COUNT(*) AS answered, SUM(correct) AS correct "
        "FROM reviews WHERE platform = ? AND user_id = ? GROUP BY quiz_id, question_id, sure "
        "ORDER BY quiz_id, question_id, sure NULLS FIRST", platform, user_id)
    return [from_row(ReviewTotal, r) for r in rows]


def review_days(platform: str, user_id: str, since_day: int) -> Command[list[DayTotal]]:
    """Reviews per local day from `since_day` on, in day order."""
    rows = yield q("SELECT day, COUNT(*) AS answered, SUM(correct) AS correct FROM reviews "
                   "WHERE platform = ? AND user_id = ? AND day >= ? GROUP BY day ORDER BY day",
                   platform, user_id, since_day)
    return [from_row(DayTotal, r) for r in rows]


def learner_settings(platform: str, user_id: str) -> Command[LearnerSettings]:
    """The learner's settings (defaults when never set)."""
    rows = yield q(f"SELECT {columns(LearnerSettings)} FROM learner_settings "
                   "WHERE platform = ? AND user_id = ?", platform, user_id)
    return from_row(LearnerSettings, rows[0]) if rows else LearnerSettings(platform, user_id)


def tell_reminders_stopped(platform: str, user_id: str) -> Command[bool]:
    """Claim telling the learner their reminders went off (True: this caller tells them)."""
    return bool((yield q("UPDATE learner_settings SET remind_stopped_at = NULL WHERE "
                         "platform = ? AND user_id = ? AND remind_stopped_at IS NOT NULL "
                         "RETURNING user_id", platform, user_id)))


def save_settings(settings: LearnerSettings, *, job: NewJob | None = None,
                  cancel: str | None = None) -> Command[None]:
    """Store the settings and schedule or cancel a job, in one transaction."""
    s = settings
    yield from ensure_user(s.platform, s.user_id, job.due_at if job else 0.0)
    yield q("INSERT INTO learner_settings (platform, user_id, confidence, utc_offset, "
            "remind_at, chat_id, remind_stopped_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (platform, user_id) DO UPDATE SET confidence = excluded.confidence, "
            "utc_offset = excluded.utc_offset, remind_at = excluded.remind_at, "
            "chat_id = excluded.chat_id, remind_stopped_at = excluded.remind_stopped_at",
            s.platform, s.user_id, int(s.confidence), s.utc_offset, s.remind_at, s.chat_id,
            s.remind_stopped_at)
    if cancel is not None:
        yield from cancel_job(cancel)
    if job is not None:
        yield from schedule(job)
