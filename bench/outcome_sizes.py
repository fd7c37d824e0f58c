"""Characters per outcome on Telegram, over every shipped question (median and max): a right
answer's and a wrong answer's message, and a round's reveal (5 members). "shown" counts what
is visible before tapping: the text outside an expandable quote plus the quote's preview
(about 3 phone lines, PREVIEW characters).

    python bench/outcome_sizes.py     (run in the same way on an older checkout to compare)
"""

from __future__ import annotations

import dataclasses
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.telegram.views import HTML, text_of
from bot.domain.quiz import default_content_dir, load_quizzes
from bot.domain.round_results import RoundQuestion, RoundReveal, Standing
from bot.present.i18n import Catalogue
from bot.present.limits import worst_feedback
from bot.present.plan import Planner
from bot.present.round_plan import RoundPlanner
from tests.adapters.telegram.wire import parse_html

QUOTE = "<blockquote expandable>"
PREVIEW = 120


def shown(source: str) -> tuple[int, int]:
    """(characters in the message, characters visible before a tap)."""
    total = len(parse_html(source))
    head, _, quote = source.partition(QUOTE)
    if not quote:
        return total, total
    # a collapsed quote shows about 3 lines of a phone's ~40 characters
    inside = parse_html(quote.removesuffix("</blockquote>"))
    return total, len(parse_html(head)) + min(PREVIEW, len(inside))


def fields(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def main() -> None:
    cat = Catalogue.load()
    plan = Planner(cat, HTML, shared_chats=True)
    rounds = RoundPlanner(cat, HTML, lambda q: "")
    out: dict[str, list[tuple[int, int]]] = {"right": [], "wrong": [], "reveal": []}
    for quiz in load_quizzes([default_content_dir()]).values():
        for q in quiz.questions:
            if q.computed is not None:
                continue
            wrong = worst_feedback(quiz, q, "en")
            extra = {}
            if "takeaway" in fields(type(wrong)) and q.takeaway is not None:
                extra["takeaway"] = q.takeaway.get("en")
            wrong = dataclasses.replace(wrong, **extra)
            right = dataclasses.replace(wrong, chosen=wrong.correct, is_correct=True,
                                        rationale=None)
            out["wrong"].append(shown(text_of(plan.answered(wrong))))
            out["right"].append(shown(text_of(plan.answered(right))))
            rq = RoundQuestion(1, "telegram", "-1", "en", quiz.title.get("en"), "Host", 0, 8,
                               q.text.get("en"), tuple(o.text.get("en") for o in q.options),
                               30, 0.0)
            people = tuple(Standing(i + 1, str(i), f"Member {i}", 1, 3.0) for i in range(5))
            kw = dict(round_id=1, platform="telegram", chat_id="-1", lang="en",
                      quiz_title=quiz.title.get("en"), question=rq, correct=q.correct,
                      counts=(3, 1, 1, 0)[:len(q.options)] + (0,) * (len(q.options) - 4),
                      right=tuple(p.display_name for p in people[:3]),
                      explanation=q.explanation.get("en"), standings=people, message_ref="1",
                      final=False, stopped=False, next_at=5.0)
            if "takeaway" in fields(RoundReveal) and q.takeaway is not None:
                kw["takeaway"] = q.takeaway.get("en")
            out["reveal"].append(shown(text_of(rounds.reveal(RoundReveal(**kw)))))
    for name, sizes in out.items():
        totals, visible = [t for t, _ in sizes], [v for _, v in sizes]
        print(f"{name:7} n={len(sizes):3}  total median {statistics.median(totals):6.0f} "
              f"max {max(totals):5}  |  shown before a tap median "
              f"{statistics.median(visible):6.0f} max {max(visible):5}")


if __name__ == "__main__":
    main()
