"""The `Store` on SQLite: one writer connection, one reader connection, each on a thread of
its own (`bot.store.sqlite_thread`).

Writes are commands (`bot.store.commands`) run by `GroupCommit`: one fsync for everything
queued while the previous COMMIT ran, each command driven synchronously on the writer's
thread inside the batch's `BEGIN IMMEDIATE`, decided by guarded statements. Reads use a
second connection: in WAL mode it sees only committed data and never waits on a write.
The tap's own reads (`POINT_READS`: a learner's few rows by an index, tens of microseconds
in SQLite) run on a third connection, on the event loop's thread: cheaper than the two
thread switches a trip to the reader costs, which on a busy machine are most of a tap's
wait. That one never
waits for a lock (busy_timeout 0): a busy database sends the read to the reader thread.
Nothing is cached in the process, so several processes may share one file (SQLite's locks
order their write transactions).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar
from urllib.parse import unquote

from bot.domain.errors import ConfigError, StoreUnavailable
from bot.store.command import Command, Rows, Stmt, run_async, run_sync, sqlite_sql
from bot.store.commands import learning_sql, sessions_sql
from bot.store.group_commit import GroupCommit, storage_hint
from bot.store.migrate import (
    check_writable,
    inspect_sqlite,
    migrate_sqlite,
    migrations,
)
from bot.store.sqlite_file import FileWatch
from bot.store.sqlite_thread import ReadBatch, SQLiteThread

log = logging.getLogger(__name__)

SYNCHRONOUS = ("FULL", "NORMAL")
BUSY_TIMEOUT_MS = 5000
WAL_TRIES = 30  # about 5 s of waiting in all, like busy_timeout
P = ParamSpec("P")
T = TypeVar("T")
# Reads of one learner's few rows by a primary key or unique index (a session and its
# answers, the user, their best score and cards: bounded by the content, not by the number
# of users), the answer path's: run on the loop's connection (see the module's docstring).
POINT_READS: frozenset[Callable[..., Command[Any]]] = frozenset({
    sessions_sql.session_and_answer, sessions_sql.get_session, sessions_sql.active_session,
    sessions_sql.answers, sessions_sql.user, sessions_sql.best_score, learning_sql.cards})
_BUSY = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


async def _wal(conn: SQLiteThread) -> None:
    """Switch to WAL mode. Processes switching a new file together can meet SQLITE_BUSY
    without the busy handler being asked (two readers both upgrading their lock), so the
    switch is tried again, a bounded number of times."""
    for attempt in range(WAL_TRIES):
        try:
            await conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            busy = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF == sqlite3.SQLITE_BUSY
            if not busy or attempt == WAL_TRIES - 1:
                raise
            await asyncio.sleep(0.01 * (attempt + 1))


def path_from_url(url: str) -> Path:
    """`sqlite:///relative.db` or `sqlite:////absolute.db` (SQLAlchemy's form) to a path."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        scheme = url.split(":", 1)[0] if ":" in url else "no scheme"
        raise ConfigError(
            "storage.url must look like sqlite:///data/quizbot.db or sqlite:////abs/path.db "
            f"(got a URL with {scheme!r})")
    return Path(unquote(url[len(prefix):]))


class SQLiteStore:
    """Store on one SQLite file: commands run by group commit (writes) and a batched reader."""

    def __init__(self, path: Path, writer: SQLiteThread, reader: SQLiteThread,
                 here: sqlite3.Connection,
                 *, on_commit: Callable[[float], None] | None = None) -> None:
        self.path = path
        self._here = here  # the event loop's connection, for POINT_READS
        self._r = reader
        self._reads = ReadBatch(reader)
        self._w = writer
        self._file = FileWatch(path)  # deleted or replaced under us: rescued, writes refused
        self._writes = GroupCommit(writer, on_commit, self._file.check)

    @property
    def on_commit(self) -> Callable[[float], None] | None:
        """Called with each COMMIT's duration in seconds (metrics)."""
        return self._writes.on_commit

    @on_commit.setter
    def on_commit(self, callback: Callable[[float], None] | None) -> None:
        self._writes.on_commit = callback

    @property
    def commits(self) -> int:
        """Transactions committed so far (benchmarks and tests)."""
        return self._writes.commits

    @classmethod
    async def open(cls, url_or_path: str | Path, *, synchronous: str = "FULL",
                   on_commit: Callable[[float], None] | None = None,
                   setting: str = "storage.url") -> SQLiteStore:
        """Open (creating if needed) and migrate; refuse unusable files without touching them
        (the refusal says to point `setting`, what named the file, elsewhere)."""
        path = path_from_url(url_or_path) if isinstance(url_or_path, str) else url_or_path
        if synchronous.upper() not in SYNCHRONOUS:
            raise ConfigError(f"storage.synchronous must be full or normal, got {synchronous!r}")
        known = migrations("sqlite")
        if path.is_file() and path.stat().st_size > 0:
            await inspect_sqlite(path, setting)  # exactly quizbot's, else refused untouched
        check_writable(path, setting)
        conns: list[SQLiteThread] = []
        try:
            for name in ("writer", "reader"):
                conn = await SQLiteThread.open(path, name)
                conns.append(conn)
                await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                await _wal(conn)
                await conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
                await conn.execute("PRAGMA foreign_keys = ON")
            writer, reader = conns
            await writer.run(migrate_sqlite, known, path, setting)
            here = _loop_connection(path)
        except BaseException as exc:
            for conn in conns:  # an open connection's thread would keep the process alive
                await conn.close()
            if isinstance(exc, sqlite3.OperationalError):
                raise StoreUnavailable(
                    f"cannot write the database {path}: {exc}; {storage_hint(exc)}") from None
            raise
        return cls(path, writer, reader, here, on_commit=on_commit)

    async def read(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a read-only command: one of POINT_READS on the loop's connection, any other
        on the reader connection (its statements batched with other callers' reads)."""
        try:
            if fn in POINT_READS:
                try:
                    return run_sync(self._here, fn(*args, **kwargs))
                except sqlite3.OperationalError as exc:
                    if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF not in _BUSY:
                        raise
            return await run_async(fn(*args, **kwargs), self._fetch)
        except sqlite3.OperationalError:
            if (lost := self._file.lost()) is not None:  # the file went: say so, not a bug
                raise lost from None
            raise

    async def _fetch(self, stmt: Stmt) -> Rows:
        return await self._reads.all(sqlite_sql(stmt.sql), stmt.params)

    async def write(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs
                    ) -> T:
        """Run a command in the next group commit, on the writer's thread; rerun alone if
        its batch rolls back."""
        return await self._writes.run(lambda db: run_sync(db, fn(*args, **kwargs)))

    async def close(self) -> None:
        """Commit queued writes, then close both connections."""
        try:
            await self._writes.close()
        finally:
            await self._reads.close()
            await self._w.close()
            await self._r.close()
            self._here.close()


def _loop_connection(path: Path) -> sqlite3.Connection:
    """The connection POINT_READS run on, on the event loop's thread: it never waits for a
    lock (a busy database sends the read to the reader's thread instead)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 0")
    return conn
