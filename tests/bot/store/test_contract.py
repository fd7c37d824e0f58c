"""The Store contract on SQLite and PostgreSQL alike; two stores on one database stand in
for two processes (nothing is shared between them but the database)."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import replace

from bot.app.compose import build_engine
from bot.domain.quiz import Quiz
from bot.domain.results import Actor, AnswerResult, SessionKind
from bot.store.commands import rounds_sql, sessions_sql
from bot.store.commands.report_sql import Scope, accuracy
from bot.store.protocol import Store
from bot.store.rows import NewAnswer, NewSession, Write
from tests.bot.store.conftest import Opener
from tests.helpers import right_option

QUESTIONS = ("a", "b", "c")


def new_session(user: str = "1", quiz: str = "quiz") -> NewSession:
    return NewSession("t", user, "chat", quiz, SessionKind.FULL, QUESTIONS,
                      ((0, 1), (1, 0), (0, 1)), started_at=time.time())


def answer_of(sid: int, position: int, correct: bool, *,
              chosen: int = 0) -> NewAnswer:
    return NewAnswer(sid, position, QUESTIONS[position], chosen, correct,
                     position == len(QUESTIONS) - 1, answered_at=time.time())


async def test_a_repeated_answer_counts_once_and_says_repeat(any_store: Store):
    store = any_store
    await sessions_sql.touch_user(store, "t", "1", "T", time.time())
    sid = (await store.write(sessions_sql.start_session, new_session(), replace=False)).id
    first = answer_of(sid, 0, True, chosen=1)
    outcomes = await asyncio.gather(store.write(sessions_sql.record_answer,
                                                first), store.write(sessions_sql.record_answer,
                                                                    first))
    assert sorted(o.outcome for o in outcomes) == [Write.APPLIED, Write.REPEAT]
    row = await store.read(sessions_sql.get_session, sid)
    assert row is not None and (row.position, row.score) == (1, 1)
    assert (await store.write(sessions_sql.record_answer,
                              answer_of(sid, 2, True))).outcome == Write.STALE
    assert (await store.write(sessions_sql.record_answer,
                              answer_of(sid, 1, False))).outcome == Write.APPLIED
    last = await store.write(sessions_sql.record_answer, answer_of(sid, 2, True))
    assert (last.outcome, last.score) == (Write.APPLIED, 2)
    again = await store.write(sessions_sql.record_answer, answer_of(sid, 2, False, chosen=1))
    assert again.outcome == Write.REPEAT and again.answer is not None
    assert (again.answer.chosen, again.answer.correct) == (0, True)  # the first one stands
    row = await store.read(sessions_sql.get_session, sid)
    assert row is not None and (row.position, row.score, row.status) == (3, 2, "finished")
    assert [a.correct for a in await store.read(sessions_sql.answers, sid)] == [True, False, True]
    assert [(b.user_id, b.score) for b in await store.read(sessions_sql.best,
                                                           "quiz", "", 10)] == [("1", 2)]
    assert [b.score for b in await store.read(sessions_sql.best, "quiz", "t:chat", 10)] == [2]
    assert await store.read(sessions_sql.best_score, "quiz", "t", "1") == (2, 3)  # of 3
    assert await store.read(sessions_sql.attempts, "t", "1", "quiz") == (1, 2, 2)
    assert [(r.question_id, r.answered, r.correct) for r in await store.read(
        accuracy, Scope(platform="t", user_id="1", quiz_id="quiz"))] == [
        ("a", 1, 1), ("b", 1, 0), ("c", 1, 1)]
    finished = await store.read(sessions_sql.last_finished, "t", "1", "quiz")
    assert finished is not None and finished.id == sid


async def test_one_tap_through_two_processes_counts_once(open_store: Opener):
    one, two = await open_store(), await open_store()
    await sessions_sql.touch_user(one, "t", "1", "T", time.time())
    sid = (await one.write(sessions_sql.start_session, new_session(), replace=False)).id
    for position in range(len(QUESTIONS)):
        tap = answer_of(sid, position, position != 1)
        results = await asyncio.gather(*(s.write(sessions_sql.record_answer,
                                                 tap) for s in (one, two, one, two)))
        assert sorted(r.outcome for r in results) == [Write.APPLIED] + [Write.REPEAT] * 3
    row = await two.read(sessions_sql.get_session, sid)
    assert row is not None and (row.position, row.score, row.status) == (3, 2, "finished")
    assert len(await one.read(sessions_sql.answers, sid)) == 3
    assert await two.read(sessions_sql.attempts, "t", "1", "quiz") == (1, 2, 2)


async def test_concurrent_starts_in_two_processes_leave_one_active_session(open_store: Opener):
    one, two = await open_store(), await open_store()
    for user in ("1", "2"):
        await sessions_sql.touch_user(one, "t", user, "T", time.time())
    # resume-or-start from both processes at once: everybody gets the same session
    rows = await asyncio.gather(*(s.write(sessions_sql.start_session, new_session(), replace=False)
                                  for s in (one, two) * 5))
    assert len({r.id for r in rows}) == 1
    # restarts racing each other: exactly one survives as the active one
    rows = await asyncio.gather(*(s.write(sessions_sql.start_session, new_session(), replace=True)
                                  for s in (one, two) * 5))
    assert len({r.id for r in rows}) == 10
    active = await two.read(sessions_sql.active_session, "t", "1", "quiz")
    assert active is not None and active.id in {r.id for r in rows}
    others = [await one.read(sessions_sql.get_session, r.id) for r in rows if r.id != active.id]
    assert {o.status for o in others if o is not None} == {"abandoned"}
    assert await one.read(sessions_sql.active_session,
                          "t", "2", "quiz") is None  # nobody else's changed


async def test_concurrent_try_agains_join_the_attempt_one_of_them_started(
        open_store: Opener):
    # "Try again" on two devices at once, in two processes: one attempt, not ten
    one, two = await open_store(), await open_store()
    await sessions_sql.touch_user(one, "t", "1", "T", time.time())
    since = time.time() - 10
    rows = await asyncio.gather(*(s.write(sessions_sql.start_session, new_session(), replace=True,
                                          keep_since=since) for s in (one, two) * 5))
    assert len({r.id for r in rows}) == 1
    # once it is older than keep_since, or answered, a start replaces it again
    later = await one.write(sessions_sql.start_session,
                            new_session(), replace=True, keep_since=time.time() + 1)
    assert later.id != rows[0].id
    await one.write(sessions_sql.record_answer, answer_of(later.id, 0, True))
    again = await two.write(sessions_sql.start_session,
                            new_session(), replace=True, keep_since=since)
    assert again.id != later.id and again.position == 0


async def test_a_reset_racing_answers_leaves_no_orphans(open_store: Opener):
    one, two = await open_store(), await open_store()
    await sessions_sql.touch_user(one, "t", "1", "T", time.time())
    await one.write(sessions_sql.set_language, "t", "1", "ur", time.time())
    sid = (await one.write(sessions_sql.start_session, new_session(), replace=False)).id
    await one.write(sessions_sql.record_answer, answer_of(sid, 0, True))
    late = answer_of(sid, 1, True)
    removed, recorded = await asyncio.gather(two.write(sessions_sql.reset_user, "t", "1"),
                                             one.write(sessions_sql.record_answer, late))
    assert removed == 1
    # Whichever ran first, the session and its answers are gone; the language stays.
    assert await one.read(sessions_sql.get_session, sid) is None
    assert await two.read(sessions_sql.answers, sid) == []
    assert recorded.outcome in (Write.APPLIED, Write.STALE)
    assert (await one.write(sessions_sql.record_answer,
                            answer_of(sid, 2, True))).outcome == Write.STALE
    assert await sessions_sql.touch_user(two, "t", "1", "T", time.time()) == "ur"
    assert await one.read(sessions_sql.attempts, "t", "1", "quiz") == (0, None, None)


async def test_leaderboard_keeps_the_best_and_orders_ties_by_finish(any_store: Store):
    store = any_store
    for user, scores in (("1", [1, 3, 2]), ("2", [3]), ("3", [2])):
        await sessions_sql.touch_user(store, "t", user, f"U{user}", time.time())
        for score in scores:
            sid = (await store.write(sessions_sql.start_session,
                                     new_session(user), replace=True)).id
            for position in range(3):
                await store.write(sessions_sql.record_answer,
                                  answer_of(sid, position, position < score))
    board = await store.read(sessions_sql.best, "quiz", "", 10)
    assert [(b.user_id, b.display_name, b.score, b.total) for b in board] == [
        ("1", "U1", 3, 3), ("2", "U2", 3, 3), ("3", "U3", 2, 3)]
    # The store reads whose attempt it is, where and of what kind from the session itself:
    # its chat is the second scope, and a finished review is no attempt on the boards.
    chat = await store.read(sessions_sql.best, "quiz", "t:chat", 10)
    assert [(b.user_id, b.score, b.total) for b in chat] == [("1", 3, 3), ("2", 3, 3),
                                                             ("3", 2, 3)]
    await sessions_sql.touch_user(store, "t", "4", "U4", time.time())
    review = replace(new_session("4"), kind=SessionKind.REVIEW)
    sid = (await store.write(sessions_sql.start_session, review, replace=True)).id
    for position in range(3):
        await store.write(sessions_sql.record_answer, answer_of(sid, position, True))
    assert "4" not in {b.user_id for b in await store.read(sessions_sql.best, "quiz", "", 10)}
    assert len(await store.read(sessions_sql.best, "quiz", "", 2)) == 2
    assert await store.read(sessions_sql.attempts, "t", "1", "quiz") == (3, 3, 2)
    assert await store.read(sessions_sql.best_score, "quiz", "t", "9") is None


async def test_languages_and_names(any_store: Store):
    store = any_store
    assert await sessions_sql.touch_user(store, "t", "1", "Ali", time.time()) is None
    await store.write(sessions_sql.set_language, "t", "1", "ur", time.time())
    await store.write(sessions_sql.set_language, "t", "2", "en", time.time())  # creates the user
    assert await sessions_sql.touch_user(store, "t", "1", "Ali Khan", time.time()) == "ur"
    assert await sessions_sql.touch_user(store, "t", "2", "", time.time()) == "en"
    await store.write(sessions_sql.start_session, new_session("1"), replace=False)
    row = await store.read(sessions_sql.active_session, "t", "1", "quiz")
    assert row is not None and row.lang == "ur" and row.question_ids == QUESTIONS
    assert row.option_orders == ((0, 1), (1, 0), (0, 1)) and row.chat_id == "chat"


async def test_200_learners_on_two_processes_lose_nothing(open_store: Opener,
                                                          quizzes: dict[str, Quiz]):
    stores = [await open_store(), await open_store()]
    engines = [build_engine(s, quizzes, rng=random.Random(i)) for i, s in enumerate(stores)]
    learners = [Actor("telegram", str(i), None, f"L{i}") for i in range(200)]

    async def learner(actor: Actor, seed: int) -> int:
        rng = random.Random(seed)
        prompt = await engines[seed % 2].start(actor)
        score = 0
        while prompt is not None:
            right = right_option(quizzes, prompt)
            option = right if rng.random() < 0.5 else (right + 1) % 4
            # each tap is delivered twice at once, to both processes
            first, second = await asyncio.gather(*(
                e.answer(actor, prompt.session_id, prompt.position, option) for e in engines))
            assert isinstance(first, AnswerResult) and isinstance(second, AnswerResult)
            assert first.duplicate != second.duplicate
            score += first.is_correct
            prompt = (second if first.duplicate else first).next
        return score

    expected = await asyncio.gather(*(learner(a, i) for i, a in enumerate(learners)))
    for actor, score in zip(learners, expected, strict=True):
        assert await stores[1].read(sessions_sql.attempts,
                                    "telegram", actor.user_id, "parallelism") == (
            1, score, score)
        finished = await stores[0].read(sessions_sql.last_finished,
                                        "telegram", actor.user_id, "parallelism")
        assert finished is not None and len(await stores[0].read(sessions_sql.answers,
                                                                 finished.id)) == 8


async def test_an_attempts_seed_is_kept_and_a_rounds_seed_reaches_its_members(
        any_store: Store):
    from bot.store.round_rows import NewPress, NewRound

    store = any_store
    await sessions_sql.touch_user(store, "t", "1", "T", time.time())
    seeded = NewSession("t", "1", None, "quiz", SessionKind.FULL, QUESTIONS,
                        ((0, 1), (1, 0), (0, 1)), seed=2**62 + 7,  # needs 64 bits
                        started_at=time.time())
    row = await store.write(sessions_sql.start_session, seeded, replace=False)
    assert row.seed == 2**62 + 7
    again = await store.read(sessions_sql.get_session, row.id)
    assert again is not None and again.seed == 2**62 + 7
    plain = await store.write(sessions_sql.start_session, new_session(quiz="other"), replace=False)
    assert plain.seed is None
    rnd = await store.write(rounds_sql.create_round,
                            NewRound("t", "g", "g", "1", "H", "quiz", "en", ("a",),
                                            ((0, 1),), 30, 1.0, seed=-5), 1000.0)
    assert rnd is not None and rnd.seed == -5
    await store.write(rounds_sql.open_due_questions, "t", 1000.0)
    await store.write(rounds_sql.press_round, NewPress(rnd.id, 0, "2", "U2", 0, True, 1001.0))
    assert await store.write(rounds_sql.reveal_due_questions, "t", 1031.0) == [(rnd.id, 0)]
    done = await store.read(rounds_sql.get_round, rnd.id)
    assert done is not None and done.status == "finished" and done.seed == -5
    member = await store.read(sessions_sql.last_finished, "t", "2", "quiz")
    assert member is not None and member.seed == -5


async def test_the_latest_unfinished_attempt_of_a_kind(any_store: Store):
    """/quiz with no quiz named continues the latest unfinished full attempt in a private
    chat: a spaced review opened after it, or an attempt in a group, is not it."""
    store, now = any_store, time.time()
    await sessions_sql.touch_user(store, "t", "1", "T", now)

    def private(quiz: str, kind: SessionKind, at: float) -> NewSession:
        return replace(new_session(quiz=quiz), chat_id=None, kind=kind, started_at=at)

    await store.write(sessions_sql.start_session, private("older", SessionKind.FULL, now - 9),
                      replace=False)
    full = await store.write(sessions_sql.start_session,
                             private("numbers", SessionKind.FULL, now - 5), replace=False)
    due = await store.write(sessions_sql.start_session, private("due", SessionKind.DUE, now - 1),
                            replace=False)
    await store.write(sessions_sql.start_session, new_session(quiz="group"), replace=False)
    latest = await store.read(sessions_sql.open_session, "t", "1", SessionKind.FULL.value)
    assert latest is not None and latest.id == full.id
    anything = await store.read(sessions_sql.open_session, "t", "1")
    assert anything is not None and anything.id == due.id
