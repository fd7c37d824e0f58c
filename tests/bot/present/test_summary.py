"""A finished summary fits a phone screen: the point first, a missed question a line, every
missed question (a computed one's numbers included) in full in the folded detail."""

from __future__ import annotations

import pytest

from bot.domain.platforms import card_limit
from bot.domain.results import Actor, AnswerResult
from bot.features.engine import Engine
from bot.features.library import question_at
from bot.present.i18n import Catalogue, strip_isolates
from bot.present.plan import Planner
from bot.present.render import PLAIN
from bot.present.summary import MISSED_SHOWN
from bot.store.commands import sessions_sql
from tests.conftest import SAMPLED


async def finish(engine: Engine, actor: Actor, quiz_id: str, miss: int) -> AnswerResult:
    """Play `quiz_id` through, missing the first `miss` questions (drawn numbers read from
    the stored session, as shown)."""
    quiz = engine.library.quizzes[quiz_id]
    prompt = await engine.restart(actor, quiz_id)
    while True:
        row = await engine.store.read(sessions_sql.get_session, prompt.session_id)
        assert row is not None
        question = question_at(quiz, row, prompt.position)
        right = prompt.options.index(question.options[question.correct].text.get(prompt.lang))
        pick = (right + 1) % len(prompt.options) if prompt.position < miss else right
        result = await engine.answer(actor, prompt.session_id, prompt.position, pick)
        assert isinstance(result, AnswerResult)
        if result.summary is not None:
            return result
        assert result.next is not None
        prompt = result.next


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_the_numbers_quiz_summary_leads_with_the_point_and_folds_the_detail(
        engine: Engine, catalogue: Catalogue, lang: str) -> None:
    """13 of 14 computed questions missed: the body was every question in full (about 13
    paragraphs, then "…and 1 more"); now the score, best and next step lead, three missed
    questions take a line each with their answers, and the full questions (their drawn
    numbers) are the card's folded detail."""
    actor = Actor("telegram", "3001")
    await engine.set_language(actor, lang)
    result = await finish(engine, actor, SAMPLED, miss=13)
    summary = result.summary
    assert summary is not None and len(summary.missed) == 13
    card = Planner(catalogue, PLAIN, shared_chats=False).summary(summary, actor)
    lines = card.body.splitlines()
    step = summary.next_step
    assert step is not None
    next_line = catalogue.t(lang, f"summary.next_{step.kind}", name=step.name,
                            percent=step.percent)
    assert lines.index(next_line) <= 4  # score, bar, best, then what to do next
    topics = lines.index(catalogue.t(lang, "summary.topics"))
    assert topics <= 12 and len(lines) <= 16  # about a phone screen (it was 40 lines)
    for miss in summary.missed[:MISSED_SHOWN]:
        line = next(ln for ln in lines if strip_isolates(ln).startswith(
            f"{miss.position + 1}. "))
        assert strip_isolates(line).endswith(miss.correct_option) and len(line) < 120
    assert catalogue.t(lang, "summary.missed_below", count=13 - MISSED_SHOWN) in lines
    assert card.collapse and card.detail_label == catalogue.t(lang, "summary.missed_detail")
    detail = strip_isolates(card.detail)
    shown = [miss for miss in summary.missed if miss.text in detail]  # in full: its numbers
    assert len(shown) >= 10 and shown == list(summary.missed[:len(shown)])
    assert all(miss.correct_option in detail for miss in shown)
    if len(shown) < 13:  # what one card cannot hold is counted, not cut off silently
        assert detail.endswith(strip_isolates(catalogue.t(lang, "summary.missed_more",
                                                          count=13 - len(shown))))
    assert len(card.body) + len(card.detail) + 2 <= card_limit()


async def test_a_short_miss_is_said_once(engine: Engine, catalogue: Catalogue) -> None:
    """One missed question that fits its line: no detail repeating it."""
    result = await finish(engine, Actor("telegram", "3002"), "parallelism", miss=1)
    assert result.summary is not None
    card = Planner(catalogue, PLAIN, shared_chats=False).summary(result.summary, Actor(
        "telegram", "3002"))
    (miss,) = result.summary.missed
    assert (card.detail == "") == (len(miss.text) <= 60)
    assert miss.correct_option in card.body + card.detail


@pytest.mark.parametrize(("before", "miss"), [(None, 13), ("long-context", 1)])
async def test_next_practises_the_first_topic_the_summary_lists(
        engine: Engine, catalogue: Catalogue, before: str | None, miss: int) -> None:
    """Topics tied at 33% were listed by name while "Next: practise X" took the weakest by
    id (Pipeline bubble, fifth in the list above it); and a weaker topic of another quiz
    (long-context, not in the list at all) was named next. One order now
    (`mastery.weakest_first`), over the topics the summary lists: Next is the first."""
    actor = Actor("telegram", "3003")
    if before is not None:
        await finish(engine, actor, before, miss=99)
    result = await finish(engine, actor, SAMPLED, miss=miss)
    summary = result.summary
    assert summary is not None and summary.next_step is not None
    step = summary.next_step
    assert step.kind == "topic" and step.id == summary.topics[0].topic
    lines = Planner(catalogue, PLAIN, shared_chats=False).summary(summary, actor).body
    shown = lines.splitlines()
    first = shown[shown.index(catalogue.t("en", "summary.topics")) + 1]
    assert first.endswith(f"% {step.name}") and f"({step.percent}%)" in lines
