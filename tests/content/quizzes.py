"""Helpers the per-quiz content tests share."""

from __future__ import annotations

from bot.domain.quiz import Question, Quiz


def right(q: Question, lang: str = "en") -> str:
    """The right option's text."""
    return q.options[q.correct].text.get(lang)


def question(quiz: Quiz, qid: str) -> Question:
    """The question `qid` of `quiz` (the test fails when it is gone)."""
    q = quiz.question(qid)
    assert q is not None, qid
    return q
