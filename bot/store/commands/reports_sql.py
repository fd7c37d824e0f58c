""""Report a problem": a learner's reports about a question, and an admin resolving them.

At most `limit` reports per learner in any `window` seconds: the INSERT counts the learner's
recent reports in the same statement, so the limit holds without a lock in the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.store.command import Command, q
from bot.store.rows import from_row


@dataclass(frozen=True, slots=True)
class ReportRow:
    id: int
    platform: str
    user_id: str
    display_name: str
    quiz_id: str
    question_id: str
    seed: int | None
    reason: str
    note: str
    lang: str
    created_at: float


def add_report(platform: str, user_id: str, quiz_id: str, question_id: str, seed: int | None,
               reason: str, lang: str, now: float, window: float, limit: int
               ) -> Command[int | None]:
    """Store a report; its id, or None when the learner already sent `limit` in `window`."""
    rows = yield q(
        "INSERT INTO problem_reports (platform, user_id, quiz_id, question_id, seed, reason, "
        "note, lang, created_at) SELECT ?, ?, ?, ?, ?, ?, '', ?, ? WHERE (SELECT COUNT(*) "
        "FROM problem_reports WHERE platform = ? AND user_id = ? AND created_at > ?) < ? "
        "RETURNING id", platform, user_id, quiz_id, question_id, seed, reason, lang, now,
        platform, user_id, now - window, limit)
    return int(rows[0]["id"]) if rows else None


def add_note(platform: str, user_id: str, note: str, since: float) -> Command[bool]:
    """Attach `note` to the learner's latest report made after `since` that has none yet."""
    rows = yield q(
        "UPDATE problem_reports SET note = ? WHERE id = (SELECT MAX(id) FROM problem_reports "
        "WHERE platform = ? AND user_id = ? AND created_at > ?) AND note = '' RETURNING id",
        note, platform, user_id, since)
    return bool(rows)


def open_reports(limit: int) -> Command[tuple[list[ReportRow], int]]:
    """(the open reports, newest first, at most `limit`; how many are open in all)."""
    rows = yield q(
        "SELECT r.id, r.platform, r.user_id, COALESCE(u.display_name, '') AS display_name, "
        "r.quiz_id, "
        "r.question_id, r.seed, r.reason, r.note, r.lang, r.created_at, "
        "COUNT(*) OVER () AS everyone FROM problem_reports r LEFT JOIN users u "
        "ON u.platform = r.platform AND u.user_id = r.user_id WHERE r.resolved_at IS NULL "
        "ORDER BY r.created_at DESC, r.id DESC LIMIT ?", limit)
    return [from_row(ReportRow, r) for r in rows], int(rows[0]["everyone"]) if rows else 0


def resolve_report(report_id: int, by: str, now: float) -> Command[bool]:
    """Mark a report resolved (once); False if there is no such open report."""
    rows = yield q("UPDATE problem_reports SET resolved_at = ?, resolved_by = ? "
                   "WHERE id = ? AND resolved_at IS NULL RETURNING id", now, by, report_id)
    return bool(rows)
