"""How a quiz is dealt, in one place: the order of the questions asked (shuffled when the quiz
or the config asks) and each question's option order (always shuffled, so the right answer
is not always where the author wrote it). Solo sessions, review, rounds and the question of
the day all deal through here."""

from __future__ import annotations

import random
from collections.abc import Sequence

from bot.domain.quiz import Question

Order = tuple[int, ...]  # positions shown -> option index in the quiz file


def option_order(rng: random.Random, question: Question) -> Order:
    """A random order of the question's options (what the learner sees, by position)."""
    order = list(range(len(question.options)))
    rng.shuffle(order)
    return tuple(order)


def deal(rng: random.Random, questions: Sequence[Question], *,
         shuffle: bool = False) -> tuple[list[Question], tuple[Order, ...]]:
    """`questions` in the order they are asked (shuffled if `shuffle`), and each one's
    option order."""
    order = list(questions)
    if shuffle:
        rng.shuffle(order)
    return order, tuple(option_order(rng, q) for q in order)
