"""A start seconds after another joins it ("question 1 is just above") only while that
question is in the language the learner reads: after a change of language it is posted
again, in the new one (on both stores: `users.lang_set_at`, written by set_language)."""

from __future__ import annotations

import random

import pytest

from bot.app.compose import build_engine
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.store.protocol import Store
from tests.clock import FakeClock

AYESHA = Actor("telegram", "4242", display_name="Ayesha", locale="en")


@pytest.fixture
def store(backend_store: Store) -> Store:
    return backend_store


async def test_a_start_after_a_language_change_is_posted_again_in_it(
        store: Store, quizzes: dict[str, Quiz]) -> None:
    clock = FakeClock()
    engine = build_engine(store, quizzes, rng=random.Random(7), clock=clock)
    first = await engine.start(AYESHA, unfinished=True)
    assert not first.joined and first.lang == "en"
    clock.advance(2)
    assert (await engine.start(AYESHA, unfinished=True)).joined  # a double tap: just above
    await engine.set_language(AYESHA, "ur")
    clock.advance(2)
    again = await engine.start(AYESHA, unfinished=True)
    assert (again.session_id, again.position, again.lang) == (first.session_id, 0, "ur")
    assert not again.joined  # the one above is English: posted again, in Urdu
    clock.advance(1)
    await engine.set_language(AYESHA, "ur")  # the same language again changes nothing
    clock.advance(1)
    assert (await engine.start(AYESHA, unfinished=True)).joined is False  # still older
    clock.advance(10)
    later = await engine.restart(AYESHA)  # a new attempt after the change: joined as ever
    assert later.session_id != first.session_id and later.lang == "ur"
    clock.advance(1)
    assert (await engine.start(AYESHA, unfinished=True)).joined
