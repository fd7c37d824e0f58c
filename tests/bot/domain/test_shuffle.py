"""One deal of a quiz: a solo session takes its question and option orders from
`bot.domain.shuffle.deal`, as rounds do (tests/bot/features/test_rounds.py)."""

from __future__ import annotations

import random

from bot.domain.quiz import Quiz
from bot.domain.results import Actor, SessionKind
from bot.domain.shuffle import deal
from bot.features.library import new_session


def test_a_solo_session_is_dealt_by_the_one_shuffle(quizzes: dict[str, Quiz]) -> None:
    quiz = quizzes["parallelism"]
    for shuffle in (False, True):
        new = new_session(Actor("telegram", "1"), quiz, SessionKind.FULL, list(quiz.questions),
                          random.Random(7), now=1_800_000_000.0, shuffle=shuffle)
        asked, orders = deal(random.Random(7), quiz.questions, shuffle=shuffle)
        assert new.question_ids == tuple(q.id for q in asked)
        assert new.option_orders == orders
        assert all(sorted(o) == list(range(len(q.options))) for q, o in zip(asked, orders,
                                                                             strict=True))
