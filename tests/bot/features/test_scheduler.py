"""The due-job scheduler: claimed once across processes, resumed after a crash, paced (the
store tests on SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import functools
import itertools
from pathlib import Path

import pytest

from bot.features.jobs import Pace, Scheduler, next_due
from bot.store.commands import inbox_sql, jobs_sql, rounds_sql, sessions_sql
from bot.store.protocol import Store
from bot.store.round_rows import NewRound
from bot.store.rows import JobRow, NewJob
from bot.store.sqlite import SQLiteStore
from tests.backends import Opener
from tests.clock import FakeClock


@pytest.fixture
def store(backend_store: Store) -> Store:
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_store


async def test_two_processes_never_both_claim_a_job(open_store: Opener):
    a, b = await open_store(), await open_store()
    for i in range(50):
        await a.write(jobs_sql.schedule, NewJob("t", f"k{i}", 100.0 + i, {"i": i}))
    claims = await asyncio.gather(*(s.write(jobs_sql.claim_due, 200.0, 7, name, 60.0)
                                    for _ in range(10) for s, name in ((a, "A"), (b, "B"))))
    jobs = [job for batch in claims for job in batch]
    ids = [job.id for job in jobs]
    assert len(ids) == len(set(ids)) == 50
    assert sorted(job.payload["i"] for job in jobs) == list(range(50))
    assert all(job.attempts == 1 for job in jobs)  # no job was claimed (and counted) twice
    assert await a.write(jobs_sql.claim_due, 200.0, 100, "A", 60.0) == []  # all held, none expired
    assert await b.write(jobs_sql.claim_due, 200.0, 100, "B", 60.0) == []


async def test_a_claim_takes_at_most_its_limit(open_store: Opener):
    """PostgreSQL may run a LIMIT ... SKIP LOCKED subquery inside IN (...) more than once;
    the claim picks in a materialized CTE, so a batch is never larger than asked."""
    a, b = await open_store(), await open_store()
    for i in range(40):
        await a.write(jobs_sql.schedule, NewJob("t", f"k{i}", 100.0 + i))
    for limit in (1, 2, 3):
        batches = await asyncio.gather(a.write(jobs_sql.claim_due, 200.0, limit, "A", 60.0),
                                       b.write(jobs_sql.claim_due, 200.0, limit, "B", 60.0))
        assert all(len(batch) == limit for batch in batches), [len(x) for x in batches]


async def test_next_job_due_is_a_read_of_the_earliest_claimable_time(store: Store):
    assert await store.read(jobs_sql.next_job_due, ("t",), 60.0) is None
    await store.write(jobs_sql.schedule, NewJob("t", "a", 500.0))
    await store.write(jobs_sql.schedule, NewJob("t", "b", 100.0))
    await store.write(jobs_sql.schedule, NewJob("other", "c", 5.0))  # a kind this loop does not run
    assert await store.read(jobs_sql.next_job_due, ("t",), 60.0) == 100.0
    assert await store.read(jobs_sql.next_job_due, ("t", "other"), 60.0) == 5.0
    [claimed] = await store.write(jobs_sql.claim_due, 150.0, 1, "A", 60.0, ("t",))
    assert claimed.key == "b"
    # b is held until its lease ends at 210; a is due at 500
    assert await store.read(jobs_sql.next_job_due, ("t",), 60.0) == 210.0
    assert await store.read(jobs_sql.next_job_due, (), 60.0) is None


async def test_only_due_jobs_oldest_first_and_finish_is_guarded(store: Store):
    await store.write(jobs_sql.schedule, NewJob("t", "late", 50.0))
    await store.write(jobs_sql.schedule, NewJob("t", "early", 10.0))
    await store.write(jobs_sql.schedule, NewJob("t", "future", 500.0))
    jobs = await store.write(jobs_sql.claim_due, 100.0, 10, "A", 60.0)
    assert [j.key for j in jobs] == ["early", "late"]
    # The lease runs out (A died): B claims again; A finishing late changes nothing.
    again = await store.write(jobs_sql.claim_due, 200.0, 10, "B", 60.0)
    assert [j.key for j in again] == ["early", "late"] and again[0].attempts == 2
    assert not await store.write(jobs_sql.finish_job, jobs[0], None)
    assert await store.write(jobs_sql.finish_job, again[0], None)  # done: gone
    assert await store.write(jobs_sql.finish_job, again[1], 1000.0)  # moved on, unclaimed
    assert [j.key for j in await store.write(jobs_sql.claim_due,
                                             999.0, 10, "C", 60.0)] == ["future"]
    assert [j.key for j in await store.write(jobs_sql.claim_due, 1000.0, 10, "C", 60.0)] == ["late"]


async def test_rescheduling_a_key_replaces_its_job(store: Store):
    await store.write(jobs_sql.schedule, NewJob("t", "k", 10.0, {"v": 1}))
    [held] = await store.write(jobs_sql.claim_due, 20.0, 10, "A", 60.0)
    await store.write(jobs_sql.schedule,
                      NewJob("t", "k", 30.0, {"v": 2}))  # e.g. a new /remind time
    assert not await store.write(jobs_sql.finish_job, held, 99.0)  # the old run must not undo it
    [job] = await store.write(jobs_sql.claim_due, 30.0, 10, "A", 60.0)
    assert job.payload == {"v": 2} and job.due_at == 30.0
    assert await store.write(jobs_sql.cancel_job, "k")
    assert not await store.write(jobs_sql.cancel_job, "k")


async def test_scheduler_runs_each_job_once_and_backs_off_failures(store: Store):
    clock = FakeClock(1000.0)
    runs: list[str] = []

    async def handler(job: JobRow) -> float | None:
        runs.append(job.key)
        if job.key == "bad":
            raise RuntimeError("boom")
        return None

    for key in ("a", "b", "bad"):
        await store.write(jobs_sql.schedule, NewJob("t", key, 900.0))
    scheduler = Scheduler(store, {"t": handler}, clock=clock, batch=2)
    assert await scheduler.run_until_idle() == 3
    assert sorted(runs) == ["a", "b", "bad"]
    assert await scheduler.tick() == 0  # "bad" waits out its backoff
    clock.advance(31)
    assert await scheduler.tick() == 1 and runs[-1] == "bad"


async def test_pace_hands_out_slots_at_the_rate():
    clock = FakeClock(0.0)
    pace = Pace(30.0, clock=clock, sleep=clock.sleep)
    times = []
    for _ in range(91):
        await pace.wait()
        times.append(clock.now)
    assert abs(times[-1] - 3.0) < 1e-6  # 91 sends: the first at 0, then one per 1/30 s
    assert all(b - a >= 1 / 30 - 1e-9 for a, b in itertools.pairwise(times))


async def test_migration_6_keeps_sessions_and_answers_of_an_older_database(tmp_path: Path):
    """Rebuilding `sessions` must not cascade into `answers` (foreign keys off meanwhile)."""
    import sqlite3

    from bot.store.migrate import migrate_sqlite, migrations

    path = tmp_path / "old.db"
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA foreign_keys = ON")
        migrate_sqlite(db, [m for m in migrations("sqlite") if m[0] <= 3])
        db.execute("INSERT INTO users VALUES ('telegram', '1', 'Ali', 'ur', 0)")
        db.execute(
            "INSERT INTO sessions (id, platform, user_id, quiz_id, kind, status, question_ids, "
            "option_orders, position, score, started_at) VALUES (5, 'telegram', '1', "
            "'parallelism', 'review', 'active', '[\"a\", \"b\"]', '[[0, 1], [1, 0]]', 1, 1, 0)")
        db.execute("INSERT INTO answers VALUES (5, 0, 'a', 0, 1, 0)")
    finally:
        db.close()
    store = await SQLiteStore.open(path)
    try:
        row = await store.read(sessions_sql.get_session, 5)
        assert row is not None and row.position == 1 and row.lang == "ur"
        assert [a.question_id for a in await store.read(sessions_sql.answers, 5)] == ["a"]
        from bot.store.command import Command, Rows, q

        def keys() -> Command[Rows]:
            return (yield q("PRAGMA foreign_keys"))

        rows = await store.write(keys)
        assert rows[0][0] == 1  # back on for the writer's own work
        await store.write(sessions_sql.reset_user, "telegram", "1")  # and cascading again
        assert await store.read(sessions_sql.answers, 5) == []
    finally:
        await store.close()


async def test_a_job_waiting_in_its_lane_when_its_kind_is_withdrawn_is_handed_back(
        store: Store, caplog: pytest.LogCaptureFixture):
    """A round's next post, claimed while the one before it ran, used to fail as 'no handler
    for job kind' (an ERROR, and a retry a second later) when the platform stopped."""
    clock = FakeClock(1000.0)
    started, release = asyncio.Event(), asyncio.Event()
    runs: list[str] = []

    async def handler(job: JobRow) -> float | None:
        runs.append(job.key)
        started.set()
        await release.wait()
        return None

    for key in ("first", "second"):
        await store.write(jobs_sql.schedule, NewJob("t", key, 900.0 + len(runs)))
    scheduler = Scheduler(store, clock=clock, batch=2)
    scheduler.register("t", handler, lane=lambda job: "one lane")
    ticked = asyncio.create_task(scheduler.tick())  # both claimed; the second waits
    await asyncio.wait_for(started.wait(), 5)
    withdrawn = asyncio.create_task(scheduler.withdraw(("t",)))
    await asyncio.sleep(0)
    release.set()
    assert await asyncio.wait_for(ticked, 5) == 2
    await asyncio.wait_for(withdrawn, 5)
    assert runs == ["first"]
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    [job] = await store.write(jobs_sql.claim_due, clock(), 10, "B", 60.0, ("t",))
    assert job.key == "second"  # unclaimed at once, for another process to run


async def test_a_process_claims_only_the_kinds_it_runs(store: Store):
    await store.write(jobs_sql.schedule, NewJob("remind:discord", "d", 10.0))
    await store.write(jobs_sql.schedule, NewJob("remind:telegram", "t", 20.0))
    assert await store.write(jobs_sql.claim_due, 100.0, 10, "A", 60.0, ()) == []
    [job] = await store.write(jobs_sql.claim_due, 100.0, 10, "A", 60.0, ("remind:telegram",))
    assert job.key == "t"
    [job] = await store.write(jobs_sql.claim_due, 100.0, 10, "B", 60.0, ("remind:discord", "x"))
    assert job.key == "d"


async def test_the_loop_sleeps_until_the_next_due_time_and_backs_off_a_failure(store: Store):
    """One read, then a wait to the due time (no polling in between); a failing job comes
    back after 1, then 2 seconds (its attempts are kept), and a job another process would
    write is seen at the next recheck."""
    clock = FakeClock(1000.0)
    waits: list[float] = []
    runs: asyncio.Queue[tuple[str, float]] = asyncio.Queue()

    async def wait(wakeup: asyncio.Event, seconds: float) -> None:
        waits.append(seconds)
        await scheduler.idle()  # the jobs in flight end first (no time passes meanwhile)
        if not wakeup.is_set():
            clock.advance(seconds)

    async def handler(job: JobRow) -> float | None:
        runs.put_nowait((job.key, clock()))
        if job.key == "flaky" and job.attempts < 3:
            raise RuntimeError("not yet")
        return None

    await store.write(jobs_sql.schedule, NewJob("t", "later", 1045.0))
    scheduler = Scheduler(store, {"t": handler}, clock=clock, wait=wait, recheck=30.0)
    scheduler.start()
    try:
        assert await asyncio.wait_for(runs.get(), 5) == ("later", 1045.0)
        assert waits[:2] == [30.0, 15.0]  # the recheck, then exactly to the due time
        await store.write(jobs_sql.schedule, NewJob("t", "flaky", clock()))
        tries = [await asyncio.wait_for(runs.get(), 5) for _ in range(3)]
        assert [key for key, _ in tries] == ["flaky"] * 3
        assert [round(b[1] - a[1]) for a, b in itertools.pairwise(tries)] == [1, 2]
    finally:
        await scheduler.stop()
    assert await store.read(jobs_sql.next_job_due, ("t",), 60.0) is None  # done: gone


async def test_one_read_tells_when_jobs_and_each_followed_work_are_due(store: Store):
    """The loop's one read before it sleeps: the next job of its kinds, and each followed
    work's next due time (a platform's rounds, the webhook inbox's next lease to run out)."""
    rounds = [functools.partial(rounds_sql.next_round_due, p) for p in ("x", "t")]
    inbox = functools.partial(inbox_sql.inbox_next, "telegram")
    assert await store.read(next_due, (), 60.0, []) == (None, [])
    await store.write(jobs_sql.schedule, NewJob("remind:t", "k", 1500.0))
    new = NewRound("t", "g", "g", "1", "H", "quiz", "en", ("a",), ((0, 1),), 30, 1.0)
    assert await store.write(rounds_sql.create_round, new, 1000.0) is not None
    await store.write(inbox_sql.inbox_put, "telegram", 7, "{}", 990.0, 1004.0)
    # the job of a kind this process runs, the rounds of the platforms it serves, the inbox
    assert await store.read(next_due, ("remind:t",), 60.0, [*rounds, inbox]) == \
        (1500.0, [None, 1000.0, 1004.0])
    assert await store.read(next_due, ("remind:x",), 60.0, rounds[:1]) == (None, [None])
    await store.write(rounds_sql.open_due_questions, "t", 1000.0)  # its deadline next
    await store.write(inbox_sql.inbox_done, "telegram", 7, 1001.0)  # nothing undone
    assert await store.read(next_due, (), 60.0, [rounds[1], inbox]) == (None, [1030.0, None])
