"""Results as a maintainer or a teacher reads them: `quizbot stats` text, `quizbot export`
CSV and JSON (also the dashboard's download), from the rows the store's results reads
return (`bot.domain.report_rows`).

An option is named by its letter in the quiz file's order (A = the first option written),
not by the shuffled order a learner saw, because that is what a teacher can look up; the
quiz files at hand add the question's text, a wrong option's text and a computed question's
numbers, and put questions in file order.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from bot.domain.product_limits import OVERVIEW_GROUPS
from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import DrawFailed, draw, drawn_text, named_option, shown_text
from bot.domain.quiz.formats.table import csv_cell
from bot.domain.quiz.model import Question
from bot.domain.report_rows import ExportRows, LearnerRecord, Overview, QuestionAccuracy

LETTERS = "ABCDEFGHIJ"
Quizzes = Mapping[str, Quiz] | None
# C0 and C1 controls (ESC, BEL, CSI...): a group's title or a learner's /report note holding
# "\x1b]0;...\x07" or "\x1b[2J" would retitle or clear the maintainer's terminal when
# `quizbot stats` prints it. Shown as U+FFFD, so the line still says something was there.
_CONTROLS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
CSV_COLUMNS = ("platform", "user_id", "display_name", "quiz_id", "sessions_started",
               "attempts_finished", "best_score", "last_score", "question_id", "answered",
               "correct", "last_option", "last_correct", "numbers", "chat_id", "chat_title",
               "quiz_title", "question")  # the names a teacher reads, after the ids


def letter(index: int | None) -> str:
    """The file-order letter of an option index ('' for None)."""
    if index is None:
        return ""
    return LETTERS[index] if 0 <= index < len(LETTERS) else str(index)


def _order(quizzes: Quizzes, quiz_id: str) -> dict[str, int]:
    quiz = (quizzes or {}).get(quiz_id)
    return {q.id: i for i, q in enumerate(quiz.questions)} if quiz else {}


def _in_file_order(quizzes: Quizzes, quiz_id: str, question_id: str) -> tuple[str, int, str]:
    order = _order(quizzes, quiz_id)
    return quiz_id, order.get(question_id, len(order)), question_id


def question_rows(rows: Sequence[QuestionAccuracy], quizzes: Quizzes) -> list[dict[str, Any]]:
    """Each question's figures in file order, its most chosen wrong option as a letter, with
    the texts in English ('' when the file changed): the export's "questions"."""
    out = []
    for r in sorted(rows, key=lambda r: _in_file_order(quizzes, r.quiz_id, r.question_id)):
        quiz = (quizzes or {}).get(r.quiz_id)
        question = quiz.question(r.question_id) if quiz else None
        wrong, text = r.wrong_choice, ""
        if question is not None and wrong is not None and 0 <= wrong < len(question.options):
            text = named_option(question, wrong, "en")
        out.append({"quiz_id": r.quiz_id, "question_id": r.question_id,
                    "answered": r.answered, "correct": r.correct,
                    "wrong_option": letter(wrong), "wrong_count": r.wrong_count,
                    "question": shown_text(question, "en", None) if question else "",
                    "wrong_text": text,
                    "accuracy": r.correct / r.answered if r.answered else None})
    return out


def learners(rows: Sequence[LearnerRecord], quizzes: Quizzes) -> list[dict[str, Any]]:
    """Each learner's record per quiz, questions in file order with the latest answer's
    letter and (computed questions) its numbers: the export's "learners"."""
    out = []
    for r in rows:
        quiz = (quizzes or {}).get(r.quiz_id)
        questions = []
        for a in sorted(r.questions,
                        key=lambda a: _in_file_order(quizzes, r.quiz_id, a.question_id)):
            question = quiz.question(a.question_id) if quiz else None
            numbers = ""
            if question is not None and question.computed is not None:
                with contextlib.suppress(DrawFailed):
                    numbers = drawn_text(draw(question, a.last_seed).drawn)
            questions.append({"question_id": a.question_id, "answered": a.answered,
                              "correct": a.correct, "last_option": letter(a.last_choice),
                              "last_correct": a.last_correct, "numbers": numbers,
                              "question": _text(quiz, question, a.last_seed)})
        out.append({"platform": r.platform, "user_id": r.user_id,
                    "display_name": r.display_name, "quiz_id": r.quiz_id,
                    "quiz_title": quiz.title.get(quiz.languages[0]) if quiz else "",
                    "sessions_started": r.sessions_started,
                    "attempts_finished": r.attempts_finished, "best_score": r.best_score,
                    "last_score": r.last_score, "questions": questions})
    return out


def _text(quiz: Quiz | None, question: Question | None, seed: int) -> str:
    """A question's text in its quiz's first language, a computed one with the learner's
    numbers ('' when the file no longer has it)."""
    return shown_text(question, quiz.languages[0], seed) if quiz and question else ""


def export_json(rows: ExportRows, quizzes: Quizzes) -> str:
    """{"chat", "learners": [... each with "questions"], "questions": [...]}, indented."""
    data = {
        "chat": None if rows.chat_id is None else
        {"platform": rows.platform, "chat_id": rows.chat_id, "title": rows.title},
        "learners": learners(rows.learners, quizzes),
        "questions": question_rows(rows.questions, quizzes),
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def export_csv(rows: ExportRows, quizzes: Quizzes) -> str:
    """One row per learner and question (learner columns repeat: a spreadsheet pivots it),
    each ending with the exported chat's id and title (blank for every chat), as JSON's
    "chat".

    Text cells that begin like a formula (`=`, `+`, `-`, `@`, tab, carriage return) are
    prefixed with `'` so a spreadsheet shows them instead of running them. The chat id is a
    number (a Telegram group's is negative, which the formula guard would otherwise prefix).
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")  # RFC 4180: a CR inside a cell is quoted
    writer.writerow(CSV_COLUMNS)
    chat_id = rows.chat_id or ""
    chat = [int(chat_id) if chat_id.lstrip("-").isdigit() else chat_id, rows.title or ""]
    for r in learners(rows.learners, quizzes):
        head = [r["platform"], r["user_id"], r["display_name"], r["quiz_id"],
                r["sessions_started"], r["attempts_finished"], _blank(r["best_score"]),
                _blank(r["last_score"])]
        for a in r["questions"] or [None]:
            tail = [""] * 6 if a is None else [
                a["question_id"], a["answered"], a["correct"], a["last_option"],
                int(a["last_correct"]), a["numbers"]]
            names = [r["quiz_title"], "" if a is None else a["question"]]
            writer.writerow([csv_cell(c) for c in head + tail + chat + names])
    return buf.getvalue()


def _blank(value: int | None) -> object:
    return "" if value is None else value


def format_overview(view: Overview, quizzes: Quizzes, play: str = "quizbot play") -> str:
    """`quizbot stats` output: plain text, one question per line; `play`: the command that
    plays into this database (with the --config stats was given)."""
    total = sum(view.sessions.values())
    by_status = ", ".join(f"{n} {status}" for status, n in view.sessions.items())
    lines = [f"users     {view.users}",
             f"sessions  {total}" + (f" ({by_status})" if by_status else ""),
             f"answers   {view.answers}", ""]
    if view.groups:
        lines.append(f"groups (the {OVERVIEW_GROUPS} with most learners; --chat takes the id)")
        lines += [f"  {g.title or '(name not seen yet)'}  {g.platform}:{g.chat_id}  "
                  f"{g.learners} learner{'s' if g.learners != 1 else ''}" for g in view.groups]
        lines.append("")
    if view.reports:
        lines.append(f"open problem reports ({len(view.reports)}; resolve them on the "
                     "dashboard)")
        for r in view.reports:
            quiz = (quizzes or {}).get(r.quiz_id)
            order = _order(quizzes, r.quiz_id)
            label = f"Q{order[r.question_id] + 1}" if r.question_id in order else r.question_id
            when = datetime.fromtimestamp(r.created_at, UTC).strftime("%Y-%m-%d %H:%M")
            lines.append(f"  {when}  {quiz.title.get('en') if quiz else r.quiz_id} {label}: "
                         f"{r.reason}" + (f" “{r.note}”" if r.note else ""))
        lines.append("")
    questions = question_rows(view.questions, quizzes)
    if not questions:
        lines.append("no answers in full attempts yet: accuracy per question appears here "
                     f"once learners answer a quiz (/quiz in the chats, {play} here)")
        return _terminal_safe(lines)
    for q in questions:  # named as a teacher finds it in the quiz, not by its id
        number = _order(quizzes, q["quiz_id"]).get(q["question_id"])
        text = " ".join(q["question"].split())
        q["shown"] = (q["question_id"] if number is None or not text else
                      f"Q{number + 1} " + (text if len(text) <= 40 else text[:39] + "…"))
    qw = max(len("quiz"), *(len(q["quiz_id"]) for q in questions))
    iw = max(len("question"), *(len(q["shown"]) for q in questions))
    lines.append(f"{'quiz':<{qw}}  {'question':<{iw}}  {'answered':>8}  {'right':>5}  "
                 f"{'accuracy':>8}  most chosen wrong option")
    for q in questions:
        accuracy = "-" if q["accuracy"] is None else f"{q['accuracy']:.0%}"
        wrong, text = "-", q["wrong_text"]
        if q["wrong_option"]:
            text = text if len(text) <= 50 else text[:49] + "…"
            wrong = f"{q['wrong_option']} ({q['wrong_count']}x)" + (f" {text}" if text else "")
        lines.append(f"{q['quiz_id']:<{qw}}  {q['shown']:<{iw}}  {q['answered']:>8}  "
                     f"{q['correct']:>5}  {accuracy:>8}  {wrong}")
    return _terminal_safe(lines)


def _terminal_safe(lines: list[str]) -> str:
    return _CONTROLS.sub("\ufffd", "\n".join(lines))


__all__ = ["CSV_COLUMNS", "export_csv", "export_json", "format_overview",
           "learners", "letter", "question_rows"]
