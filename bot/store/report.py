"""What `quizbot stats` and `quizbot export` read from the database: SELECTs only.

Written once for both dialects (run through a `Reader`): booleans are compared as
`CAST(x AS INTEGER)` and every aggregate is spelled the way SQLite and PostgreSQL share.

Per-question figures count answers given in full attempts (review sessions re-ask missed
questions, which would skew accuracy toward the hard ones), like the in-chat /stats.
An option is named by its letter in the quiz file's order (A = the first option written),
not by the shuffled order a learner saw, because that is what a teacher can look up.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from bot.domain.platforms import PLATFORMS
from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import DrawFailed, draw, drawn_text, named_option, shown_text
from bot.store.reader import Reader

LETTERS = "ABCDEFGHIJ"
MAX_GROUPS = 20  # groups listed by `quizbot stats`
MAX_REPORTS = 50  # open problem reports listed by `quizbot stats`


def letter(index: int | None) -> str:
    """The file-order letter of an option index ('' for None)."""
    if index is None:
        return ""
    return LETTERS[index] if 0 <= index < len(LETTERS) else str(index)


@dataclass(frozen=True)
class Scope:
    """Which sessions a report covers: all of them, or those started in one chat."""

    chat_id: str | None = None
    platform: str | None = None

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
        if self.chat_id is not None:
            clauses.append(f"{alias}.chat_id = ?")
            params.append(self.chat_id)
        if self.platform is not None:
            clauses.append(f"{alias}.platform = ?")
            params.append(self.platform)
        return (" AND ".join(clauses) or "1 = 1"), tuple(params)


@dataclass(frozen=True)
class QuestionRow:
    quiz_id: str
    question_id: str
    answered: int
    correct: int
    wrong_option: str  # the most chosen wrong option's letter ('' if never answered wrong)
    wrong_count: int
    question: str = ""  # the question's text, when the quiz file is at hand
    wrong_text: str = ""  # that wrong option's text, likewise

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.answered if self.answered else None


@dataclass(frozen=True)
class GroupRow:
    platform: str
    chat_id: str
    title: str  # '' when the bot never saw its name
    learners: int


@dataclass(frozen=True)
class Overview:
    users: int
    sessions: Mapping[str, int]  # status -> count
    answers: int
    questions: Sequence[QuestionRow]
    groups: Sequence[GroupRow] = ()
    reports: Sequence[tuple[str, str, str, str, str]] = ()  # quiz, question, reason, note, at


async def question_rows(read: Reader, scope: Scope,
                        quizzes: Mapping[str, Quiz] | None = None) -> list[QuestionRow]:
    """Accuracy and the most chosen wrong option of every question answered in scope."""
    cond, params = scope.where()
    rows = await read.rows(
        "WITH a AS (SELECT s.quiz_id, a.question_id, a.chosen, "
        "CAST(a.correct AS INTEGER) AS correct FROM answers a "
        f"JOIN sessions s ON s.id = a.session_id WHERE s.kind = 'full' AND {cond}), "
        "wrong AS (SELECT quiz_id, question_id, chosen, COUNT(*) AS n, ROW_NUMBER() OVER ("
        "PARTITION BY quiz_id, question_id ORDER BY COUNT(*) DESC, chosen) AS rank "
        "FROM a WHERE correct = 0 AND chosen >= 0 GROUP BY quiz_id, question_id, chosen) "
        "SELECT a.quiz_id, a.question_id, COUNT(*), SUM(a.correct), w.chosen, w.n FROM a "
        "LEFT JOIN wrong w ON w.quiz_id = a.quiz_id AND w.question_id = a.question_id "
        "AND w.rank = 1 GROUP BY a.quiz_id, a.question_id, w.chosen, w.n "
        "ORDER BY a.quiz_id, a.question_id", params)
    out = [QuestionRow(r[0], r[1], int(r[2]), int(r[3]), letter(r[4]), int(r[5] or 0),
                       *_texts(quizzes, r[0], r[1], r[4])) for r in rows]
    return _in_file_order(out, quizzes)


async def overview(read: Reader, quizzes: Mapping[str, Quiz] | None = None) -> Overview:
    """Counts of users, sessions by status and answers, and every question's figures."""
    users = int((await read.rows("SELECT COUNT(*) FROM users"))[0][0])
    sessions = {r[0]: int(r[1]) for r in await read.rows(
        "SELECT status, COUNT(*) FROM sessions GROUP BY status ORDER BY status")}
    answers = int((await read.rows("SELECT COUNT(*) FROM answers"))[0][0])
    questions = await question_rows(read, Scope(), quizzes)
    return Overview(users, sessions, answers, questions, await _groups(read),
                    await _reports(read, quizzes))


async def _reports(read: Reader, quizzes: Mapping[str, Quiz] | None
                   ) -> list[tuple[str, str, str, str, str]]:
    """The open problem reports, newest first (asked last: an older schema has none)."""
    try:
        rows = await read.rows(
            "SELECT quiz_id, question_id, reason, note, created_at FROM problem_reports "
            "WHERE resolved_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ?",
            (MAX_REPORTS,))
    except Exception:  # no problem_reports table yet (an older schema)
        return []
    out = []
    for quiz_id, question_id, reason, note, at in rows:
        quiz = (quizzes or {}).get(quiz_id)
        title = quiz.title.get("en") if quiz else quiz_id
        order = _order(quizzes, quiz_id)
        label = f"Q{order[question_id] + 1}" if question_id in order else question_id
        when = datetime.fromtimestamp(float(at), UTC).strftime("%Y-%m-%d %H:%M")
        out.append((title, label, str(reason), str(note), when))
    return out


async def _groups(read: Reader) -> list[GroupRow]:
    """The groups with most learners, by title (asked last: a database from before schema
    version 10 has no titles, and then none are listed)."""
    try:
        rows = await read.rows(
            "SELECT s.platform, s.chat_id, MAX(c.title), COUNT(DISTINCT s.user_id) AS n "
            "FROM sessions s LEFT JOIN chats c ON c.platform = s.platform "
            "AND c.chat_id = s.chat_id WHERE s.chat_id IS NOT NULL "
            "GROUP BY s.platform, s.chat_id ORDER BY n DESC, s.platform, s.chat_id LIMIT ?",
            (MAX_GROUPS,))
    except Exception:  # no chats table yet (an older schema): nothing to name
        return []
    return [GroupRow(r[0], r[1], r[2] or "", int(r[3])) for r in rows]


async def chat_title(read: Reader, scope: Scope) -> str | None:
    """The title of the scope's chat, when the bot saw it (None for every chat)."""
    if scope.chat_id is None:
        return None
    try:  # asked last, like _groups: an older schema has no titles
        rows = await read.rows("SELECT title FROM chats WHERE chat_id = ?"
                               + (" AND platform = ?" if scope.platform else ""),
                               (scope.chat_id, scope.platform) if scope.platform
                               else (scope.chat_id,))
    except Exception:
        return None
    return str(rows[0][0]) if rows else None


def format_overview(view: Overview) -> str:
    """`quizbot stats` output: plain text, one question per line."""
    total = sum(view.sessions.values())
    by_status = ", ".join(f"{n} {status}" for status, n in view.sessions.items())
    lines = [f"users     {view.users}",
             f"sessions  {total}" + (f" ({by_status})" if by_status else ""),
             f"answers   {view.answers}", ""]
    if view.groups:
        lines.append(f"groups (the {MAX_GROUPS} with most learners; --chat takes the id)")
        lines += [f"  {g.title or '(name not seen yet)'}  {g.platform}:{g.chat_id}  "
                  f"{g.learners} learner{'s' if g.learners != 1 else ''}" for g in view.groups]
        lines.append("")
    if view.reports:
        lines.append(f"open problem reports ({len(view.reports)}; resolve them on the "
                     "dashboard)")
        lines += [f"  {at}  {title} {label}: {reason}" + (f" “{note}”" if note else "")
                  for title, label, reason, note, at in view.reports]
        lines.append("")
    if not view.questions:
        lines.append("no answers in full attempts yet")
        return "\n".join(lines)
    qw = max(len("quiz"), *(len(q.quiz_id) for q in view.questions))
    iw = max(len("question"), *(len(q.question_id) for q in view.questions))
    lines.append(f"{'quiz':<{qw}}  {'question':<{iw}}  {'answered':>8}  {'right':>5}  "
                 f"{'accuracy':>8}  most chosen wrong option")
    for q in view.questions:
        accuracy = f"{q.accuracy:.0%}" if q.accuracy is not None else "-"
        wrong = "-"
        if q.wrong_option:
            text = q.wrong_text if len(q.wrong_text) <= 50 else q.wrong_text[:49] + "…"
            wrong = f"{q.wrong_option} ({q.wrong_count}x)" + (f" {text}" if text else "")
        lines.append(f"{q.quiz_id:<{qw}}  {q.question_id:<{iw}}  {q.answered:>8}  "
                     f"{q.correct:>5}  {accuracy:>8}  {wrong}")
    return "\n".join(lines)


# --- export --------------------------------------------------------------------------------

@dataclass(frozen=True)
class LearnerQuestion:
    question_id: str
    answered: int
    correct: int
    last_option: str
    last_correct: bool
    numbers: str = ""  # a computed question's numbers in that last answer ("p=8, m=24")


@dataclass(frozen=True)
class Learner:
    platform: str
    user_id: str
    display_name: str
    quiz_id: str
    sessions_started: int
    attempts_finished: int
    best_score: int | None
    last_score: int | None
    questions: list[LearnerQuestion] = field(default_factory=list)


async def learners(read: Reader, scope: Scope,
                   quizzes: Mapping[str, Quiz] | None = None) -> list[Learner]:
    """Every learner with a full attempt in scope, per quiz, with their per-question record."""
    cond, params = scope.where()
    heads = await read.rows(
        "SELECT s.platform, s.user_id, MAX(COALESCE(u.display_name, '')), s.quiz_id, "
        "COUNT(*), SUM(CASE WHEN s.status = 'finished' THEN 1 ELSE 0 END), "
        "MAX(CASE WHEN s.status = 'finished' THEN s.score END), "
        "(SELECT l.score FROM sessions l WHERE l.platform = s.platform AND l.user_id = s.user_id "
        "AND l.quiz_id = s.quiz_id AND l.kind = 'full' AND l.status = 'finished' "
        f"AND {scope.where('l')[0]} ORDER BY l.finished_at DESC, l.id DESC LIMIT 1) "
        "FROM sessions s LEFT JOIN users u ON u.platform = s.platform AND u.user_id = s.user_id "
        f"WHERE s.kind = 'full' AND {cond} GROUP BY s.platform, s.user_id, s.quiz_id "
        "ORDER BY s.quiz_id, s.platform, s.user_id", scope.where("l")[1] + params)
    per_question: dict[tuple[str, str, str], list[LearnerQuestion]] = {}
    for r in await read.rows(
            "SELECT s.platform, s.user_id, s.quiz_id, a.question_id, COUNT(*), "
            "SUM(CAST(a.correct AS INTEGER)), (SELECT la.chosen || ':' || "
            "CAST(CAST(la.correct AS INTEGER) AS TEXT) || ':' || "
            "CAST(COALESCE(ls.seed, ls.id) AS TEXT) FROM answers la JOIN sessions ls "
            "ON ls.id = la.session_id WHERE ls.platform = s.platform AND ls.user_id = s.user_id "
            "AND ls.quiz_id = s.quiz_id AND ls.kind = 'full' AND la.question_id = a.question_id "
            f"AND {scope.where('ls')[0]} ORDER BY la.answered_at DESC, la.session_id DESC "
            "LIMIT 1) "
            "FROM answers a JOIN sessions s ON s.id = a.session_id "
            f"WHERE s.kind = 'full' AND {cond} "
            "GROUP BY s.platform, s.user_id, s.quiz_id, a.question_id",
            scope.where("ls")[1] + params):
        chosen, correct, seed = str(r[6]).split(":")
        per_question.setdefault((r[0], r[1], r[2]), []).append(LearnerQuestion(
            r[3], int(r[4]), int(r[5]), letter(int(chosen)), correct == "1",
            _numbers(quizzes, r[2], r[3], int(seed))))
    out = []
    for h in heads:
        qs = per_question.get((h[0], h[1], h[3]), [])
        order = _order(quizzes, h[3])
        qs.sort(key=lambda q: (order.get(q.question_id, len(order)), q.question_id))
        out.append(Learner(h[0], h[1], h[2], h[3], int(h[4]), int(h[5]), h[6], h[7], qs))
    return out


def export_json(rows: list[Learner], questions: list[QuestionRow], scope: Scope,
                title: str | None = None) -> str:
    """{"chat", "learners": [... each with "questions"], "questions": [...]}, indented."""
    data = {
        "chat": None if scope.chat_id is None else
        {"platform": scope.platform, "chat_id": scope.chat_id, "title": title},
        "learners": [asdict(r) for r in rows],
        "questions": [{**asdict(q), "accuracy": q.accuracy} for q in questions],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


CSV_COLUMNS = ("platform", "user_id", "display_name", "quiz_id", "sessions_started",
               "attempts_finished", "best_score", "last_score", "question_id", "answered",
               "correct", "last_option", "last_correct", "numbers", "chat_id", "chat_title")


# A cell a spreadsheet would read as a formula (OWASP, "CSV Injection"): a display name such
# as =HYPERLINK(...), +1+2 or @SUM(1,1) must arrive as text, so it is prefixed with '.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """`value` as a CSV cell no spreadsheet runs as a formula (numbers pass unchanged)."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _chat_cell(scope: Scope | None) -> int | str:
    """The exported chat's id: a number (a Telegram group's is negative, which the formula
    guard would otherwise prefix), blank for every chat."""
    chat_id = scope.chat_id if scope is not None and scope.chat_id else ""
    return int(chat_id) if chat_id.lstrip("-").isdigit() else chat_id


def export_csv(rows: list[Learner], scope: Scope | None = None, title: str | None = None
               ) -> str:
    """One row per learner and question (learner columns repeat: a spreadsheet pivots it),
    each ending with the exported chat's id and title (blank for every chat), as JSON's
    "chat".

    Text cells that begin like a formula (`=`, `+`, `-`, `@`, tab, carriage return) are
    prefixed with `'` so a spreadsheet shows them instead of running them."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")  # RFC 4180: a CR inside a cell is quoted
    writer.writerow(CSV_COLUMNS)
    for r in rows:
        head = [r.platform, r.user_id, r.display_name, r.quiz_id, r.sessions_started,
                r.attempts_finished, _blank(r.best_score), _blank(r.last_score)]
        blank: list[LearnerQuestion | None] = [None]
        for q in r.questions or blank:
            tail = ["", "", "", "", "", ""] if q is None else [
                q.question_id, q.answered, q.correct, q.last_option, int(q.last_correct),
                q.numbers]
            chat = [_chat_cell(scope), title or ""]
            writer.writerow([csv_cell(c) for c in head + tail + chat])
    return buf.getvalue()


def _blank(value: int | None) -> object:
    return "" if value is None else value


def _order(quizzes: Mapping[str, Quiz] | None, quiz_id: str) -> dict[str, int]:
    quiz = (quizzes or {}).get(quiz_id)
    return {q.id: i for i, q in enumerate(quiz.questions)} if quiz else {}


def _in_file_order(rows: list[QuestionRow], quizzes: Mapping[str, Quiz] | None
                   ) -> list[QuestionRow]:
    orders: dict[str, dict[str, int]] = {}
    def key(r: QuestionRow) -> tuple[str, int, str]:
        order = orders.setdefault(r.quiz_id, _order(quizzes, r.quiz_id))
        return r.quiz_id, order.get(r.question_id, len(order)), r.question_id
    return sorted(rows, key=key)


def _texts(quizzes: Mapping[str, Quiz] | None, quiz_id: str, question_id: str,
           wrong: int | None) -> tuple[str, str]:
    """The question's text and the wrong option's, in English ('' when the file changed)."""
    quiz = (quizzes or {}).get(quiz_id)
    question = quiz.question(question_id) if quiz else None
    if question is None:
        return "", ""
    option = named_option(question, wrong, "en") \
        if wrong is not None and 0 <= wrong < len(question.options) else ""
    return shown_text(question, "en", None), option


def _numbers(quizzes: Mapping[str, Quiz] | None, quiz_id: str, question_id: str,
             seed: int) -> str:
    """The numbers a computed question showed in the attempt with this seed ('' if none)."""
    quiz = (quizzes or {}).get(quiz_id)
    question = quiz.question(question_id) if quiz else None
    if question is None or question.computed is None:
        return ""
    try:
        return drawn_text(draw(question, seed).drawn)
    except DrawFailed:
        return ""
