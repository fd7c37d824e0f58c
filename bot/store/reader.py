"""A read-only connection to either store, for `quizbot stats|export|check`.

The operations commands must not change what they look at: they never migrate, never
create a database, and on SQLite never add a `-wal` file. So they do not open the `Store`
(which migrates on open) but a `Reader`: one read-only connection, checked to be an exact
quizbot database first, that runs the store's read commands (`bot.store.commands`) with
the store's own executors (`run_sync` on SQLite, `run_async` on PostgreSQL).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from bot.domain.errors import OpsError
from bot.store import sqlite_ops
from bot.store.command import Command, Rows, Stmt, postgres_sql, run_async, run_sync
from bot.store.migrate import migrations, postgres_version
from bot.store.urls import redact, scheme_of, split_password

P = ParamSpec("P")
T = TypeVar("T")


class Reader:
    """Runs read commands, as `Store.read` does, on one read-only connection."""

    def __init__(self, run: Callable[[Command[Any]], Awaitable[Any]]) -> None:
        self._run = run

    async def read(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run the read-only command `fn(*args, **kwargs)`."""
        result: T = await self._run(fn(*args, **kwargs))
        return result


def on_postgres(conn: Any) -> Callable[[Stmt], Awaitable[Rows]]:
    """`run_async`'s fetch on one asyncpg connection."""
    return lambda stmt: conn.fetch(postgres_sql(stmt.sql), *stmt.params)


@contextlib.asynccontextmanager
async def open_reader(url: str, password: str = "") -> AsyncIterator[Reader]:
    """A reader on the database `url` names; OpsError (or StoreRefused) when it is not a
    quizbot database this quizbot can read."""
    if scheme_of(url) != "postgresql":
        from bot.store.sqlite import path_from_url

        with sqlite_ops.reading(path_from_url(url)) as conn:  # exactly quizbot's, or OpsError
            yield Reader(lambda command: asyncio.to_thread(run_sync, conn, command))
        return
    async with connected(url, password) as pg, pg.transaction(readonly=True):
        latest = migrations("postgres")[-1][0]
        if not await run_async(postgres_version(redact(url), latest), on_postgres(pg)):
            raise OpsError(f"{redact(url)}: is not a quizbot database (it is empty)")
        yield Reader(lambda command: run_async(command, on_postgres(pg)))


@contextlib.asynccontextmanager
async def connected(url: str, password: str = "") -> AsyncIterator[Any]:
    """One asyncpg connection to the PostgreSQL database `url` names (the password given, or
    the one in the URL); OpsError naming the database when there is none to be had."""
    import asyncpg

    bare, embedded = split_password(url)
    try:
        conn = await asyncpg.connect(bare, password=password or embedded or None, timeout=10)
    except (OSError, asyncpg.PostgresError) as exc:
        raise OpsError(f"{redact(url)}: cannot connect ({type(exc).__name__}: "
                                  f"{exc})") from None
    try:
        yield conn
    finally:
        await conn.close()


__all__ = ["Reader", "connected", "on_postgres", "open_reader"]
