"""The quiz a learner's page suggests next."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from bot.domain.quiz import Quiz
from bot.domain.quiz.model import LEVELS
from bot.present.i18n import is_rtl
from bot.store.commands.dashboard_sql import Attempt

PASS_SHARE = 0.75  # a quiz counts as passed from this best share on


def suggest(quizzes: Mapping[str, Quiz], attempts: list[Attempt], lang: str,
            t: Callable[..., str], own: Sequence[str] = ()) -> dict[str, str] | None:
    """The quiz to take next: the latest one again until it is passed (best at least 75 %),
    then the quiz it names as next. Else, for a learner in groups, the first of their groups'
    own quizzes (`own`, `dashboard_sql.group_quizzes`) not yet passed: a biology group's
    learner is never sent to the shipped parallelism quiz (None once all are passed).
    Without groups, the first quiz not yet finished (by level)."""
    best: dict[str, float] = {}
    for a in attempts:
        best[a.quiz_id] = max(best.get(a.quiz_id, 0.0), a.score / a.total if a.total else 0)
    pick: str | None = None
    if attempts:
        last = attempts[-1].quiz_id
        quiz = quizzes.get(last)
        if best[last] < PASS_SHARE:
            pick = last
        elif quiz is not None and quiz.next in quizzes and quiz.next not in best:
            pick = quiz.next
    groups = [q for q in own if q in quizzes]
    if pick is None and groups:
        pick = next((q for q in groups if best.get(q, 0.0) < PASS_SHARE), None)
        if pick is None:
            return None
    if pick is None:
        fresh = [q for q in quizzes.values() if q.id not in best]
        if not fresh:
            return None
        pick = min(fresh, key=lambda q: (LEVELS.index(q.level) if q.level in LEVELS
                                         else len(LEVELS), q.id)).id
    title = quizzes[pick].title.get(lang)
    command = f"/quiz {pick}"
    if is_rtl(lang):  # one left-to-right run inside Urdu, the slash included
        command = f"\u2066{command}\u2069"
    return {"quiz": pick, "title": title,
            "text": t("dashboard.next", title=title, command=command)}


__all__ = ["PASS_SHARE", "suggest"]
