"""Knowing our own files: application_id, databases from before it, refusals that leave the
file and its folder byte-identical, and storage errors as SaveFailed."""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path

import pytest

from bot.domain.errors import SaveFailed, StoreRefused, StoreUnavailable
from bot.store.commands import sessions_sql
from bot.store.group_commit import storage_failure
from bot.store.migrate import APPLICATION_ID, application_id, migrate_sqlite, migrations
from bot.store.sqlite import SQLiteStore


def listing(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def app_id_of(path: Path) -> int:
    return application_id(path.read_bytes()[:100])


async def test_a_database_from_before_application_id_is_recognised_and_marked(tmp_path: Path):
    path = tmp_path / "q.db"
    conn = sqlite3.connect(path, isolation_level=None)  # schema version 3
    try:
        migrate_sqlite(conn, [m for m in migrations() if m[0] <= 3])
        conn.execute("PRAGMA application_id = 0")
    finally:
        conn.close()
    assert app_id_of(path) == 0
    store = await SQLiteStore.open(path)
    await store.close()
    assert app_id_of(path) == APPLICATION_ID
    db = sqlite3.connect(path)
    try:
        versions = [r[0] for r in db.execute("SELECT version FROM schema_migrations")]
    finally:
        db.close()
    assert versions == [v for v, _, _ in migrations()]


async def test_migration_0004_sets_the_id_the_code_checks(tmp_path: Path):
    await (await SQLiteStore.open(tmp_path / "q.db")).close()
    assert app_id_of(tmp_path / "q.db") == APPLICATION_ID
    sql = next(s for v, _, s in migrations() if v == 4)
    assert f"application_id = {APPLICATION_ID};" in sql


async def test_refusing_a_corrupt_database_adds_no_wal_or_shm(tmp_path: Path):
    path = tmp_path / "q.db"
    store = await SQLiteStore.open(path)
    for i in range(300):
        await sessions_sql.touch_user(store, "t", f"user-{i}", "x" * 300, time.time())
    await store.close()
    data = bytearray(path.read_bytes())
    for offset in range(4096 * 2, len(data) - 4096, 4096):
        data[offset + 100 : offset + 400] = b"\xde\xad\xbe\xef" * 75
    path.write_bytes(bytes(data))
    before = listing(tmp_path)
    with pytest.raises(StoreRefused, match="corrupt"):
        await SQLiteStore.open(path)
    assert listing(tmp_path) == before


async def test_an_empty_version_table_of_someone_else_is_refused(tmp_path: Path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                     "name TEXT NOT NULL, applied_at REAL NOT NULL); CREATE TABLE t (x);")
    db.close()
    before = listing(tmp_path)
    with pytest.raises(StoreRefused, match="not quizbot's"):
        await SQLiteStore.open(path)
    assert listing(tmp_path) == before


def test_only_storage_errors_count_as_save_failures():
    full = sqlite3.OperationalError("database or disk is full")
    full.sqlite_errorcode = sqlite3.SQLITE_FULL  # type: ignore[attr-defined]
    ioerr = sqlite3.OperationalError("disk I/O error")
    ioerr.sqlite_errorcode = sqlite3.SQLITE_IOERR_WRITE  # type: ignore[attr-defined]
    bug = sqlite3.OperationalError("no such table: x")
    bug.sqlite_errorcode = sqlite3.SQLITE_ERROR  # type: ignore[attr-defined]
    assert storage_failure(full) and storage_failure(ioerr)
    assert not storage_failure(bug) and not storage_failure(ValueError())
    assert SaveFailed.key == "error.save_failed"


async def test_a_write_the_disk_refuses_is_save_failed_and_the_store_recovers(tmp_path: Path):
    store = await SQLiteStore.open(tmp_path / "q.db")
    try:
        await sessions_sql.touch_user(store, "t", "kept", "Kept", time.time())
        pages = (await store._w.execute("PRAGMA page_count"))[0][0]
        await store._w.execute(f"PRAGMA max_page_count = {pages}")  # no page more: "disk full"
        with pytest.raises(SaveFailed, match="full"):
            await sessions_sql.touch_user(store, "t", "big", "y" * 20_000, time.time())
        await store._w.execute("PRAGMA max_page_count = 1073741823")  # space is back
        await sessions_sql.touch_user(store, "t", "big", "y" * 20_000, time.time())
    finally:
        await store.close()
    db = sqlite3.connect(tmp_path / "q.db")
    try:
        names = {r[0] for r in db.execute("SELECT user_id FROM users")}
    finally:
        db.close()
    assert names == {"kept", "big"}


def test_store_unavailable_is_not_a_quiz_error():
    from bot.domain.errors import QuizError
    assert not issubclass(StoreUnavailable, QuizError)


async def test_a_failed_open_leaves_no_worker_thread_behind(tmp_path: Path, monkeypatch):
    import threading

    import bot.store.sqlite as sqlite_store

    def broken(db, known, where=None, setting=None):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(sqlite_store, "migrate_sqlite", broken)
    before = set(threading.enumerate())
    with pytest.raises(StoreUnavailable, match="cannot write the database"):
        await SQLiteStore.open(tmp_path / "q.db")
    left = [t for t in threading.enumerate() if t not in before]
    for thread in left:  # close() returns as the worker takes its stop; let it finish
        thread.join(timeout=5)
    assert [t for t in left if t.is_alive()] == []
