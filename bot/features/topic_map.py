"""The learner's topic map: per topic, mastery (`bot.features.mastery`, reused as it is) and
calibration (how often an answer marked "sure" was right there); and the confident misses
(wrong though marked "sure"), the misconceptions a teacher most wants to see.

Pure functions over what the store already returns; /stats, the dashboard and the finished
summary all read them from here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from bot.domain.product_limits import MISSES_SHOWN
from bot.domain.stats_results import TopicLine
from bot.features.mastery import Mastery, weakest_first
from bot.store.rows import ReviewTotal


def topic_lines(topics_of: Mapping[tuple[str, str], tuple[str, ...]], known: Mastery,
                totals: Iterable[ReviewTotal], name: Callable[[str], str],
                only: Iterable[str] | None = None) -> tuple[TopicLine, ...]:
    """Every answered topic (of `only`, when given), weakest first: its mastery in whole
    percent, its answered questions, and its "sure" answers and how many were right
    (`topics_of`: (quiz id, question id) -> topics, `Library.topics_of`)."""
    wanted = None if only is None else set(only)
    sure: dict[str, list[int]] = {}
    for t in totals:
        if t.sure:
            for topic in topics_of.get((t.quiz_id, t.question_id), ()):
                acc = sure.setdefault(topic, [0, 0])
                acc[0] += t.answered
                acc[1] += t.correct
    lines = [TopicLine(m.topic, name(m.topic), round(100 * m.score), m.answered,
                       *sure.get(m.topic, (0, 0)))
             for m in sorted(known.topics.values(), key=weakest_first)
             if wanted is None or m.topic in wanted]
    return tuple(lines)


def confident_misses(totals: Iterable[ReviewTotal]) -> list[ReviewTotal]:
    """The questions answered wrong though marked "sure", most such misses first."""
    missed = [t for t in totals if t.sure and t.answered > t.correct]
    return sorted(missed, key=lambda t: (t.correct - t.answered, t.quiz_id,
                                         t.question_id))[:MISSES_SHOWN]
