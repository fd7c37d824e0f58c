"""One sqlite3 connection on one thread of ours, and the batches that use it.

Group commit (`bot.store.group_commit`) and batched reads (`ReadBatch`) run a whole batch
as one function on the connection's thread (one hop and one event-loop wake-up per batch,
not per statement): that is what lets a thousand learners share one fsync, and their reads
one hop. aiosqlite offers no public way to run a function on its thread, so the store owns
the thread instead, a single-worker executor, and the connection is created, used and
closed on it.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Generic, TypeVar

from bot.domain.tasks import spawn

T = TypeVar("T")
Item = TypeVar("Item")
Query = tuple[str, Sequence[Any]]


class SQLiteThread:
    """A sqlite3 connection in autocommit mode (isolation_level=None), rows as
    `sqlite3.Row`, every call run on its own thread in the order asked."""

    def __init__(self, executor: ThreadPoolExecutor, conn: sqlite3.Connection) -> None:
        self._executor, self._conn = executor, conn
        self._closed = False

    @classmethod
    async def open(cls, path: Path, name: str) -> SQLiteThread:
        """Connect to `path` on a new thread named quizbot-sqlite-`name`."""
        executor = ThreadPoolExecutor(1, thread_name_prefix=f"quizbot-sqlite-{name}")

        def connect() -> sqlite3.Connection:
            conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            return conn

        try:
            conn = await asyncio.get_running_loop().run_in_executor(executor, connect)
        except BaseException:
            executor.shutdown(wait=False)
            raise
        return cls(executor, conn)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(connection, *args)` on the connection's thread."""
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, fn, self._conn, *args)

    async def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """One statement's rows."""
        return await self.run(lambda db: db.execute(sql, params).fetchall())

    async def close(self) -> None:
        """Close the connection on its thread, then let the thread end; again, nothing
        (a store is closed by its owner and by open_app's exit)."""
        if self._closed:
            return
        self._closed = True
        try:
            await self.run(lambda db: db.close())
        finally:
            self._executor.shutdown(wait=False)


class Batched(Generic[Item]):
    """Calls queued while a batch runs go into the next batch, at most `limit` to one; a
    subclass runs a batch (`_run`) and settles each call's future."""

    def __init__(self, conn: SQLiteThread, limit: int, name: str) -> None:
        self._conn, self._limit = conn, limit
        self._queue: list[tuple[Item, asyncio.Future[Any]]] = []
        self._wakeup = asyncio.Event()
        self._closed = False
        self._task = spawn(self._loop(), name=name)

    async def _submit(self, item: Item) -> Any:
        if self._closed:
            raise RuntimeError("store is closed")
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append((item, fut))
        self._wakeup.set()
        return await fut

    async def _loop(self) -> None:
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            while self._queue:
                batch = self._queue[:self._limit]
                del self._queue[:self._limit]
                await self._run(batch)
            if self._closed:
                return

    async def _run(self, batch: list[tuple[Item, asyncio.Future[Any]]]) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        """Run what is queued, then stop; later calls raise (closing twice is harmless)."""
        if self._closed:
            return
        self._closed = True
        self._wakeup.set()
        await self._task


def settle(fut: asyncio.Future[Any], outcome: Any) -> None:
    """A call's result, or its error when `outcome` is an exception (nothing if the caller
    gave up: the work stands or fell regardless)."""
    if fut.done():
        return
    if isinstance(outcome, BaseException):
        fut.set_exception(outcome)
    else:
        fut.set_result(outcome)


class ReadBatch(Batched[Query]):
    """Reads on the reader connection, batched. Each statement runs on its own, in
    autocommit mode, so each sees the latest committed data; a failing one fails alone.
    One read alone costs what it did before."""

    def __init__(self, conn: SQLiteThread) -> None:
        super().__init__(conn, 256, "sqlite-read-batch")

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Every row of one statement."""
        rows: list[Any] = await self._submit((sql, params))
        return rows

    async def _run(self, batch: list[tuple[Query, asyncio.Future[Any]]]) -> None:
        try:
            outcomes = await self._conn.run(_fetch_each, [query for query, _ in batch])
        except Exception as exc:  # the connection itself failed
            outcomes = [exc] * len(batch)
        for (_, fut), outcome in zip(batch, outcomes, strict=True):
            settle(fut, outcome)


def _fetch_each(db: sqlite3.Connection, queries: list[Query]) -> list[Any]:
    out: list[Any] = []
    for sql, params in queries:
        try:
            out.append(db.execute(sql, params).fetchall())
        except sqlite3.Error as exc:
            out.append(exc)
    return out
