"""Reads on one connection, batched: whatever is asked while a batch runs goes into the next.

Under load a thousand learners' taps each need one read; sent one by one, each costs a hop
to the connection's thread and a wake-up of the event loop, and those, not SQLite, become
the bottleneck. A batch runs every queued statement in one call on the thread (each one on
its own, in autocommit mode, so each sees the latest committed data), then hands each
caller its rows or its error. One read alone costs what it did before.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Sequence
from typing import Any

from bot.domain.tasks import spawn
from bot.store.sqlite_thread import SQLiteThread

MAX_BATCH = 256
Query = tuple[str, Sequence[Any]]


class ReadBatch:
    """Batched `fetchall` on a reader connection in autocommit mode."""

    def __init__(self, conn: SQLiteThread) -> None:
        self._conn = conn
        self._queue: list[tuple[Query, asyncio.Future[list[Any]]]] = []
        self._wakeup = asyncio.Event()
        self._task = spawn(self._loop(), name="sqlite-read-batch")

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Every row of one statement."""
        fut: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self._queue.append(((sql, params), fut))
        self._wakeup.set()
        return await fut

    async def _loop(self) -> None:
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            while self._queue:
                batch = self._queue[:MAX_BATCH]
                del self._queue[:MAX_BATCH]
                try:
                    outcomes = await self._conn.run(_run, [q for q, _ in batch])
                except Exception as exc:  # the connection itself failed
                    outcomes = [exc] * len(batch)
                for (_, fut), outcome in zip(batch, outcomes, strict=True):
                    if fut.done():
                        continue
                    if isinstance(outcome, BaseException):
                        fut.set_exception(outcome)
                    else:
                        fut.set_result(outcome)

    async def close(self) -> None:
        """Stop taking reads (the queue is empty by then: every caller awaits its own)."""
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


def _run(db: sqlite3.Connection, queries: list[Query]) -> list[list[Any] | BaseException]:
    out: list[list[Any] | BaseException] = []
    for sql, params in queries:
        try:
            out.append(db.execute(sql, params).fetchall())
        except sqlite3.Error as exc:
            out.append(exc)
    return out
