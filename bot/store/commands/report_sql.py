"""The results reads: accuracy per question (the one query `quizbot stats`, `quizbot export`,
the dashboard's group page and a learner's /stats share), learners' records, a deployment's
overview.

SELECTs only, so they run on the bot's store and on the read-only connection of
`quizbot stats|export|check` (`bot.ops.reader`) alike. Figures count answers given in
full attempts (review sessions re-ask missed questions, which would skew accuracy toward
the hard ones), like the in-chat /stats. Options are file indexes: what a teacher can look
up, whatever order a learner saw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.domain.platforms import PLATFORMS
from bot.domain.product_limits import OVERVIEW_GROUPS, OVERVIEW_REPORTS
from bot.domain.report_rows import (
    ExportRows,
    GroupRow,
    LearnerAnswers,
    LearnerRecord,
    OpenReport,
    Overview,
    QuestionAccuracy,
)
from bot.store.command import Command, q

CHATS_SINCE, REPORTS_SINCE = 10, 18  # schema versions that added chats, problem_reports


@dataclass(frozen=True)
class Scope:
    """Which sessions a report covers: all of them, those started in one chat, or one
    learner's of one quiz (/stats)."""

    chat_id: str | None = None
    platform: str | None = None
    user_id: str | None = None
    quiz_id: str | None = None

    @classmethod
    def parse(cls, chat: str | None) -> Scope:
        """`ID` or `platform:ID` (e.g. telegram:-1001234 for a group, discord:<guild id>)."""
        if not chat:
            return cls()
        platform, sep, chat_id = chat.partition(":")
        if sep and platform in PLATFORMS:
            return cls(chat_id, platform)
        return cls(chat)

    def where(self, alias: str = "s") -> tuple[str, tuple[Any, ...]]:
        """An SQL condition on the sessions table and its parameters."""
        clauses, params = [], []
        for column, value in (("chat_id", self.chat_id), ("platform", self.platform),
                              ("user_id", self.user_id), ("quiz_id", self.quiz_id)):
            if value is not None:
                clauses.append(f"{alias}.{column} = ?")
                params.append(value)
        return (" AND ".join(clauses) or "1 = 1"), tuple(params)


def accuracy(scope: Scope) -> Command[list[QuestionAccuracy]]:
    """Per question answered in scope: answers, right ones, and the most chosen wrong option
    (ties: the lower index; a typed number that is no option, chosen -1, names none). One
    pass over the answers, counted per (question, option); the few counts are folded here."""
    cond, params = scope.where()
    rows = yield q("SELECT s.quiz_id, a.question_id, a.chosen, a.correct, COUNT(*) AS n "
                   "FROM sessions s JOIN answers a ON a.session_id = s.id "
                   f"WHERE s.kind = 'full' AND {cond} "
                   "GROUP BY s.quiz_id, a.question_id, a.chosen, a.correct", *params)
    tally: dict[tuple[str, str], list[int]] = {}  # answered, right, wrong pick, its count
    for r in sorted(rows, key=lambda r: (r["quiz_id"], r["question_id"], r["chosen"])):
        t = tally.setdefault((r["quiz_id"], r["question_id"]), [0, 0, -1, 0])
        n = int(r["n"])
        t[0] += n
        if r["correct"]:
            t[1] += n
        elif n > t[3] and int(r["chosen"]) >= 0:  # in option order: a tie keeps the lower
            t[2], t[3] = int(r["chosen"]), n
    return [QuestionAccuracy(quiz, question, t[0], t[1], None if t[2] < 0 else t[2], t[3])
            for (quiz, question), t in sorted(tally.items())]


def schema_version() -> Command[int]:
    """MAX(version) recorded in schema_migrations (0 when none)."""
    rows = yield q("SELECT MAX(version) FROM schema_migrations")
    return int(rows[0][0] or 0)


def summary() -> Command[tuple[int, int, int, int]]:
    """(schema version, users, sessions, answers): `quizbot check`'s line."""
    version = yield from schema_version()
    rows = yield q("SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM sessions), "
                   "(SELECT COUNT(*) FROM answers)")
    return version, int(rows[0][0]), int(rows[0][1]), int(rows[0][2])


def last_activity() -> Command[float]:
    """The newest timestamp of any user, session or answer (0 for an empty database): a
    restore refuses to throw away activity newer than its backup's."""
    rows = yield q("SELECT MAX(t) FROM (SELECT MAX(created_at) AS t FROM users "
                   "UNION ALL SELECT MAX(started_at) FROM sessions "
                   "UNION ALL SELECT MAX(finished_at) FROM sessions "
                   "UNION ALL SELECT MAX(answered_at) FROM answers) x")
    return float(rows[0][0] or 0.0)


def overview() -> Command[Overview]:
    """Counts of users, sessions by status and answers; every question's accuracy; the
    groups with most learners and the open problem reports (where the schema has them)."""
    version, users, _, answers = yield from summary()
    sessions = yield q("SELECT status, COUNT(*) FROM sessions GROUP BY status ORDER BY status")
    view = Overview(users, {r[0]: int(r[1]) for r in sessions}, answers,
                    (yield from accuracy(Scope())))
    if version >= CHATS_SINCE:
        rows = yield q(
            "SELECT s.platform, s.chat_id, MAX(c.title), COUNT(DISTINCT s.user_id) AS n "
            "FROM sessions s LEFT JOIN chats c ON c.platform = s.platform "
            "AND c.chat_id = s.chat_id WHERE s.chat_id IS NOT NULL "
            "GROUP BY s.platform, s.chat_id ORDER BY n DESC, s.platform, s.chat_id LIMIT ?",
            OVERVIEW_GROUPS)
        view.groups.extend(GroupRow(r[0], r[1], r[2] or "", int(r[3])) for r in rows)
    if version >= REPORTS_SINCE:
        rows = yield q(
            "SELECT quiz_id, question_id, reason, note, created_at FROM problem_reports "
            "WHERE resolved_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ?", OVERVIEW_REPORTS)
        view.reports.extend(OpenReport(r[0], r[1], str(r[2]), str(r[3]), float(r[4]))
                            for r in rows)
    return view


def export_rows(scope: Scope) -> Command[ExportRows]:
    """Every learner with a full attempt in scope, per quiz, with their record per question;
    the accuracy of every question; the chat's title when the bot saw it."""
    cond, params = scope.where()
    heads = yield q(
        "SELECT s.platform, s.user_id, MAX(COALESCE(u.display_name, '')), s.quiz_id, "
        "COUNT(*), SUM(CASE WHEN s.status = 'finished' THEN 1 ELSE 0 END), "
        "MAX(CASE WHEN s.status = 'finished' THEN s.score END), "
        "(SELECT l.score FROM sessions l WHERE l.platform = s.platform AND l.user_id = s.user_id "
        "AND l.quiz_id = s.quiz_id AND l.kind = 'full' AND l.status = 'finished' "
        f"AND {scope.where('l')[0]} ORDER BY l.finished_at DESC, l.id DESC LIMIT 1) "
        "FROM sessions s LEFT JOIN users u ON u.platform = s.platform AND u.user_id = s.user_id "
        f"WHERE s.kind = 'full' AND {cond} GROUP BY s.platform, s.user_id, s.quiz_id "
        "ORDER BY s.quiz_id, s.platform, s.user_id", *scope.where("l")[1], *params)
    per_question: dict[tuple[str, str, str], list[LearnerAnswers]] = {}
    for r in (yield q(
            "SELECT s.platform, s.user_id, s.quiz_id, a.question_id, COUNT(*), "
            "SUM(CAST(a.correct AS INTEGER)), (SELECT la.chosen || ':' || "
            "CAST(CAST(la.correct AS INTEGER) AS TEXT) || ':' || "
            "CAST(COALESCE(ls.seed, ls.id) AS TEXT) FROM answers la JOIN sessions ls "
            "ON ls.id = la.session_id WHERE ls.platform = s.platform AND ls.user_id = s.user_id "
            "AND ls.quiz_id = s.quiz_id AND ls.kind = 'full' AND la.question_id = a.question_id "
            f"AND {scope.where('ls')[0]} ORDER BY la.answered_at DESC, la.session_id DESC "
            "LIMIT 1) FROM answers a JOIN sessions s ON s.id = a.session_id "
            f"WHERE s.kind = 'full' AND {cond} "
            "GROUP BY s.platform, s.user_id, s.quiz_id, a.question_id "
            "ORDER BY a.question_id", *scope.where("ls")[1], *params)):
        chosen, correct, seed = str(r[6]).split(":")
        per_question.setdefault((r[0], r[1], r[2]), []).append(LearnerAnswers(
            r[3], int(r[4]), int(r[5]), int(chosen), correct == "1", int(seed)))
    learners = [LearnerRecord(h[0], h[1], h[2], h[3], int(h[4]), int(h[5]), h[6], h[7],
                              tuple(per_question.get((h[0], h[1], h[3]), ()))) for h in heads]
    title = None
    if scope.chat_id is not None and (yield from schema_version()) >= CHATS_SINCE:
        rows = yield q("SELECT title FROM chats WHERE chat_id = ?"
                       + (" AND platform = ?" if scope.platform else ""),
                       scope.chat_id, *([scope.platform] if scope.platform else []))
        title = str(rows[0][0]) if rows else None
    return ExportRows(scope.platform, scope.chat_id, title, learners,
                      (yield from accuracy(scope)))


__all__ = ["Scope", "accuracy", "export_rows", "last_activity", "overview", "schema_version",
           "summary"]
