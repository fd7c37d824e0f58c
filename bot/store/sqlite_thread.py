"""One sqlite3 connection on one thread of ours, and the batches that use it.

Group commit (`bot.store.group_commit`) and batched reads (`ReadBatch`) run whole batches
on the connection's thread (`Batched`): that is what lets a thousand learners share one
fsync, and their reads one hop. The thread drains the queue itself, batch after batch,
each starting the moment the previous one ends (a COMMIT's fsync returned), with no trip
through the event loop between them; the event loop only appends to the queue and wakes
each batch's callers with one call. aiosqlite offers no public way to run a function on
its thread, so the store owns the thread instead, a single-worker executor, and the
connection is created, used and closed on it.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Generic, TypeVar

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

    def submit(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """Queue `fn(connection, *args)` on the connection's thread now (before whatever is
        submitted later); its result as a future of the running loop."""
        return asyncio.get_running_loop().run_in_executor(self._executor, fn, self._conn, *args)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(connection, *args)` on the connection's thread."""
        return await self.submit(fn, *args)

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
    """Calls queued while a batch runs go into the next batch, at most `limit` to one. A
    subclass runs a batch on the connection's thread (`_process`: one outcome per call, its
    result or its exception); a call made while no drain runs starts one."""

    def __init__(self, conn: SQLiteThread, limit: int) -> None:
        self._conn, self._limit = conn, limit
        self._queue: deque[tuple[Item, asyncio.Future[Any]]] = deque()
        self._lock = threading.Lock()  # the queue and `_draining`, shared with the thread
        self._draining = False  # a drain is queued or running on the thread
        self._closed = False

    async def _submit(self, item: Item) -> Any:
        if self._closed:
            raise RuntimeError("store is closed")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        with self._lock:
            self._queue.append((item, fut))
            start, self._draining = not self._draining, True
        if start:
            self._conn.submit(self._drain, loop)
        return await fut

    def _drain(self, db: sqlite3.Connection, loop: asyncio.AbstractEventLoop) -> None:
        """On the thread: batch after batch until the queue is empty."""
        while True:
            with self._lock:
                if not self._queue:
                    self._draining = False
                    return
                batch = [self._queue.popleft()
                         for _ in range(min(self._limit, len(self._queue)))]
            try:
                outcomes = self._process(db, [item for item, _ in batch])
            except BaseException as exc:  # not from one call (those are outcomes)
                outcomes = [exc] * len(batch)
            loop.call_soon_threadsafe(self._settle, [fut for _, fut in batch], outcomes)

    def _process(self, db: sqlite3.Connection, items: list[Item]) -> list[Any]:
        raise NotImplementedError

    def _settle(self, futures: list[asyncio.Future[Any]], outcomes: list[Any]) -> None:
        """On the event loop: wake a batch's callers."""
        for fut, outcome in zip(futures, outcomes, strict=True):
            settle(fut, outcome)

    async def close(self) -> None:
        """Run what is queued, then stop; later calls raise (closing twice is harmless)."""
        if self._closed:
            return
        self._closed = True
        # The thread runs what it is given in order: this comes after every drain.
        await self._conn.run(lambda db: None)


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
        super().__init__(conn, 256)

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Every row of one statement."""
        rows: list[Any] = await self._submit((sql, params))
        return rows

    def _process(self, db: sqlite3.Connection, items: list[Query]) -> list[Any]:
        return _fetch_each(db, items)


def _fetch_each(db: sqlite3.Connection, queries: list[Query]) -> list[Any]:
    out: list[Any] = []
    for sql, params in queries:
        try:
            out.append(db.execute(sql, params).fetchall())
        except sqlite3.Error as exc:
            out.append(exc)
    return out
