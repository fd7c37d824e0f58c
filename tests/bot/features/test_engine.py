"""Engine rules: sessions, idempotent answers, stale and foreign taps, review, stats, boards."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.app.compose import build_engine
from bot.domain.errors import (
    NoActiveSession,
    NothingToReview,
    QuizInProgress,
    UnknownQuiz,
    UnsupportedLanguage,
)
from bot.domain.quiz import Quiz
from bot.domain.results import Actor, AnswerResult, NotYours, SessionKind, StaleAnswer
from bot.features.engine import Engine
from bot.features.sessions import NothingMissed
from bot.store.commands import sessions_sql
from bot.store.sqlite import SQLiteStore
from tests.helpers import right_option, wrong_option

ALI = Actor("telegram", "1", None, "Ali")
SARA = Actor("telegram", "2", None, "Sara")


async def play(engine: Engine, quizzes: dict[str, Quiz], actor: Actor, right: set[int],
               quiz_id: str | None = None) -> AnswerResult:
    """Answer the whole quiz: right on the positions in `right`, wrong elsewhere."""
    prompt = await engine.start(actor, quiz_id)
    while True:
        pick = right_option if prompt.position in right else wrong_option
        result = await engine.answer(actor, prompt.session_id, prompt.position,
                                     pick(quizzes, prompt))
        assert isinstance(result, AnswerResult)
        if result.summary:
            return result
        assert result.next is not None
        prompt = result.next


async def test_whole_quiz_scores_and_lists_missed(engine: Engine, quizzes: dict[str, Quiz]):
    last = await play(engine, quizzes, ALI, right={0, 2, 4, 6, 7})
    assert last.summary is not None
    assert (last.summary.score, last.summary.total) == (5, 8)
    assert [m.position for m in last.summary.missed] == [1, 3, 5]
    assert last.summary.best_score == 5
    quiz = quizzes["parallelism"]
    assert last.summary.missed[0].correct_option == quiz.questions[1].options[1].text.get("en")


async def test_feedback_has_correct_option_explanation_and_why_not(engine, quizzes):
    prompt = await engine.start(ALI)
    wrong = wrong_option(quizzes, prompt)
    result = await engine.answer(ALI, prompt.session_id, 0, wrong)
    assert isinstance(result, AnswerResult)
    question = quizzes["parallelism"].questions[0]
    assert not result.is_correct and result.chosen == wrong
    right = question.options[question.correct].text.get("en")
    assert result.question.options[result.correct] == right
    assert result.explanation == question.explanation.get("en")
    chosen_file_index = [o.text.get("en") for o in question.options].index(prompt.options[wrong])
    assert result.rationale == question.options[chosen_file_index].why_not.get("en")
    assert (result.answered, result.score) == (1, 0)
    assert result.next is not None and result.next.position == 1
    assert result.references


async def test_right_answer_has_no_rationale(engine, quizzes):
    prompt = await engine.start(ALI)
    result = await engine.answer(ALI, prompt.session_id, 0, right_option(quizzes, prompt))
    assert result.is_correct and result.rationale is None and result.score == 1


async def test_double_answer_is_idempotent(engine, quizzes, store):
    prompt = await engine.start(ALI)
    first = await engine.answer(ALI, prompt.session_id, 0, right_option(quizzes, prompt))
    again = await engine.answer(ALI, prompt.session_id, 0, wrong_option(quizzes, prompt))
    assert isinstance(again, AnswerResult) and again.duplicate and not first.duplicate
    assert again.is_correct and again.chosen == first.chosen and again.score == first.score
    assert again.next == first.next
    row = await store.read(sessions_sql.get_session, prompt.session_id)
    assert (row.position, row.score) == (1, 1)
    assert len(await store.read(sessions_sql.answers, prompt.session_id)) == 1


async def test_concurrent_double_tap_counted_once(engine, quizzes, store):
    import asyncio

    prompt = await engine.start(ALI)
    pick = right_option(quizzes, prompt)
    results = await asyncio.gather(*[
        engine.answer(ALI, prompt.session_id, 0, pick) for _ in range(5)])
    assert sum(not r.duplicate for r in results) == 1
    row = await store.read(sessions_sql.get_session, prompt.session_id)
    assert (row.position, row.score) == (1, 1)


async def test_stale_answer_for_a_question_that_is_not_current(engine, quizzes, store):
    prompt = await engine.start(ALI)
    result = await engine.answer(ALI, prompt.session_id, 3, 0)
    assert isinstance(result, StaleAnswer)
    assert result.current is not None and result.current.position == 0
    assert (await store.read(sessions_sql.get_session, prompt.session_id)).position == 0


async def test_forged_option_index_is_stale_not_a_crash(engine, store):
    prompt = await engine.start(ALI)
    assert isinstance(await engine.answer(ALI, prompt.session_id, 0, 9), StaleAnswer)
    assert isinstance(await engine.answer(ALI, 999_999, 0, 0), StaleAnswer)
    assert (await store.read(sessions_sql.get_session, prompt.session_id)).position == 0


async def test_answer_on_finished_session_is_stale(engine, quizzes):
    last = await play(engine, quizzes, ALI, right=set())
    result = await engine.answer(ALI, last.session_id, 8, 0)
    assert isinstance(result, StaleAnswer) and result.current is None


async def test_someone_elses_session_is_not_yours(engine, quizzes, store):
    prompt = await engine.start(ALI)
    result = await engine.answer(SARA, prompt.session_id, 0, right_option(quizzes, prompt))
    assert isinstance(result, NotYours)
    assert (await store.read(sessions_sql.get_session, prompt.session_id)).position == 0
    # Same user id on another platform is another person.
    other = Actor("discord", ALI.user_id, None, "Ali on Discord")
    assert isinstance(await engine.answer(other, prompt.session_id, 0, 0), NotYours)


async def test_resume_keeps_option_order_and_position(store, quizzes, tmp_path):
    engine = build_engine(store, quizzes, rng=random.Random(1))
    prompt = await engine.start(ALI)
    result = await engine.answer(ALI, prompt.session_id, 0, 0)
    next_prompt = result.next
    # A new engine (as after a restart) with another random seed resumes the same session.
    again = await build_engine(store, quizzes, rng=random.Random(99)).start(ALI)
    assert again.session_id == prompt.session_id and again.position == 1 and again.resumed
    assert again.options == next_prompt.options


async def test_store_reopen_keeps_progress(tmp_path: Path, quizzes):
    store = await SQLiteStore.open(tmp_path / "q.db")
    prompt = await build_engine(store, quizzes).start(ALI)
    await build_engine(store, quizzes).answer(ALI, prompt.session_id, 0, 0)
    await store.close()
    store = await SQLiteStore.open(tmp_path / "q.db")
    try:
        again = await build_engine(store, quizzes).start(ALI)
        assert (again.session_id, again.position) == (prompt.session_id, 1)
    finally:
        await store.close()


async def test_options_are_shuffled_per_session_questions_fixed(store, quizzes):
    engine = build_engine(store, quizzes, rng=random.Random(3))
    orders = set()
    for i in range(6):
        prompt = await engine.start(Actor("t", str(i)))
        assert prompt.question_id == quizzes["parallelism"].questions[0].id
        orders.add(prompt.options)
    assert len(orders) > 1


async def test_shuffle_questions_by_config(store, quizzes):
    engine = build_engine(store, quizzes, rng=random.Random(5), shuffle_questions=True)
    firsts = {(await engine.start(Actor("t", str(i)))).question_id for i in range(8)}
    assert len(firsts) > 1


async def test_restart_abandons_and_keeps_history(engine, quizzes, store):
    prompt = await engine.start(ALI)
    await engine.answer(ALI, prompt.session_id, 0, 0)
    fresh = await engine.restart(ALI)
    assert fresh.session_id != prompt.session_id and fresh.position == 0
    old = await store.read(sessions_sql.get_session, prompt.session_id)
    assert old.status == "abandoned" and len(await store.read(sessions_sql.answers, old.id)) == 1
    # The abandoned session's buttons are now stale.
    assert isinstance(await engine.answer(ALI, prompt.session_id, 1, 0), StaleAnswer)


async def test_review_covers_only_missed_questions(engine, quizzes):
    await play(engine, quizzes, ALI, right={0, 1, 2, 4, 5, 6})
    review = await engine.review(ALI)
    assert review.kind == SessionKind.REVIEW and review.total == 2
    assert review.question_id == quizzes["parallelism"].questions[3].id
    last = None
    prompt = review
    while prompt:
        last = await engine.answer(ALI, prompt.session_id, prompt.position,
                                   right_option(quizzes, prompt))
        prompt = last.next
    assert last.summary.kind == SessionKind.REVIEW and last.summary.score == 2
    # A review does not count as an attempt or on the leaderboard.
    stats = await engine.stats(ALI)
    assert stats.attempts == 1 and stats.best_score == 6


async def test_stats_without_a_name_show_the_quiz_just_finished(engine: Engine,
                                                                 quizzes: dict[str, Quiz]):
    """A learner who finished another quiz than the default one and sent /stats got the
    default quiz, never played: 'You have not finished this quiz yet'. With nothing left
    unfinished, /stats shows the quiz finished last; an unfinished one still comes first."""
    await play(engine, quizzes, ALI, right={0, 1}, quiz_id="pipeline-schedules")
    stats = await engine.stats(ALI)
    assert (stats.quiz_id, stats.attempts, stats.best_score) == ("pipeline-schedules", 1, 2)
    assert (await engine.stats(ALI, "parallelism")).attempts == 0  # a name still picks it
    await engine.start(ALI, "long-context")
    assert (await engine.stats(ALI)).quiz_id == "long-context"
    assert (await engine.stats(SARA)).quiz_id == "parallelism"  # nothing played: the default


async def test_review_errors(engine, quizzes):
    with pytest.raises(NothingToReview):
        await engine.review(ALI)
    prompt = await engine.start(ALI)
    await engine.answer(ALI, prompt.session_id, 0, 0)
    with pytest.raises(QuizInProgress) as info:
        await engine.review(ALI)
    assert info.value.params == {"number": 2, "total": 8}
    await play(engine, quizzes, SARA, right=set(range(8)))
    with pytest.raises(NothingMissed):
        await engine.review(SARA)


async def test_current_and_unknown_quiz(engine):
    with pytest.raises(NoActiveSession):
        await engine.current(ALI)
    prompt = await engine.start(ALI)
    assert (await engine.current(ALI)).session_id == prompt.session_id
    with pytest.raises(UnknownQuiz):
        await engine.start(ALI, "nope")


async def test_language_choice_persists_and_locale_is_default(engine, quizzes):
    urdu_app = Actor("telegram", "3", None, "Zara", locale="ur")
    assert (await engine.start(urdu_app)).lang == "ur"
    assert await engine.language(Actor("telegram", "4", locale="en-GB")) == "en"
    await engine.set_language(ALI, "ur")
    prompt = await engine.start(ALI)
    question = quizzes["parallelism"].questions[0]
    assert prompt.lang == "ur" and prompt.text == question.text.get("ur")
    result = await engine.answer(ALI, prompt.session_id, 0, 0)
    assert result.explanation == question.explanation.get("ur")
    # An explicit choice beats the app's locale.
    await engine.set_language(urdu_app, "en")
    assert await engine.language(urdu_app) == "en"
    with pytest.raises(UnsupportedLanguage):
        await engine.set_language(ALI, "fr")


async def test_stats_attempts_best_last_and_accuracy(engine, quizzes):
    await play(engine, quizzes, ALI, right={0, 1, 2, 3, 4, 5})
    await play(engine, quizzes, ALI, right={0})
    stats = await engine.stats(ALI)
    assert (stats.attempts, stats.best_score, stats.last_score) == (2, 6, 1)
    by_id = {q.question_id: q for q in stats.questions}
    first, second, last = (quizzes["parallelism"].questions[i].id for i in (0, 1, 7))
    assert (by_id[first].answered, by_id[first].correct) == (2, 2)
    assert (by_id[second].answered, by_id[second].correct) == (2, 1)
    assert by_id[last].accuracy == 0.0
    member = await engine.stats(SARA, member=ALI)
    assert member.attempts == 2 and not member.own and stats.own


async def test_leaderboards_global_and_per_chat_with_ties(engine, quizzes):
    group_a = lambda a: Actor(a.platform, a.user_id, "chat-a", a.display_name)  # noqa: E731
    await play(engine, quizzes, group_a(ALI), right={0, 1, 2})
    await play(engine, quizzes, group_a(SARA), right={0, 1, 2})  # same score, later
    await play(engine, quizzes, Actor("discord", "9", "guild-b", "Omar"), right=set(range(8)))
    await play(engine, quizzes, group_a(ALI), right={0})  # worse: best stays 3
    board = await engine.leaderboard(group_a(ALI))
    assert board.scope == "chat"
    assert [(r.display_name, r.score) for r in board.rows] == [("Ali", 3), ("Sara", 3)]
    world = await engine.leaderboard(ALI, scope="global")
    assert [r.display_name for r in world.rows] == ["Omar", "Ali", "Sara"]
    assert [r.rank for r in world.rows] == [1, 2, 3]
    # A private chat has no chat board: it shows the global one.
    assert (await engine.leaderboard(SARA)).scope == "global"


async def test_reset_deletes_progress_and_scores(engine, quizzes, store):
    await play(engine, quizzes, ALI, right={0})
    await engine.set_language(ALI, "ur")
    assert await engine.reset(ALI) == 1
    stats = await engine.stats(ALI)
    assert stats.attempts == 0 and stats.best_score is None
    assert (await engine.leaderboard(ALI, scope="global")).rows == ()
    assert await engine.language(ALI) == "ur"  # the language choice stays


async def test_reload_is_admin_only(store, quizzes):
    from bot.domain.errors import NotAdmin

    admin = Actor("telegram", "42", None, "Admin")
    engine = build_engine(store, quizzes, admins={"telegram": frozenset({"42"})},
                          reload=lambda: quizzes)
    assert engine.is_admin(admin) and not engine.is_admin(ALI)
    assert not engine.is_admin(Actor("discord", "42"))  # ids are per platform
    with pytest.raises(NotAdmin):
        await engine.reload(ALI)
    infos = await engine.reload(admin)
    assert [i.id for i in infos] == sorted(quizzes)


async def test_default_quiz_is_the_easiest_not_the_first_id(store, quizzes):
    # expert-parallelism sorts before parallelism but is hard: newcomers still start easy
    assert min(quizzes) != "parallelism" and quizzes["parallelism"].difficulty == "easy"
    assert build_engine(store, quizzes).quiz().id == "parallelism"
    hard = {k: v for k, v in quizzes.items() if v.difficulty == "hard"}
    assert build_engine(store, hard).quiz().id == min(hard)
    deep = build_engine(store, quizzes, default_quiz="parallelism-deep")
    assert deep.quiz().id == "parallelism-deep"


async def test_changed_quiz_file_restarts_a_stale_session(store, quizzes):
    import dataclasses

    engine = build_engine(store, quizzes)
    prompt = await engine.start(ALI)
    await engine.answer(ALI, prompt.session_id, 0, 0)
    quiz = quizzes["parallelism"]
    trimmed = dataclasses.replace(quiz, questions=quiz.questions[1:])
    edited = build_engine(store, {"parallelism": trimmed})
    assert isinstance(await edited.answer(ALI, prompt.session_id, 1, 0), StaleAnswer)
    fresh = await edited.start(ALI)
    assert fresh.session_id != prompt.session_id and fresh.total == 7


async def test_language_change_mid_session_applies_to_the_next_answer(engine, quizzes):
    prompt = await engine.start(ALI)
    first = await engine.answer(ALI, prompt.session_id, 0, 0)
    assert first.lang == "en"
    await engine.set_language(ALI, "ur")
    second = await engine.answer(ALI, prompt.session_id, 1, 0)
    assert second.lang == "ur"
    assert second.explanation == quizzes["parallelism"].questions[1].explanation.get("ur")


async def test_a_fresh_engine_sees_what_another_engine_wrote(store, quizzes):
    """The session cache never hides the database from a restarted process."""
    first = build_engine(store, quizzes)
    prompt = await first.start(ALI)
    await first.answer(ALI, prompt.session_id, 0, 0)
    restarted = build_engine(store, quizzes)
    again = await restarted.answer(ALI, prompt.session_id, 0, 1)
    assert again.duplicate and again.chosen == 0
    assert (await restarted.answer(ALI, prompt.session_id, 1, 0)).answered == 2


async def test_reload_with_broken_files_keeps_the_quizzes_in_use(store, quizzes):
    from bot.domain.errors import ContentError, ReloadFailed

    def broken():
        raise ContentError(["content/x.yaml:3: questions[0].correct is 5 but ..."])

    admin = Actor("telegram", "42")
    engine = build_engine(store, quizzes, admins={"telegram": frozenset({"42"})}, reload=broken)
    with pytest.raises(ReloadFailed) as info:
        await engine.reload(admin)
    assert "content/x.yaml:3" in info.value.params["problems"]
    assert engine.quiz().id == "parallelism"
