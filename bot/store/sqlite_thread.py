"""One sqlite3 connection on one thread of ours: the store's writer and its reader.

Group commit and batched reads run a whole batch as one function on the connection's
thread (one hop and one event-loop wake-up per batch, not per statement): that is what lets
a thousand learners share one fsync. aiosqlite offers no public way to run a function on
its thread, so the store owns the thread instead, a single-worker executor, and the
connection is created, used and closed on it.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


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
