"""Group commit on one writer connection: many callers, one fsync per batch.

Each caller hands in a unit of work (a plain function of the sqlite3 connection;
`SQLiteStore.write` makes one of each store command) and awaits the COMMIT that holds it.
Units run one after another, in the order they were queued, inside a single
`BEGIN IMMEDIATE` transaction; whatever queues while a COMMIT runs goes into the next one.
The connection's own thread (`bot.store.sqlite_thread.Batched`) drains the queue: batch
after batch, each BEGIN right after the previous COMMIT returned, with no trip through the
event loop between them; each batch's callers are woken with one event-loop call. If a
unit raises, the batch is rolled back and its units are retried one per transaction, so
one bad unit fails alone and never sinks its neighbours.

A unit must decide everything from what it reads inside the transaction (guarded updates,
`ON CONFLICT`), never from state read before it, so running it again after a rollback is
safe.

When the disk says no (full, I/O error, gone read-only), or another program holds the
file's write lock past the busy timeout (an sqlite3 shell, a backup), the batch fails as
`SaveFailed`, a `QuizError` every adapter shows as "could not save your answer, try again":
nothing in the batch was committed, nothing committed before is lost, and the next batch
tries again, so the store recovers by itself once space returns or the lock is let go.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

from bot.domain.errors import SaveFailed
from bot.store.sqlite_thread import Batched, SQLiteThread

log = logging.getLogger(__name__)

T = TypeVar("T")
Unit = Callable[[sqlite3.Connection], Any]
MAX_BATCH = 512
# SQLite's primary result codes for "the storage refused the write": the transaction did not
# happen, and the same write may succeed later.
_STORAGE_HINTS = {
    sqlite3.SQLITE_FULL: "free some disk space",
    sqlite3.SQLITE_IOERR: "check the disk and its filesystem",
    sqlite3.SQLITE_READONLY: "make the database file and its folder writable",
    sqlite3.SQLITE_CANTOPEN: "check that the database folder exists and is writable",
}


def storage_failure(exc: BaseException) -> bool:
    """True for a disk-full, I/O or read-only error from SQLite (not a bug in a unit)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.OperationalError) and code is not None \
        and code & 0xFF in _STORAGE_HINTS


# A lock held past the busy timeout is no fault of the file or the disk: say who holds it.
_HINTS = {**_STORAGE_HINTS, sqlite3.SQLITE_BUSY: "another program holds it (another quizbot "
          "on the same file, a backup, an sqlite3 shell); close it or let it finish, then try "
          "again"}


def lock_held(exc: BaseException) -> bool:
    """True when another program held the write lock past the busy timeout: BEGIN IMMEDIATE
    failed, so no unit ran, and retrying them one by one would only wait that long again."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, sqlite3.OperationalError) and code is not None \
        and code & 0xFF == sqlite3.SQLITE_BUSY


def storage_hint(exc: BaseException) -> str:
    """What a maintainer can do about a storage error."""
    code = getattr(exc, "sqlite_errorcode", None)
    return _HINTS.get((code or 0) & 0xFF, "check the database file and its disk")


class GroupCommit(Batched[Unit]):
    """Runs units of work on `conn` (opened with isolation_level=None) in group commits."""

    def __init__(self, conn: SQLiteThread,
                 on_commit: Callable[[float], None] | None = None,
                 guard: Callable[[sqlite3.Connection], Exception | None] | None = None
                 ) -> None:
        super().__init__(conn, MAX_BATCH)
        self.on_commit = on_commit
        self._guard = guard  # before each batch: an error every unit gets instead, or None
        self.commits = 0  # transactions committed, for benchmarks and tests
        self._durations: deque[float] = deque()  # COMMITs not yet reported to on_commit

    async def run(self, unit: Callable[[sqlite3.Connection], T]) -> T:
        """Run `unit` in the next transaction; return its result once that is committed."""
        result: T = await self._submit(unit)
        return result

    def _process(self, db: sqlite3.Connection, units: list[Unit]) -> list[Any]:
        """On the writer's thread: one transaction, or one per unit when the batch failed."""
        if self._guard is not None and (refused := self._guard(db)) is not None:
            return [refused] * len(units)
        try:
            started = time.perf_counter()
            results = _run_all(db, units)
            self._durations.append(time.perf_counter() - started)
            self.commits += 1
            return results
        except Exception as exc:
            if storage_failure(exc) or lock_held(exc):
                log.warning("could not save %d write(s): %s; %s", len(units), exc,
                            storage_hint(exc))
                return [SaveFailed(str(exc))] * len(units)
            if len(units) == 1:
                return [exc]
            log.info("a batch of %d writes failed (%s); retrying each alone", len(units), exc)
            return [outcome for unit in units for outcome in self._process(db, [unit])]

    def _settle(self, futures: list[asyncio.Future[Any]], outcomes: list[Any]) -> None:
        while self._durations:  # metrics first, on the event loop
            seconds = self._durations.popleft()
            if self.on_commit is not None:
                self.on_commit(seconds)
        super()._settle(futures, outcomes)


def _run_all(db: sqlite3.Connection, units: list[Unit]) -> list[Any]:
    """One transaction with every unit, in order (on the connection's thread)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        results = [unit(db) for unit in units]
        db.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise
    return results
