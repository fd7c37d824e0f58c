"""A learner's misses on their dashboard page, each with the right answer and why."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bot.domain.product_limits import MISSES_LISTED
from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import DrawFailed, draw
from bot.present.render import content_text
from bot.store.commands.dashboard_sql import Answered


def misses_view(quizzes: Mapping[str, Quiz], answers: list[Answered], lang: str,
                t: Callable[..., str]) -> list[dict[str, Any]]:
    """Questions whose latest answer was wrong, newest first, explained (MISSES_LISTED)."""
    seen: set[tuple[str, str]] = set()
    out: list[dict[str, Any]] = []
    for a in answers:  # newest first: the first one seen is the latest
        if (a.quiz_id, a.question_id) in seen:
            continue
        seen.add((a.quiz_id, a.question_id))
        quiz = quizzes.get(a.quiz_id)
        q = quiz.question(a.question_id) if quiz else None
        if a.correct or q is None or not 0 <= a.chosen < len(q.options):
            continue  # right, or the quiz file changed since
        try:
            q = draw(q, a.seed)  # a computed question: the numbers of that attempt
        except DrawFailed:
            continue
        out.append({"quiz": a.quiz_id, "question": a.question_id,
                    "text": content_text(lang, q.text.get(lang)),
                    "chosen": content_text(lang, q.options[a.chosen].text.get(lang)),
                    "chosen_line": t("dashboard.your_answer",
                                     option=q.options[a.chosen].text.get(lang)),
                    "answer": content_text(lang, q.options[q.correct].text.get(lang)),
                    "explanation": content_text(lang, q.explanation.get(lang))})
        if len(out) == MISSES_LISTED:
            break
    return out


__all__ = ["misses_view"]
