"""The learning and round halves of the Store contract under races, on SQLite and
PostgreSQL: two stores on one database stand in for two processes. Whatever the
interleaving, a review moves its card once, concurrent reviews of one card all count, a
press is either in its question's reveal or refused as late, and "everyone has answered"
is seen exactly once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg

from bot.domain.results import SessionKind
from bot.store.commands import boards_sql, learning_sql, rounds_sql, sessions_sql
from bot.store.protocol import Store
from bot.store.round_rows import NewPress, NewRound, Pressed, PressWrite
from bot.store.rows import NewAnswer, NewReview, NewSession, Write, review_key
from tests.bot.store.conftest import Opener

T0 = 1_800_000_000.0


def counting(stored: str | None) -> tuple[str, float]:
    """A pure card update that counts how many times it was applied on top of each other."""
    n = json.loads(stored)["n"] if stored is not None else 0
    return json.dumps({"n": n + 1}), T0 + n + 1


def review(key: str, *, user: str = "1", question: str = "q1", sure: bool | None = None
           ) -> NewReview:
    return NewReview(key, "t", user, "quiz", question, True, sure, 3, T0, counting)


async def test_one_review_through_two_processes_moves_the_card_once(open_store: Opener):
    one, two = await open_store(), await open_store()
    results = await asyncio.gather(*(s.write(learning_sql.apply_review_alone,
                                             review("r:1")) for s in (one, two) * 4))
    assert sorted(results) == [False] * 7 + [True]
    [card] = await two.read(learning_sql.cards, "t", "1")
    assert (card.reviews, json.loads(card.card)) == (1, {"n": 1})
    assert [(t.answered, t.correct) for t in await one.read(learning_sql.review_totals,
                                                            "t", "1")] == [(1, 1)]


@contextlib.asynccontextmanager
async def learner_settings_held(url: str) -> AsyncIterator[Callable[[int], Awaitable[None]]]:
    """On PostgreSQL, hold a lock every `apply_review` waits on (it reads the learner's
    offset first), and yield `until(n)`: returns once n transactions wait on it. Released,
    they all go on at once: the race on creating one card is then certain to happen. (SQLite
    has one writer at a time: nothing to hold; `until` returns at once.)"""
    if not url.startswith("postgresql"):
        async def at_once(n: int) -> None:
            pass

        yield at_once
        return
    conn = await asyncpg.connect(url)
    try:
        async def until(n: int) -> None:
            for _ in range(1000):  # a bounded poll of the server's own view, not a guess
                waiting = await conn.fetchval(
                    "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND wait_event_type = 'Lock'")
                if waiting >= n:
                    return
                await asyncio.sleep(0.01)
            raise AssertionError(f"only {waiting} of {n} transactions came to wait")

        async with conn.transaction():
            await conn.execute("LOCK TABLE learner_settings IN ACCESS EXCLUSIVE MODE")
            yield until
    finally:
        await conn.close()


async def test_concurrent_reviews_of_a_new_card_all_move_it(open_store: Opener, store_url: str):
    one, two = await open_store(), await open_store()
    # so that no review waits on another's new user row
    await sessions_sql.touch_user(one, "t", "1", "T", time.time())
    keys = [f"r:{i}" for i in range(12)]
    async with learner_settings_held(store_url) as until:
        pending = asyncio.gather(*(s.write(learning_sql.apply_review_alone, review(k))
                                   for k, s in zip(keys, (one, two) * 6, strict=True)))
        await until(4)  # at least the two connections each pool opens up front
    results = await pending
    assert all(results)
    [card] = await one.read(learning_sql.cards, "t", "1")
    # Each update started from the card the one before it wrote: none was lost.
    assert (card.reviews, json.loads(card.card), card.due_at) == (12, {"n": 12}, T0 + 12)
    assert await two.read(learning_sql.next_due, "t", "1") == (1, T0 + 12)
    assert await two.read(learning_sql.due_count, "t", "1", T0 + 12) == 1 and \
        await two.read(learning_sql.due_count, "t", "1", T0 + 11) == 0


async def test_a_tap_with_its_review_through_two_processes_counts_once(open_store: Opener):
    one, two = await open_store(), await open_store()
    await sessions_sql.touch_user(one, "t", "1", "T", time.time())
    sid = (await one.write(sessions_sql.start_session,
                           NewSession("t", "1", None, "quiz", SessionKind.FULL,
                                              ("q1", "q2"), ((0, 1), (1, 0)),
                                              started_at=time.time()),
                           replace=False)).id
    tap = NewAnswer(sid, 0, "q1", 0, True, False, review=review(review_key(sid, 0), sure=True),
                    answered_at=time.time())
    outcomes = await asyncio.gather(*(s.write(sessions_sql.record_answer,
                                              tap) for s in (one, two) * 3))
    assert sorted(o.outcome for o in outcomes) == [Write.APPLIED] + [Write.REPEAT] * 5
    [card] = await two.read(learning_sql.cards, "t", "1")
    assert card.reviews == 1 and json.loads(card.card) == {"n": 1}
    [total] = await one.read(learning_sql.review_totals, "t", "1")
    assert (total.question_id, total.sure, total.answered) == ("q1", True, 1)
    assert await one.write(sessions_sql.reset_user, "t", "1") == 1
    assert await two.read(learning_sql.cards,
                          "t", "1") == [] and await two.read(learning_sql.review_totals,
                                                             "t", "1") == []
    assert await two.read(learning_sql.review_days, "t", "1", 0) == []


async def _round_at_question_1(store: Store, members: list[str]) -> int:
    """A round whose question 0 everyone answered and question 1 is open until T0 + 100."""
    rnd = await store.write(rounds_sql.create_round,
                            NewRound("t", "g", "g", members[0], "Host", "quiz", "en",
                                            ("a", "b", "c"), ((0, 1), (0, 1), (0, 1)),
                                            40, 5.0), T0)
    assert rnd is not None
    assert await store.write(rounds_sql.open_due_questions, "t", T0) == [(rnd.id, 0)]
    for user in members:
        press = NewPress(rnd.id, 0, user, f"U{user}", 1, True, T0 + 1)
        assert (await store.write(rounds_sql.press_round, press)).outcome == PressWrite.LOCKED
    assert await store.write(rounds_sql.reveal_due_questions, "t", T0 + 40) == [(rnd.id, 0)]
    assert await store.write(rounds_sql.open_due_questions, "t", T0 + 60) == [(rnd.id, 1)]
    post = await store.read(rounds_sql.round_post, rnd.id, 1)
    assert post is not None and post.deadline == T0 + 100
    return rnd.id


async def test_the_last_of_concurrent_presses_alone_reveals_early(open_store: Opener):
    one, two = await open_store(), await open_store()
    members = [str(i) for i in range(8)]
    round_id = await _round_at_question_1(one, members)
    presses = [NewPress(round_id, 1, u, f"U{u}", int(u) % 2, u == "3", T0 + 70)
               for u in members]
    pressed = await asyncio.gather(*(s.write(rounds_sql.press_round, p)
                                     for p, s in zip(presses, (one, two) * 4, strict=True)))
    assert all(p.outcome == PressWrite.LOCKED for p in pressed)
    assert sum(p.early for p in pressed) == 1  # every member answered: seen exactly once
    assert await two.read(rounds_sql.next_round_due,
                          "t") == T0 + 70  # the deadline moved to the last press
    assert await one.write(rounds_sql.reveal_due_questions, "t", T0 + 70) == [(round_id, 1)]
    revealed = await two.read(rounds_sql.round_answers, round_id, 1)
    assert sorted(a.user_id for a in revealed if a.qindex == 1) == members
    again = await asyncio.gather(one.write(rounds_sql.press_round,
                                           presses[3]), two.write(rounds_sql.press_round,
                                                                  presses[3]))
    assert [(p.outcome, p.chosen) for p in again] == [(PressWrite.REPEAT, 1)] * 2
    newcomer = NewPress(round_id, 1, "new", "New", 0, True, T0 + 70)
    assert (await two.write(rounds_sql.press_round,
                            newcomer)).outcome == PressWrite.LATE  # revealed


async def test_a_press_racing_the_reveal_is_in_it_or_late(open_store: Opener):
    one, two = await open_store(), await open_store()
    round_id = await _round_at_question_1(one, ["h"])
    late = [NewPress(round_id, 1, str(u), f"U{u}", 0, True, T0 + 99.5) for u in range(10)]

    async def press_all() -> list[Pressed]:
        return await asyncio.gather(*(s.write(rounds_sql.press_round, p)
                                      for p, s in zip(late, (two, one) * 5, strict=True)))

    async def reveal_both() -> list[tuple[int, int]]:
        both = await asyncio.gather(one.write(rounds_sql.reveal_due_questions, "t", T0 + 100),
                                    two.write(rounds_sql.reveal_due_questions, "t", T0 + 100))
        return [r for batch in both for r in batch]

    pressed, reveals = await asyncio.gather(press_all(), reveal_both())
    assert reveals == [(round_id, 1)]  # two stores, one reveal
    assert {p.outcome for p in pressed} <= {PressWrite.LOCKED, PressWrite.LATE}
    locked = {p.user_id for p, r in zip(late, pressed, strict=True)
              if r.outcome == PressWrite.LOCKED}
    revealed = await one.read(rounds_sql.round_answers, round_id, 1)  # what its post shows
    assert {a.user_id for a in revealed if a.qindex == 1} == locked
    stopped = await two.write(rounds_sql.stop_round, round_id, T0 + 101)
    assert stopped == (1, "s")  # nothing open: none revealed again, the standings are shown
    assert await one.write(rounds_sql.stop_round, round_id, T0 + 102) is None  # stopped once
    board = await one.read(boards_sql.board, "quiz", "t", "g", rounds=True, limit=50)
    assert {b.user_id for b in board} == locked | {"h"}  # every participant's session
