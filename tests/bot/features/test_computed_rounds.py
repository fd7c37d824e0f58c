"""A round of computed questions: one draw (the round's seed) for every member, the reveal
and the members' recorded sessions included, on SQLite and PostgreSQL, across two stores."""

from __future__ import annotations

import random

import pytest

from bot.app.compose import build_engine
from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import draw
from bot.domain.results import Actor
from bot.domain.round_results import LockedIn, RoundQuestion, RoundReveal
from bot.store.commands import rounds_sql, sessions_sql
from bot.store.protocol import Store
from tests.backends import Opener
from tests.bot.features.test_rounds import Clock
from tests.helpers import due, rounds_of

GROUP = "-1001"
HOST = Actor("telegram", "1", GROUP, "Hana")
BILAL = Actor("telegram", "2", GROUP, "Bilal")
NUMBERS = "parallelism-numbers"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(backend_store: Store) -> Store:
    return backend_store


def key_of(quiz: Quiz, q: RoundQuestion, seed: int) -> int:
    """Shown index of the right option under the round's draw, found by the drawn text."""
    for question in quiz.questions:
        d = draw(question, seed)
        if d.text.get(q.lang) == q.text:
            return q.options.index(d.options[d.correct].text.get(q.lang))
    raise AssertionError(f"no drawn question reads {q.text!r}")


async def test_every_member_gets_the_rounds_draw(store: Store, quizzes: dict[str, Quiz],
                                                 clock: Clock) -> None:
    engine = build_engine(store, quizzes, rng=random.Random(5))
    rounds = rounds_of(engine, clock=clock, default_seconds=20, reveal_seconds=5,
                    rng=random.Random(9))
    quiz = quizzes[NUMBERS]
    started = await rounds.start(HOST, GROUP, NUMBERS, questions=2)
    row = await store.read(rounds_sql.get_round, started.round_id)
    assert row is not None and row.seed is not None
    [q] = await due(rounds, "telegram")
    assert isinstance(q, RoundQuestion) and "{" not in q.text
    key = key_of(quiz, q, row.seed)
    assert await rounds.press(HOST, q.round_id, 0, key) == LockedIn(q.round_id, "en", key)
    await rounds.press(BILAL, q.round_id, 0, (key + 1) % len(q.options))
    clock.advance(20)  # the first question runs its full time
    [reveal] = await due(rounds, "telegram")
    assert isinstance(reveal, RoundReveal) and reveal.question is not None
    assert (reveal.question.text, reveal.question.options) == (q.text, q.options)
    assert reveal.correct == key and reveal.right == ("Hana",)
    assert "{" not in reveal.explanation and q.options[key] in reveal.explanation
    clock.advance(5)
    [q2] = await due(rounds, "telegram")
    assert isinstance(q2, RoundQuestion)
    key2 = key_of(quiz, q2, row.seed)
    await rounds.press(HOST, q2.round_id, 1, key2)
    await rounds.press(BILAL, q2.round_id, 1, key2)
    [final] = await due(rounds, "telegram")  # every member answered: revealed early
    assert isinstance(final, RoundReveal) and final.final
    assert [(s.display_name, s.score) for s in final.standings] == [("Hana", 2), ("Bilal", 1)]
    # each member's recorded attempt carries the round's seed: /stats, export and the
    # summary of /review show the numbers the group saw
    for member in (HOST, BILAL):
        last = await store.read(sessions_sql.last_finished,
                                member.platform, member.user_id, NUMBERS)
        assert last is not None and last.seed == row.seed
        stats = await engine.stats(member, NUMBERS)
        shown = {s.text for s in stats.questions}
        assert q.text in shown and q2.text in shown


async def test_two_processes_show_one_round_the_same_numbers(
        open_store: Opener, quizzes: dict[str, Quiz], clock: Clock) -> None:
    stores = [await open_store() for _ in range(2)]
    pair = [rounds_of(build_engine(s, quizzes, rng=random.Random(i)), clock=clock,
                   default_seconds=10, rng=random.Random(i)) for i, s in enumerate(stores)]
    await pair[0].start(HOST, GROUP, NUMBERS, questions=1)
    opened = [e for r in pair for e in await due(r, "telegram")]
    assert len(opened) == 1 and isinstance(opened[0], RoundQuestion)
    clock.advance(10)
    revealed = [e for r in reversed(pair) for e in await due(r, "telegram")]
    assert len(revealed) == 1 and isinstance(revealed[0], RoundReveal)
    assert revealed[0].question is not None
    assert (revealed[0].question.text, revealed[0].question.options) == \
        (opened[0].text, opened[0].options)
