"""The configured admins' list of problem reports on their dashboard page."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import DrawFailed, draw, drawn_text, shown_text
from bot.present.i18n import shown_name
from bot.store.commands.reports_sql import ReportRow


def reports_view(rows: Sequence[ReportRow], count: int, quizzes: Mapping[str, Quiz],
                 lang: str, t: Callable[..., str]) -> dict[str, Any]:
    """Open reports, newest first: which question (by quiz title and number, with the
    numbers a computed one showed), why, the learner's line, who and when."""
    items = []
    for r in rows:
        quiz = quizzes.get(r.quiz_id)
        q = quiz.question(r.question_id) if quiz else None
        number = quiz.questions.index(q) + 1 if quiz and q else None
        numbers = ""
        if q is not None and q.computed is not None and r.seed is not None:
            try:
                numbers = drawn_text(draw(q, r.seed).drawn)
            except DrawFailed:
                numbers = ""
        items.append({
            "id": r.id, "quiz": r.quiz_id, "question": r.question_id,
            "title": quiz.title.get(lang) if quiz else r.quiz_id,
            "label": f"Q{number}" if number else r.question_id,
            "text": shown_text(q, lang, r.seed) if q else "",
            "reason": t(f"report.reason_{r.reason}"), "note": r.note, "numbers": numbers,
            "by": shown_name(r.display_name), "platform": r.platform,
            "lang": r.lang,
            "at": datetime.fromtimestamp(r.created_at, UTC).strftime("%Y-%m-%d %H:%M UTC")})
    return {"count": count, "text": t("dashboard.reports_count", count=count),
            "items": items}


__all__ = ["reports_view"]
