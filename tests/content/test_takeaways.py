"""Takeaways in the shipped quizzes: a quiz that has them has one on every question, in
every language, within the 140 characters a phone shows at a glance."""

from __future__ import annotations

import pytest

from bot.domain.quiz import default_content_dir, load_quizzes

QUIZZES = load_quizzes([default_content_dir()])
TAKEAWAY_LIMIT = 140


@pytest.mark.parametrize("quiz_id", sorted(QUIZZES))
def test_a_quiz_with_takeaways_has_one_on_every_question(quiz_id: str) -> None:
    quiz = QUIZZES[quiz_id]
    if not any(q.takeaway for q in quiz.questions):
        pytest.skip(f"{quiz_id}: takeaways not written yet")
    for q in quiz.questions:
        assert q.takeaway is not None, f"{quiz.source}:{q.line}: {q.id} has no takeaway"
        for lang in quiz.languages:
            text = q.takeaway.get(lang)
            assert 0 < len(text) <= TAKEAWAY_LIMIT, f"{quiz.source}:{q.line}: {q.id} ({lang})"
