"""Typed numbers for computed questions: the same answer path as a tap (owner, position,
idempotency), judged within the question's tolerance, a named mistake's why-not, a harder
success for the review schedule, and text that is no number refused with an example."""

from __future__ import annotations

import random

import pytest
from fsrs import Rating

from bot.app.compose import build_engine
from bot.domain import learning, numeric
from bot.domain.quiz import Quiz
from bot.domain.quiz.computed import draw, drawn_values, seed_of
from bot.domain.results import Actor, AnswerResult, NotYours, SessionKind, StaleAnswer, TypedRefused
from bot.features.engine import Engine
from bot.features.library import new_session, typed_choice
from bot.present.i18n import Catalogue
from bot.present.plan import Planner
from bot.present.render import PLAIN, question_text
from bot.store.commands import learning_sql, sessions_sql
from bot.store.sqlite import SQLiteStore

ALICE = Actor("telegram", "1", display_name="Alice")
BOB = Actor("telegram", "2", display_name="Bob")
NUMBERS = "parallelism-numbers"


async def values_at(store: SQLiteStore, quiz: Quiz, session_id: int, position: int):
    row = await store.read(sessions_sql.get_session, session_id)
    assert row is not None
    question = quiz.question(row.question_ids[position])
    assert question is not None and question.computed is not None
    _env, values = drawn_values(question, seed_of(row.seed, row.id))
    return row, question, [float(v) for v in values]


async def test_every_named_mistake_typed_is_that_mistake(engine: Engine, store: SQLiteStore,
                                                         quizzes) -> None:
    quiz = quizzes[NUMBERS]
    prompt = await engine.start(ALICE, NUMBERS)
    for position in range(prompt.total):
        row, question, values = await values_at(store, quiz, prompt.session_id, position)
        assert question.computed is not None
        unit = question.computed.unit
        drawn = draw(question, seed_of(row.seed, row.id))
        for k, value in enumerate(values):
            typed = numeric.shown(value, unit)
            want = (k, pytest.approx(value, rel=1e-3))
            assert typed_choice(quiz, row, position, typed) == want, (question.id, typed)
            if k:
                assert drawn.options[k].why_not is not None
        off = numeric.shown(values[0] * 1.5 + 7, unit)  # near no option
        if all(not numeric.close(values[0] * 1.5 + 7, v, 0.02) for v in values):
            assert typed_choice(quiz, row, position, off)[0] == numeric.TYPED_OTHER


async def test_a_typed_answer_goes_the_tap_path(engine: Engine, store: SQLiteStore,
                                                quizzes) -> None:
    quiz = quizzes[NUMBERS]
    first = await engine.start(ALICE, NUMBERS)
    assert first.typed_example  # a private chat: "or type the number"
    row, question, values = await values_at(store, quiz, first.session_id, 0)
    assert question.computed is not None
    unit = question.computed.unit
    # a named mistake: wrong, with that mistake's why-not
    mistake = await engine.answer_typed(ALICE, first.session_id, 0,
                                        numeric.shown(values[1], unit))
    assert isinstance(mistake, AnswerResult) and not mistake.is_correct
    drawn = draw(question, seed_of(row.seed, row.id))
    assert drawn.options[1].why_not is not None
    assert mistake.rationale == drawn.options[1].why_not.get("en")
    assert mistake.typed == drawn.options[1].text.get("en")  # as the option reads
    assert mistake.question.options[mistake.chosen] == drawn.options[1].text.get("en")
    # the same position again (a second message, a tap): the stored answer stands
    again = await engine.answer_typed(ALICE, first.session_id, 0,
                                      numeric.shown(values[0], unit))
    assert isinstance(again, AnswerResult) and again.duplicate and not again.is_correct
    tap = await engine.answer(ALICE, first.session_id, 0, mistake.correct)
    assert isinstance(tap, AnswerResult) and tap.duplicate and not tap.is_correct
    # someone else's session, and a position that is not the current one
    assert isinstance(await engine.answer_typed(BOB, first.session_id, 1, "1"), NotYours)
    assert isinstance(await engine.answer_typed(ALICE, first.session_id, 5, "1"), StaleAnswer)
    # text that is no number: refused with an example, nothing recorded
    row, question, values = await values_at(store, quiz, first.session_id, 1)
    assert question.computed is not None
    unit = question.computed.unit
    refused = await engine.answer_typed(ALICE, first.session_id, 1, "no idea")
    assert isinstance(refused, TypedRefused) and refused.key == "typed.not_number"
    assert dict(refused.fields)["example"] == numeric.example(unit, values)
    assert (await store.read(sessions_sql.get_session,
                             first.session_id)).position == 1  # type: ignore[union-attr]
    # within the tolerance of the answer: right
    near = values[0] * (1 + question.computed.tolerance / 2)
    right = await engine.answer_typed(ALICE, first.session_id, 1, f"{near:.9g}"
                                      + ("%" if unit == "%" else f" {unit}"))
    assert isinstance(right, AnswerResult) and right.is_correct and right.rationale is None
    # a value near no option: wrong, the worked answer (explanation) and no why-not
    row, question, values = await values_at(store, quiz, first.session_id, 2)
    assert question.computed is not None
    far = values[0] * 3 + 11
    assert all(not numeric.close(far, v, 0.05) for v in values)
    other = await engine.answer_typed(ALICE, first.session_id, 2,
                                      numeric.shown(far, question.computed.unit))
    assert isinstance(other, AnswerResult) and not other.is_correct
    assert other.chosen == -1 and other.rationale is None and other.explanation
    stats = await engine.stats(ALICE, NUMBERS)  # stored answers read back everywhere
    assert stats.questions


async def test_a_typed_right_answer_is_a_harder_success(engine: Engine, store: SQLiteStore,
                                                        quizzes) -> None:
    assert learning.rating_for(True, None, typed=True) == Rating.Easy
    assert learning.rating_for(True, False, typed=True) == Rating.Good
    assert learning.rating_for(True, None) == Rating.Good
    assert learning.rating_for(False, True, typed=True) == Rating.Again
    quiz = quizzes[NUMBERS]
    a = await engine.start(ALICE, NUMBERS)
    b = await engine.start(BOB, NUMBERS)
    _, qa, va = await values_at(store, quiz, a.session_id, 0)
    _, qb, _vb = await values_at(store, quiz, b.session_id, 0)
    assert qa.computed is not None
    typed = await engine.answer_typed(ALICE, a.session_id, 0,
                                      numeric.shown(va[0], qa.computed.unit))
    assert isinstance(typed, AnswerResult) and typed.is_correct
    row_b = await store.read(sessions_sql.get_session, b.session_id)
    assert row_b is not None
    pick = b.options.index(draw(qb, seed_of(row_b.seed, row_b.id)).options[0].text.get("en"))
    tapped = await engine.answer(BOB, b.session_id, 0, pick)
    assert isinstance(tapped, AnswerResult) and tapped.is_correct
    due = {c.question_id: c.due_at for c in await store.read(learning_sql.cards, "telegram", "1")}
    due_b = {c.question_id: c.due_at for c in await store.read(learning_sql.cards, "telegram", "2")}
    assert due[qa.id] > due_b[qb.id]  # Easy schedules further out than Good


async def test_groups_keep_buttons_and_the_refusal_reads_in_both_languages(
        engine: Engine, catalogue: Catalogue) -> None:
    group = Actor("telegram", "3", chat_id="-100", display_name="Cy")
    prompt = await engine.start(group, NUMBERS)
    assert prompt.typed_example is None
    assert await engine.typed_target(group) is None
    plan = Planner(catalogue, PLAIN, shared_chats=True)
    for lang in ("en", "ur"):
        for key, fields in (("typed.not_number", {"example": "1.2 GB"}),
                            ("typed.wrong_unit", {"got": "ms", "unit": "GB", "example": "1.2 GB"}),
                            ("typed.wrong_unit_plain", {"got": "ms", "example": "24"}),
                            ("typed.wrong_unit_percent", {"got": "GB", "example": "12.5%"}),
                            ("typed.too_long", {"limit": "40"}),
                            ("typed.thousands_dot", {"typed": "4.096", "meant": "4096"}),
                            ("typed.letter", {"letter": "B", "example": "1.2 GB"})):
            reply = plan.typed(TypedRefused(1, lang, key, tuple(fields.items())), group)
            [card] = reply.send
            assert all(v in card.body for v in fields.values()) and len(card.body) < 300


async def test_the_typed_example_is_none_of_the_options(store: SQLiteStore, quizzes) -> None:
    """'Or type the number (12.5%)' beside an option 12.5% read as a hint: about one draw in
    five of the interleaved-bubble question shows 12.5% among its options."""
    quiz = quizzes[NUMBERS]
    position = next(i for i, q in enumerate(quiz.questions) if q.id == "n03-interleaved-bubble")

    def shown_options(s: int) -> list[str]:
        new = new_session(ALICE, quiz, SessionKind.FULL, list(quiz.questions), random.Random(s),
                          now=0.0)
        drawn = draw(quiz.questions[position], seed_of(new.seed, 0))
        return [o.text.get("en") for o in drawn.options]

    s = next(s for s in range(500) if "12.5%" in shown_options(s))
    engine = build_engine(store, quizzes, rng=random.Random(s))
    prompt = await engine.start(ALICE, NUMBERS)
    for k in range(position):
        result = await engine.answer(ALICE, prompt.session_id, k, 0)
        assert isinstance(result, AnswerResult) and result.next is not None
        prompt = result.next
    assert "12.5%" in prompt.options  # the draw this test is about
    assert prompt.typed_example is not None and prompt.typed_example not in prompt.options
    text = question_text(Catalogue.load(), prompt)
    assert f"Or type the number, e.g. {prompt.typed_example}." in text
    refused = await engine.answer_typed(ALICE, prompt.session_id, position, "no idea")
    assert isinstance(refused, TypedRefused)
    assert dict(refused.fields)["example"] == prompt.typed_example
