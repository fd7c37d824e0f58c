"""Spaced review: FSRS intervals, the due queue, confidence, streaks, settings, progress
(on SQLite and PostgreSQL alike)."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from fsrs import Card, Rating, Scheduler

from bot.app.compose import build_engine
from bot.domain import learning
from bot.domain.errors import BadReminder, NothingDue
from bot.domain.quiz import Quiz
from bot.domain.results import Actor, AnswerResult, QuestionPrompt, SessionKind
from bot.features.engine import Engine
from bot.store.command import Command, q
from bot.store.commands import jobs_sql, learning_sql, sessions_sql
from bot.store.protocol import Store
from bot.store.rows import NewReview
from tests.clock import FakeClock

ALI = Actor("telegram", "1", None, "Ali")
DAY = 86400.0


@pytest.fixture
def store(backend_store: Store) -> Store:
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_store


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def engine(store: Store, quizzes: dict[str, Quiz], clock: FakeClock) -> Engine:
    return build_engine(store, quizzes, rng=random.Random(7), clock=clock)


def pick(quizzes: dict[str, Quiz], prompt: QuestionPrompt, right: bool) -> int:
    """The shown index of the right (or a wrong) option, found through the quiz file."""
    quiz_id, question_id = prompt.quiz_id, prompt.question_id
    if prompt.kind == SessionKind.DUE:
        quiz_id, question_id = learning.unqualify(question_id)
    question = quizzes[quiz_id].question(question_id)
    assert question is not None
    index = prompt.options.index(question.options[question.correct].text.get(prompt.lang))
    return index if right else (index + 1) % len(prompt.options)


async def answer(engine: Engine, quizzes: dict[str, Quiz], prompt: QuestionPrompt,
                 right: bool, sure: bool | None = None) -> AnswerResult:
    result = await engine.answer(ALI, prompt.session_id, prompt.position,
                                 pick(quizzes, prompt, right), sure=sure)
    assert isinstance(result, AnswerResult)
    return result


async def play_full(engine: Engine, quizzes: dict[str, Quiz], right: set[int]) -> None:
    prompt = await engine.start(ALI)
    while True:
        result = await answer(engine, quizzes, prompt, prompt.position in right)
        if result.next is None:
            return
        prompt = result.next


async def card_of(store: Store, question_id: str) -> Card:
    for row in await store.read(learning_sql.cards, ALI.platform, ALI.user_id):
        if row.question_id == question_id:
            return Card.from_json(row.card)
    raise AssertionError(f"no card for {question_id}")


async def test_answers_over_30_days_follow_the_fsrs_schedule(engine, store, quizzes, clock):
    """Each review comes back exactly when FSRS says, and the stored card is the library's."""
    qid = quizzes["parallelism"].questions[0].id
    fsrs = Scheduler(enable_fuzzing=False)
    start = clock.now
    expected = Card(card_id=int(start * 1000), due=datetime.fromtimestamp(start, UTC))
    prompt = await engine.start(ALI)  # only question 0 gets answered: one card
    await answer(engine, quizzes, prompt, right=True)
    expected, _ = fsrs.review_card(expected, Rating.Good, datetime.fromtimestamp(start, UTC))
    pattern = iter([True, False, True, True, True, True, True, True, True])
    reviews = 1
    while True:
        card = await card_of(store, qid)
        assert card.to_dict() == expected.to_dict()
        due = expected.due.timestamp()
        if due - start > 30 * DAY:
            break
        clock.now = due - 1  # one second early: nothing is due
        with pytest.raises(NothingDue) as early:
            await engine.review_due(ALI)
        assert early.value.key == "error.nothing_due_minutes"
        clock.now = due
        prompt = await engine.review_due(ALI)
        assert prompt.kind == SessionKind.DUE and prompt.total == 1
        assert learning.unqualify(prompt.question_id) == ("parallelism", qid)
        right = next(pattern)
        await answer(engine, quizzes, prompt, right)
        reviews += 1
        expected, _ = fsrs.review_card(expected, Rating.Good if right else Rating.Again,
                                       datetime.fromtimestamp(due, UTC))
    assert reviews >= 6
    assert (expected.due - datetime.fromtimestamp(start, UTC)).days > 30  # it spaced out


async def test_due_questions_come_back_most_overdue_first(engine, store, quizzes, clock):
    await play_full(engine, quizzes, right={0, 1, 2, 3})  # 4-7 wrong: due in a minute
    cards = {c.question_id: c.due_at for c in await store.read(learning_sql.cards, "telegram", "1")}
    assert len(cards) == 8
    clock.advance(30 * DAY)  # everything is due; the wrong ones the longest
    prompt = await engine.review_due(ALI)
    order = [learning.unqualify(q)[1] for q in await _session_questions(store, prompt)]
    assert order == sorted(cards, key=lambda q: (cards[q], q))
    assert prompt.total == 8 and prompt.position == 0
    # Unfinished, it resumes where it was rather than starting over.
    await answer(engine, quizzes, prompt, right=True)
    again = await engine.review_due(ALI)
    assert (again.session_id, again.position, again.resumed) == (prompt.session_id, 1, True)


async def _session_questions(store: Store, prompt: QuestionPrompt) -> tuple[str, ...]:
    row = await store.read(sessions_sql.get_session, prompt.session_id)
    assert row is not None
    return row.question_ids


async def test_nothing_due_says_when_and_never(engine, quizzes, clock):
    with pytest.raises(NothingDue) as never:
        await engine.review_due(ALI)
    assert never.value.key == "error.nothing_due_never"
    await play_full(engine, quizzes, right=set(range(8)))
    clock.advance(3600)  # past the 10-minute learning step: due now
    prompt = await engine.review_due(ALI)
    result = None
    while prompt is not None:
        result = await answer(engine, quizzes, prompt, right=True)
        prompt = result.next
    assert result is not None and result.summary is not None
    assert result.summary.kind == SessionKind.DUE and result.summary.score == 8
    with pytest.raises(NothingDue) as later:
        await engine.review_due(ALI)
    assert later.value.key in {"error.nothing_due_hours", "error.nothing_due_days"}
    assert later.value.params["amount"] >= 1


async def test_confidence_changes_the_rating_and_feeds_calibration(engine, store, quizzes):
    await engine.set_confidence(ALI, True)
    prompt = await engine.start(ALI)
    assert prompt.confidence
    r1 = await answer(engine, quizzes, prompt, right=True, sure=False)  # a lucky guess
    assert r1.sure is False and r1.next is not None and r1.next.confidence
    r2 = await answer(engine, quizzes, r1.next, right=True, sure=True)
    assert r2.next is not None
    await answer(engine, quizzes, r2.next, right=False, sure=True)  # sure, and wrong
    q = quizzes["parallelism"].questions
    guess, sure = await card_of(store, q[0].id), await card_of(store, q[1].id)
    assert guess.due < sure.due  # Hard comes back sooner than Good
    totals = {(t.question_id, t.sure): t for t in await store.read(learning_sql.review_totals,
                                                                   "telegram", "1")}
    assert totals[(q[0].id, False)].correct == 1 and totals[(q[2].id, True)].correct == 0
    progress = await engine.progress(ALI)
    assert (progress.sure_answered, progress.sure_correct) == (2, 1)
    assert (progress.guess_answered, progress.guess_correct) == (1, 1)
    assert progress.calibration == 0.5
    assert not (await engine.set_confidence(ALI, False)).confidence
    assert not (await engine.start(ALI)).confidence


def test_rating_for():
    assert learning.rating_for(False, True) == Rating.Again
    assert learning.rating_for(False, None) == Rating.Again
    assert learning.rating_for(True, None) == Rating.Good
    assert learning.rating_for(True, True) == Rating.Good
    assert learning.rating_for(True, False) == Rating.Hard


async def test_a_repeated_answer_moves_the_card_once(engine, store, quizzes, clock):
    prompt = await engine.start(ALI)
    option = pick(quizzes, prompt, right=True)
    first = await engine.answer(ALI, prompt.session_id, 0, option)
    again = await engine.answer(ALI, prompt.session_id, 0, option)
    assert isinstance(again, AnswerResult) and again.duplicate and isinstance(first, AnswerResult)
    [card] = await store.read(learning_sql.cards, "telegram", "1")
    assert card.reviews == 1
    # A round (or any other source) applying the same answer key changes nothing either.
    review = engine.spaced.review_of(await store.read(sessions_sql.get_session, prompt.session_id),
                                     card.question_id, 0, True, None, clock())
    assert not await store.write(learning_sql.apply_review_alone, review)
    assert (await store.read(learning_sql.cards, "telegram", "1"))[0].reviews == 1


async def test_apply_review_from_another_source_counts_once(engine, store, quizzes, clock):
    memory = learning.Memory()
    qid = quizzes["parallelism"].questions[2].id
    review = NewReview("r:7:2", "telegram", "1", "parallelism", qid, True, None,
                       int(Rating.Good), clock.now, memory.updater(Rating.Good, clock.now))
    assert await store.write(learning_sql.apply_review_alone, review)
    assert not await store.write(learning_sql.apply_review_alone, review)
    [card] = await store.read(learning_sql.cards, "telegram", "1")
    assert card.reviews == 1 and card.question_id == qid


def test_streak_counts_days_in_a_row():
    assert learning.streak([], 100) == 0
    assert learning.streak([100], 100) == 1
    assert learning.streak([97, 98, 99], 100) == 3  # today not done yet: still alive
    assert learning.streak([97, 99, 100], 100) == 2
    assert learning.streak([97, 98], 100) == 0  # missed yesterday


def test_local_days_and_reminder_times_follow_the_offset():
    noon = datetime(2025, 3, 1, 12, 0, tzinfo=UTC).timestamp()
    late = datetime(2025, 3, 1, 20, 0, tzinfo=UTC).timestamp()  # 01:00 next day at +05:00
    assert learning.local_day(noon, 0) == learning.local_day(late, 0)
    assert learning.local_day(late, 300) == learning.local_day(noon, 300) + 1
    assert learning.local_day(late, -600) == learning.local_day(noon, 0)
    # 19:30 at +05:00 is 14:30 UTC; asked at 12:00 UTC it is today, at 15:00 tomorrow.
    at = learning.next_occurrence(noon, 19 * 60 + 30, 300)
    assert datetime.fromtimestamp(at, UTC) == datetime(2025, 3, 1, 14, 30, tzinfo=UTC)
    nxt = learning.next_occurrence(at, 19 * 60 + 30, 300)
    assert nxt - at == DAY
    assert learning.parse_offset("+05:00") == 300 and learning.parse_offset("-0330") == -210
    assert learning.parse_offset("UTC+5") == 300 and learning.parse_offset("+15:00") is None
    # Offsets in use run from UTC-12:00 (Baker Island) to UTC+14:00 (Kiribati).
    assert learning.parse_offset("+14:00") == 840 and learning.parse_offset("+14:01") is None
    assert learning.parse_offset("-12:00") == -720 and learning.parse_offset("-12:01") is None
    assert learning.parse_offset("-14:00") is None
    assert learning.parse_time("7:05") == 425 and learning.parse_time("24:00") is None


async def test_progress_names_each_quiz_of_the_chart_by_its_title(engine, quizzes):
    """The /stats chart heads each quiz's bars with its title in the learner's language
    (it showed the quiz id, "parallelism")."""
    await play_full(engine, quizzes, right={0})
    progress = await engine.progress(ALI)
    played = {learning.unqualify(q.question_id)[0] for q in progress.questions}
    assert dict(progress.titles) == {quiz_id: quizzes[quiz_id].title.get("en")
                                     for quiz_id in played}
    assert played


async def test_streak_across_day_boundaries_in_the_learners_time_zone(engine, quizzes, clock):
    """18:00 and 19:30 UTC are one day in UTC but two at +05:00 (23:00, then 00:30)."""
    await engine.remind(ALI, "08:00", "+05:00")  # stores the offset
    clock.now = datetime(2025, 3, 1, 18, 0, tzinfo=UTC).timestamp()  # 23:00 at +05:00
    prompt = await engine.start(ALI)
    r = await answer(engine, quizzes, prompt, right=True)
    clock.now = datetime(2025, 3, 1, 19, 30, tzinfo=UTC).timestamp()  # 00:30 the 2nd
    assert r.next is not None
    r = await answer(engine, quizzes, r.next, right=True)
    progress = await engine.progress(ALI)
    assert progress.streak == 2
    assert [d.answered for d in progress.history[-2:]] == [1, 1]
    clock.now = datetime(2025, 3, 3, 18, 0, tzinfo=UTC).timestamp()  # the 3rd: still alive
    assert (await engine.progress(ALI)).streak == 2
    clock.now = datetime(2025, 3, 4, 18, 0, tzinfo=UTC).timestamp()  # the 4th: broken
    assert (await engine.progress(ALI)).streak == 0
    assert r.next is not None
    await answer(engine, quizzes, r.next, right=True)
    assert (await engine.progress(ALI)).streak == 1


async def test_progress_counts_due_retention_and_accuracy(engine, quizzes, clock):
    await play_full(engine, quizzes, right={0, 1, 2, 3, 4, 5})
    clock.advance(3600)
    progress = await engine.progress(ALI)
    assert progress.cards == 8 and progress.due_now == 8 and progress.next_due is None
    assert progress.retention is not None and 0.5 < progress.retention <= 1
    accuracy = {learning.unqualify(q.question_id)[1]: (q.answered, q.correct)
                for q in progress.questions}
    q = quizzes["parallelism"].questions
    assert accuracy[q[0].id] == (1, 1) and accuracy[q[7].id] == (1, 0)
    assert len(progress.history) == 14 and progress.history[-1].answered == 8


async def test_remind_settings_validate_and_persist(engine, store, clock):
    with pytest.raises(BadReminder):
        await engine.remind(ALI, "25:00")
    with pytest.raises(BadReminder):
        await engine.remind(ALI, "19:30", "+99")
    view = await engine.remind(ALI, "19:30", "+05:00")
    assert (view.remind_at, view.utc_offset) == ("19:30", "UTC+05:00")
    view = await engine.remind(ALI, "07:00")  # the stored offset stays
    assert (view.remind_at, view.utc_offset) == ("07:00", "UTC+05:00")
    off = await engine.remind_off(ALI)
    assert off.remind_at is None and (await engine.settings(ALI)).remind_at is None
    assert await store.write(jobs_sql.claim_due, clock.now + 10 * DAY, 10, "w", 60) == []


async def test_reset_forgets_cards_and_reviews(engine, store, quizzes):
    await play_full(engine, quizzes, right={0})
    assert len(await store.read(learning_sql.cards, "telegram", "1")) == 8
    await engine.reset(ALI)
    assert await store.read(learning_sql.cards, "telegram", "1") == []
    assert await store.read(learning_sql.review_totals, "telegram", "1") == []


def _stamps(session_id: int) -> Command[set[float]]:
    """Every time the store wrote for one attempt: its start and finish, its answers, their
    reviews, the best score it set and the learner's first contact."""
    rows = yield q("SELECT started_at AS t FROM sessions WHERE id = ? UNION ALL "
                   "SELECT finished_at FROM sessions WHERE id = ? UNION ALL "
                   "SELECT answered_at FROM answers WHERE session_id = ? UNION ALL "
                   "SELECT reviewed_at FROM reviews WHERE answer_key LIKE ? UNION ALL "
                   "SELECT finished_at FROM best_scores UNION ALL "
                   "SELECT created_at FROM users", session_id, session_id, session_id,
                   f"s:{session_id}:%")
    return {float(r["t"]) for r in rows}


async def test_one_clock_stamps_an_attempt(engine, store, quizzes, clock):
    """The engine's clock (a simulated one here) stamps the session, each answer and each
    review alike: the store takes `now` from its caller and reads no clock of its own."""
    prompt = await engine.start(ALI)
    session, seen = prompt.session_id, {clock.now}
    while True:
        clock.advance(7)
        seen.add(clock.now)
        result = await answer(engine, quizzes, prompt, True)
        if result.next is None:
            break
        prompt = result.next
    assert await store.read(_stamps, session) == seen


async def test_a_finished_spaced_review_says_when_to_come_back(engine, store, quizzes, clock):
    """A spaced review's summary ended on its score alone: nothing said when the next
    question falls due (/review did, only once asked). Urdu here; a miss comes back in a
    minute, as /review would say."""
    from bot.present.i18n import Catalogue
    from bot.present.plan import Planner
    from bot.present.render import PLAIN

    await engine.set_language(ALI, "ur")
    await play_full(engine, quizzes, right=set(range(2, 8)))  # 1 and 2 missed: due in a minute
    clock.advance(120)
    prompt = await engine.review_due(ALI)
    result = await answer(engine, quizzes, prompt, right=False)  # missed again: a minute
    assert result.next is not None
    result = await answer(engine, quizzes, result.next, right=True)
    assert result.summary is not None and result.summary.next_due == ("minutes", 1)
    cat = Catalogue.load()
    card = Planner(cat, PLAIN, shared_chats=False).summary(result.summary, ALI)
    lines = card.body.splitlines()  # what to do next leads, under the score
    assert cat.t("ur", "error.nothing_due_minutes", amount=1) in lines[:4]
    clock.advance(120)  # the miss is due again: the summary of a review then says so
    assert await engine.spaced.next_due(ALI.platform, ALI.user_id) == ("now", 0)
    assert cat.t("en", "summary.more_due") == "More questions are due now: /review"
