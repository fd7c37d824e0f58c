"""What every hand-written topic quiz must be: hard, complete in English and Urdu, teaching
(a worked explanation, a why-not for each wrong option, a primary source), in the
glossary's Urdu, and not answerable from the shape of its options (issue 20)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from bot.domain.quiz import Quiz, default_content_dir, quality_warnings
from bot.domain.quiz.glossary import glossary_warnings, load_glossary
from tests.content.quizzes import right

TOPIC_QUIZZES = ("parallelism-deep", "expert-parallelism", "long-context", "pipeline-schedules")
ABSOLUTE = {"always", "never", "ever", "only", "impossible"}


@pytest.fixture(params=TOPIC_QUIZZES)
def quiz(request: pytest.FixtureRequest, quizzes: dict[str, Quiz]) -> Quiz:
    return quizzes[request.param]


def test_shape(quiz: Quiz) -> None:
    assert quiz.difficulty == "hard" and quiz.languages == ("en", "ur")
    assert len(quiz.questions) >= 15
    counts = Counter(q.correct for q in quiz.questions)
    assert set(counts) == {0, 1, 2, 3} and max(counts.values()) <= len(quiz.questions) // 3


def test_every_question_teaches_in_both_languages(quiz: Quiz) -> None:
    for q in quiz.questions:
        for lang in ("en", "ur"):
            assert 400 <= len(q.explanation.get(lang)) <= 1000, (q.id, lang)
        for i, option in enumerate(q.options):
            if i == q.correct:
                assert option.why_not is None, q.id
            else:
                assert option.why_not is not None, (q.id, i)
                assert {lang for lang, _ in option.why_not.values} == {"en", "ur"}
                assert all(len(text) <= 200 for _, text in option.why_not.values), (q.id, i)
        assert q.references and all(r.url.startswith("https://") for r in q.references), q.id


def test_no_giveaways_and_one_urdu_vocabulary(quiz: Quiz) -> None:
    assert quality_warnings(quiz) == []
    assert glossary_warnings(load_glossary(default_content_dir() / "glossary.yaml"), quiz) == []
    for lang in ("en", "ur"):
        longest = [q.id for q in quiz.questions
                   if all(len(right(q, lang)) > len(o.text.get(lang))
                          for k, o in enumerate(q.options) if k != q.correct)]
        assert len(longest) <= len(quiz.questions) // 4, (lang, longest)
    for q in quiz.questions:  # absolute words would mark the wrong options
        for option in q.options:
            words = set(re.findall(r"[a-z]+", option.text.get("en").lower()))
            assert not words & ABSOLUTE, (q.id, words & ABSOLUTE)
