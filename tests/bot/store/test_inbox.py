"""The webhook inbox on SQLite and PostgreSQL: stored once, claimed once per lease, done is
done; two stores on one database stand in for two worker processes."""

from __future__ import annotations

import asyncio

from bot.store.commands import inbox_sql
from bot.store.protocol import Store
from tests.bot.store.conftest import Opener

BODY = '{"update_id": 7, "message": {"text": "/quiz"}}'


async def test_an_update_is_stored_once_and_claimed_by_its_receiver(open_store: Opener):
    a, b = await open_store(), await open_store()
    puts = await asyncio.gather(a.write(inbox_sql.inbox_put, "telegram", 7, BODY, 100.0, 110.0),
                                b.write(inbox_sql.inbox_put, "telegram", 7, BODY, 100.0, 110.0))
    assert sorted(puts) == [False, True]  # a second delivery is nothing to do
    assert await a.write(inbox_sql.inbox_put,
                         "discord", 7, BODY, 100.0, 110.0)  # ids are per platform
    # held by its receiver until the lease runs out
    assert await b.read(inbox_sql.inbox_next, "telegram") == 110.0
    assert await b.read(inbox_sql.inbox_next, "matrix") is None
    assert await b.write(inbox_sql.inbox_claim, "telegram", 105.0, 115.0, 10) == []
    await a.write(inbox_sql.inbox_renew, "telegram", [7], 130.0)
    assert await b.write(inbox_sql.inbox_claim, "telegram", 120.0, 140.0, 10) == []


async def test_a_lost_worker_s_update_is_claimed_again_by_one_other(open_store: Opener):
    dead, *others = [await open_store() for _ in range(3)]
    for uid in (3, 1, 2):
        assert await dead.write(inbox_sql.inbox_put,
                                "telegram", uid, f'{{"update_id": {uid}}}', 100.0 + uid,
                                110.0)
    # after the lease: each update goes to exactly one of the racing workers
    claims = await asyncio.gather(*(s.write(inbox_sql.inbox_claim, "telegram", 120.0, 130.0, 10)
                                    for s in others))
    got = [row for claim in claims for row in claim]
    assert sorted(r.update_id for r in got) == [1, 2, 3]
    assert {r.attempts for r in got} == {2}
    assert next(r.body for r in got if r.update_id == 2) == '{"update_id": 2}'
    assert await others[0].write(inbox_sql.inbox_claim, "telegram", 125.0, 135.0, 10) == []


async def test_done_is_never_claimed_again_and_is_pruned_later(any_store: Store):
    store = any_store
    for uid in (1, 2):
        await store.write(inbox_sql.inbox_put, "telegram", uid, BODY, 100.0, 110.0)
    await store.write(inbox_sql.inbox_done, "telegram", 1, 101.0)
    await store.write(inbox_sql.inbox_renew, "telegram", [1], 500.0)  # done stays done
    again = await store.write(inbox_sql.inbox_claim, "telegram", 200.0, 210.0, 10)
    assert [r.update_id for r in again] == [2]
    await store.write(inbox_sql.inbox_done, "telegram", 2, 205.0)
    assert await store.write(inbox_sql.inbox_claim, "telegram", 1000.0, 1010.0, 10) == []
    # a repeat delivery after processing still counts once
    assert not await store.write(inbox_sql.inbox_put, "telegram", 1, BODY, 300.0, 310.0)
    assert await store.write(inbox_sql.inbox_prune, 102.0) == 1
    assert await store.write(inbox_sql.inbox_prune, 1000.0) == 1
    assert await store.write(inbox_sql.inbox_put,
                             "telegram", 1, BODY, 2000.0, 2010.0)  # pruned: forgotten


async def test_claims_take_the_oldest_first_up_to_the_limit(any_store: Store):
    store = any_store
    for uid, at in ((10, 3.0), (11, 1.0), (12, 2.0)):
        await store.write(inbox_sql.inbox_put, "telegram", uid, BODY, at, 5.0)
    first = await store.write(inbox_sql.inbox_claim, "telegram", 6.0, 60.0, 2)
    assert sorted(r.update_id for r in first) == [11, 12]
    await store.write(inbox_sql.inbox_renew, "telegram", [], 99.0)  # nothing in flight: a no-op


async def test_two_workers_holding_one_update_reply_once(open_store: Opener):
    # a slow worker's lease ran out and another took the update over: both reach the
    # reply; the done mark each asks for first lets exactly one of them send it
    slow, taker = await open_store(), await open_store()
    assert await slow.write(inbox_sql.inbox_put, "telegram", 9, BODY, 100.0, 110.0)
    [row] = await taker.write(inbox_sql.inbox_claim, "telegram", 120.0, 130.0, 10)
    assert row.update_id == 9
    marks = await asyncio.gather(slow.write(inbox_sql.inbox_done, "telegram", 9, 121.0),
                                 taker.write(inbox_sql.inbox_done, "telegram", 9, 121.0))
    assert sorted(marks) == [False, True]
    assert await slow.write(inbox_sql.inbox_claim,
                            "telegram", 200.0, 210.0, 10) == []  # done is done
