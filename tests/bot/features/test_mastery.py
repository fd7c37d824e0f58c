"""Mastery per topic, the next step after a quiz, and practice of one topic."""

from __future__ import annotations

import random

import pytest

from bot.app.compose import build_engine
from bot.domain.errors import UnknownTopic
from bot.domain.payloads import StartPayload, TopicPayload, decode
from bot.domain.quiz import Quiz
from bot.domain.results import Actor, AnswerResult, SessionKind
from bot.features.engine import Engine
from bot.features.library import question_at
from bot.present.i18n import Catalogue, strip_isolates
from bot.present.plan import Planner
from bot.present.render import PLAIN
from bot.store.commands import sessions_sql
from tests.helpers import play_through

ALICE = Actor("telegram", "1001")


async def test_a_perfect_run_points_to_the_next_quiz(engine: Engine, catalogue: Catalogue):
    result = await play_through(engine, ALICE, "parallelism")
    summary = result.summary
    assert summary is not None and summary.next_step is not None
    assert (summary.next_step.kind, summary.next_step.id) == ("quiz", "parallelism-deep")
    card = Planner(catalogue, PLAIN, shared_chats=False).summary(summary, ALICE)
    first = card.rows[0][0]
    assert first.label == "➡ Next: Parallelism in depth: schedules, memory and…"  # a whole word
    assert len(first.label) <= 64
    assert decode(first.payload) == StartPayload.of("1001", "parallelism-deep")
    assert "Next on the path: Parallelism in depth" in card.body


async def test_misses_point_to_the_weakest_topic(engine: Engine, quizzes: dict[str, Quiz],
                                                 catalogue: Catalogue):
    result = await play_through(engine, ALICE, "parallelism", miss=3)  # q1-q3 wrong
    step = result.summary.next_step if result.summary else None
    assert step is not None and step.kind == "topic"
    known = await engine.spaced.mastery("telegram", "1001")
    missed_topics = {t for q in quizzes["parallelism"].questions[:3] for t in q.topics}
    assert step.id in missed_topics and step.percent is not None and step.percent < 70
    assert step.percent == round(100 * known.topics[step.id].score)
    assert known.topics[step.id].score == min(t.score for t in known.topics.values())
    assert step.name == quizzes["parallelism"].topic_name(step.id, "en") != step.id
    card = Planner(catalogue, PLAIN, shared_chats=False).summary(result.summary, ALICE)
    assert decode(card.rows[0][0].payload) == TopicPayload.of("1001", step.id)
    assert f"Next: practise {step.name}, your weakest topic so far ({step.percent}%)." in (
        card.body)

    practice = await engine.press(ALICE, decode(card.rows[0][0].payload))
    assert practice.kind == SessionKind.DUE and 1 <= practice.total <= 8
    due = engine.library.due_quiz()
    row = await engine.store.read(sessions_sql.get_session, practice.session_id)
    assert row is not None
    assert all(step.id in due.question(qid).topics for qid in row.question_ids)


async def test_practice_of_a_topic_takes_due_then_weakest_across_quizzes(
        engine: Engine, quizzes: dict[str, Quiz]):
    topic = "bubble"
    everywhere = [(z.id, q.id) for z in quizzes.values() for q in z.questions
                  if topic in q.topics]
    assert len({quiz for quiz, _ in everywhere}) > 1  # the topic spans quizzes
    prompt = await engine.review_topic(ALICE, "Bubble")
    assert prompt.total == min(8, len(everywhere)) and prompt.kind == SessionKind.DUE


async def test_an_unknown_topic_says_what_to_do(engine: Engine, catalogue: Catalogue):
    """A command shows the topics' names as buttons (bot.present.topic_choice); the error
    itself (a topic button pressed after its quiz was removed) lists no ids."""
    with pytest.raises(UnknownTopic) as caught:
        await engine.review_topic(ALICE, "nope")
    text = catalogue.t("en", caught.value.key, **caught.value.params)
    assert text == "There is no topic called nope. Send /review for the questions that are due."
    assert "(bubble)" not in catalogue.t("ur", caught.value.key, **caught.value.params)


async def test_topic_practice_is_named_after_its_topic_not_spaced_review(
        engine: Engine, catalogue: Catalogue):
    """/review topic:NAME is "Practice: <topic name>" in its questions' heading and footer,
    when it is picked up again (by /review, after a restart: the topic is stored with the
    session) and in its summary, in English and in Urdu; never "Spaced review", never the
    topic's id."""
    plan = Planner(catalogue, PLAIN, shared_chats=False)
    for lang, actor, label in (("en", ALICE, "Practice"), ("ur", Actor("telegram", "1002"),
                                                           "مشق")):
        await engine.set_language(actor, lang)
        name = engine.library.topic_name("bubble", lang)
        assert name != "bubble"
        prompt = await engine.review_topic(actor, "bubble")
        card = plan.question(prompt, actor)
        shown = [card.title, card.footer]
        result = await engine.answer(actor, prompt.session_id, 0, 0)
        assert isinstance(result, AnswerResult) and result.next is not None
        restarted = build_engine(engine.store, dict(engine.library.quizzes),
                                 rng=random.Random(1))
        resumed = await restarted.review_due(actor)  # /review picks the practice up
        assert resumed.session_id == prompt.session_id and resumed.resumed
        card = plan.question(resumed, actor)
        shown += [card.title, card.footer]
        while result.summary is None:
            assert result.next is not None
            result = await restarted.answer(actor, result.next.session_id,
                                            result.next.position, 0)
            assert isinstance(result, AnswerResult)
        summary = plan.summary(result.summary, actor).body
        shown.append(summary.splitlines()[0])
        for text in shown:
            assert f"{label}: " in strip_isolates(text) and name in strip_isolates(text), text
            assert catalogue.t(lang, "due.title") not in text
            assert "bubble" not in strip_isolates(text).replace(name, "")  # no id


async def test_practice_of_a_second_topic_seconds_later_is_that_topic(engine: Engine):
    """Two practice buttons pressed within seconds: the second topic is practised, not the
    first one joined (a second start of the same practice still joins it)."""
    first = await engine.review_topic(ALICE, "bubble")
    again = await engine.review_topic(ALICE, "bubble")
    assert again.session_id == first.session_id and again.joined
    other = await engine.review_topic(ALICE, "schedules")
    assert other.session_id != first.session_id and not other.joined
    assert other.topic == engine.library.topic_name("schedules", "en")


async def test_a_finished_practice_says_what_to_practise_next(engine: Engine,
                                                              catalogue: Catalogue):
    """A topic's practice ended on its score and misses with no button and no next step (a
    dead end after eight questions); with a miss it now leads on as a quiz does: the
    weakest topic, one button (Urdu here)."""
    actor = Actor("telegram", "1003")
    await engine.set_language(actor, "ur")
    due = engine.library.due_quiz()
    prompt = await engine.review_topic(actor, "bubble")
    while True:
        row = await engine.store.read(sessions_sql.get_session, prompt.session_id)
        assert row is not None
        question = question_at(due, row, prompt.position)  # drawn: its numbers as shown
        right = prompt.options.index(question.options[question.correct].text.get("ur"))
        result = await engine.answer(actor, prompt.session_id, prompt.position,
                                     (right + 1) % len(prompt.options))
        assert isinstance(result, AnswerResult)
        if result.next is None:
            break
        prompt = result.next
    assert result.summary is not None and result.summary.next_step is not None
    step = result.summary.next_step
    card = Planner(catalogue, PLAIN, shared_chats=False).summary(result.summary, actor)
    [[button]] = card.rows
    assert decode(button.payload) == TopicPayload.of(actor.user_id, step.id)
    assert button.label == catalogue.t("ur", "button.next_topic", name=step.name)
    assert catalogue.t("ur", "summary.next_topic", name=step.name,
                       percent=step.percent) in card.body


async def test_the_same_topic_again_goes_on_where_the_learner_is(engine: Engine,
                                                                   catalogue: Catalogue):
    """/review bubble while bubble's practice is open at question 2 goes on at question 2
    (as /quiz goes on with an unfinished quiz), saying it picks up where they left off; it
    restarted at question 1 before."""
    prompt = await engine.review_topic(ALICE, "bubble")
    result = await engine.answer(ALICE, prompt.session_id, 0, 0)
    assert isinstance(result, AnswerResult) and result.next is not None
    again = await engine.review_topic(ALICE, "bubble")
    assert (again.session_id, again.position) == (prompt.session_id, 1)
    assert again.resumed and not again.joined
    assert again.topic == engine.library.topic_name("bubble", "en")
    body = Planner(catalogue, PLAIN, shared_chats=False).question(again, ALICE).body
    assert body.startswith(catalogue.t("en", "question.resumed"))
    other = await engine.review_topic(ALICE, "schedules")  # another topic: its own set
    assert other.session_id != prompt.session_id and other.position == 0
