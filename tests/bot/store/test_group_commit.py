"""A batch of writes and a batch of reads each cost one hop to their connection's thread
(`bot.store.sqlite_thread`, a thread the store owns: no private aiosqlite call); the tap's
point reads cost none."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.domain.errors import SaveFailed
from bot.store.commands import learning_sql, sessions_sql
from bot.store.group_commit import storage_failure, storage_hint
from bot.store.sqlite import SQLiteStore
from bot.store.sqlite_thread import SQLiteThread

TAPS = 200


def count_hops(conn: SQLiteThread) -> list[Callable[..., Any]]:
    """Every function sent to the connection's thread from now on (calls pass through)."""
    sent: list[Callable[..., Any]] = []
    real = conn.submit

    def spy(fn: Callable[..., Any], *args: Any) -> Any:
        sent.append(fn)
        return real(fn, *args)

    conn.submit = spy  # type: ignore[method-assign]
    return sent


async def test_a_batch_of_writes_and_a_batch_of_reads_are_one_hop_each(tmp_path: Path):
    store = await SQLiteStore.open(tmp_path / "q.db")
    try:
        writes, reads = count_hops(store._w), count_hops(store._r)
        commits = store.commits
        await asyncio.gather(*(store.write(sessions_sql.set_language,
                                           "t", str(i), "ur", time.time()) for i in range(TAPS)))
        # One hop drains the queue, batch after batch (the first alone, then the rest): one hop
        # per write would be 200. On a busy machine the thread may empty the queue while the
        # loop is still filling it, and the next write starts a new hop: a few, never many.
        assert len(writes) <= 5 and len(writes) <= store.commits - commits <= 6
        totals = await asyncio.gather(*(store.read(learning_sql.review_totals, "t", str(i))
                                        for i in range(TAPS)))
        assert totals == [[]] * TAPS and len(reads) <= 5
    finally:
        await store.close()


async def test_closing_twice_is_harmless(tmp_path: Path):
    store = await SQLiteStore.open(tmp_path / "q.db")
    await store.close()
    await store.close()  # e.g. a shutdown path and an exit stack both closing it


async def test_the_taps_point_reads_run_on_the_event_loop(tmp_path: Path):
    """A tap reads its session (and a finished quiz its answers): no trip to the reader's
    thread, and what the writer committed is there."""
    store = await SQLiteStore.open(tmp_path / "q.db")
    try:
        writes, reads = count_hops(store._w), count_hops(store._r)
        await store.write(sessions_sql.set_language, "t", "1", "ur", time.time())
        assert await sessions_sql.touch_user(store, "t", "1", "", time.time()) == "ur"
        assert await store.read(sessions_sql.session_and_answer, 1, 0) == (None, None)
        assert await store.read(sessions_sql.answers, 1) == []
        assert len(writes) == 1 and reads == []
    finally:
        await store.close()


def test_a_database_another_program_holds_says_so(tmp_path: Path) -> None:
    """`quizbot play` while an sqlite3 shell (or a backup) holds the file's lock: 'database
    is locked; another program holds it … close it', not 'check the database file and its
    disk', which sent a learner looking for a broken disk. (Still no storage failure: the
    write is not retried as one the disk refused.)"""
    path = tmp_path / "held.db"
    holder = sqlite3.connect(path, isolation_level=None)
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        holder.execute("CREATE TABLE t (x)")
        holder.execute("BEGIN EXCLUSIVE")
        try:
            other.execute("INSERT INTO t VALUES (1)")
        except sqlite3.OperationalError as exc:
            busy = exc
        else:
            raise AssertionError("the write was not refused")
    finally:
        other.close()
        holder.close()
    assert "another program holds it" in storage_hint(busy)
    assert "disk" not in storage_hint(busy) and not storage_failure(busy)


async def test_a_lock_another_program_holds_fails_the_batch_once_as_not_saved(
        tmp_path: Path, monkeypatch: Any, caplog: Any) -> None:
    """An sqlite3 shell holding the write lock past the busy timeout: every write queued
    then is told 'not saved, try again' after one wait. Each used to be retried alone, one
    more busy timeout per write (4 taps: 25 s with the writer stuck for every learner), and
    to raise a bare OperationalError, which the adapters logged as a bug with an apology."""
    monkeypatch.setattr("bot.store.sqlite.BUSY_TIMEOUT_MS", 200)
    path = tmp_path / "q.db"
    store = await SQLiteStore.open(path)
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        begins: list[str] = []
        await store._w.run(lambda db: db.set_trace_callback(
            lambda sql: begins.append(sql) if sql.startswith("BEGIN") else None))
        holder.execute("BEGIN IMMEDIATE")
        outcomes = await asyncio.gather(
            *(store.write(sessions_sql.set_language, "t", str(i), "ur", time.time())
              for i in range(4)), return_exceptions=True)
        assert all(isinstance(o, SaveFailed) for o in outcomes), outcomes
        assert 1 <= len(begins) <= 2, begins  # the batch waited once, not once more per write
        warnings = [r.getMessage() for r in caplog.records if r.name == "bot.store.group_commit"]
        assert len(warnings) <= 2 and "another program holds it" in warnings[0]
        holder.execute("ROLLBACK")  # let go: the next write goes through
        await store.write(sessions_sql.set_language, "t", "1", "ur", time.time())
        assert await sessions_sql.touch_user(store, "t", "1", "", time.time()) == "ur"
    finally:
        holder.close()
        await store.close()
