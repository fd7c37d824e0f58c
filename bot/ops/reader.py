"""One connection to either store outside the bot: `quizbot stats|export|check` and copy-db.

The operations commands must not change what they look at: they never migrate, never
create a database, and on SQLite never add a `-wal` file. So they do not open the `Store`
(which migrates on open) but a `Reader` (`open_reader`): one read-only connection, checked
to be an exact quizbot database first, that runs the store's read commands
(`bot.store.commands`) with the store's own executors (`run_sync` on SQLite, `run_async` on
PostgreSQL). copy-db drives the same `Reader` on each end, and also streams a table from it
(`scan`) and bulk-inserts into it (`insert`), inside `snapshot()` or `transaction()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from bot.domain.errors import EmptyDatabase, OpsError
from bot.ops import sqlite_backup
from bot.store.command import Command, Rows, Stmt, postgres_sql, run_async, run_sync
from bot.store.migrate import migrations, postgres_version
from bot.store.urls import redact, remedy, scheme_of, scrubbed, split_password

P = ParamSpec("P")
T = TypeVar("T")
CHUNK = 5000  # rows a scan hands over at a time (a table may not fit in memory)
Rowset = list[tuple[Any, ...]]


@dataclass(frozen=True)
class Reader:
    """Runs commands, as `Store.read` does, on one connection of either dialect."""

    run: Callable[[Command[Any]], Awaitable[Any]]
    scan: Callable[[str], AsyncIterator[list[Any]]]  # a SELECT's rows, CHUNK at a time
    insert: Callable[[str, list[str], Rowset], Awaitable[Any]]  # rows into (table, columns)
    snapshot: Callable[[], AbstractAsyncContextManager[Any]]  # one view for every read
    transaction: Callable[[], AbstractAsyncContextManager[Any]]  # one write transaction

    async def read(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run the command `fn(*args, **kwargs)`."""
        result: T = await self.run(fn(*args, **kwargs))
        return result


def on_sqlite(conn: sqlite3.Connection) -> Reader:
    """A reader on one sqlite3 connection (autocommit, any thread): every call on a worker
    thread, one at a time; rows by column name, as the store's commands read them."""
    conn.row_factory = sqlite3.Row

    async def scan(sql: str) -> AsyncIterator[list[Any]]:
        cursor = await asyncio.to_thread(conn.execute, sql)
        while chunk := await asyncio.to_thread(cursor.fetchmany, CHUNK):
            yield chunk

    @contextlib.asynccontextmanager
    async def between(begin: str, end: str) -> AsyncIterator[None]:
        await asyncio.to_thread(conn.execute, begin)  # WAL: one view for every read inside
        try:
            yield
        except BaseException:
            await asyncio.to_thread(conn.execute, "ROLLBACK")
            raise
        await asyncio.to_thread(conn.execute, end)

    return Reader(lambda command: asyncio.to_thread(run_sync, conn, command), scan,
                  lambda table, cols, rows: asyncio.to_thread(
                      conn.executemany, f"INSERT INTO {table} ({', '.join(cols)}) "
                      f"VALUES ({', '.join('?' * len(cols))})", rows),
                  lambda: between("BEGIN", "ROLLBACK"),
                  lambda: between("BEGIN IMMEDIATE", "COMMIT"))


def on_postgres(conn: Any) -> Reader:
    """A reader on one asyncpg connection."""

    async def fetch(stmt: Stmt) -> Rows:
        return list(await conn.fetch(postgres_sql(stmt.sql), *stmt.params))

    async def scan(sql: str) -> AsyncIterator[list[Any]]:
        cursor = await conn.cursor(sql)  # a cursor needs the snapshot's transaction
        while chunk := await cursor.fetch(CHUNK):
            yield chunk

    return Reader(lambda command: run_async(command, fetch), scan,
                  lambda table, cols, rows: conn.copy_records_to_table(table, records=rows,
                                                                      columns=cols),
                  lambda: conn.transaction(isolation="repeatable_read", readonly=True),
                  conn.transaction)


@contextlib.asynccontextmanager
async def open_reader(url: str, password: str = "") -> AsyncIterator[Reader]:
    """A read-only reader on the database `url` names, in one snapshot; OpsError (or
    StoreRefused) when it is not a quizbot database this quizbot can read."""
    if scheme_of(url) != "postgresql":
        from bot.store.sqlite import path_from_url

        # exactly quizbot's, or OpsError
        path = path_from_url(url)
        with (sqlite_backup.open_checked(path) as conn,
              sqlite_backup.refusing_damage(path)):
            yield on_sqlite(conn)
        return
    async with connected(url, password) as pg:
        reader = on_postgres(pg)
        async with reader.snapshot():
            latest = migrations("postgres")[-1][0]
            if not await reader.read(postgres_version, redact(url), latest):
                raise EmptyDatabase(f"{redact(url)}: is not a quizbot database (it is empty)")
            yield reader


@contextlib.asynccontextmanager
async def connected(url: str, password: str = "") -> AsyncIterator[Any]:
    """One asyncpg connection to the PostgreSQL database `url` names (the password given, or
    the one in the URL); OpsError naming the database when there is none to be had."""
    import asyncpg

    bare, embedded = split_password(url)
    try:
        conn = await asyncpg.connect(bare, password=password or embedded or None, timeout=10)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        # InterfaceError: a URL asyncpg refuses before connecting (?sslmode=bogus), which
        # `quizbot check|stats|export|backup` printed as a traceback
        raise OpsError(f"{redact(url)}: cannot connect ({type(exc).__name__}: "
                       f"{scrubbed(exc, url, password)}){remedy(exc)}") from None
    try:
        yield conn
    finally:
        await conn.close()


__all__ = ["Reader", "connected", "on_postgres", "on_sqlite", "open_reader"]
