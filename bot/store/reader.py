"""A read-only view of either store, for `quizbot stats|export|check` and reports.

The operations commands must not change what they look at: they never migrate, never
create a database, and on SQLite never add a `-wal` file. So they do not open the `Store`
(which migrates on open) but a `Reader`: one read-only connection that runs the report's
SELECTs, written once with `?` placeholders, on either dialect.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol

import aiosqlite

from bot.domain.errors import StoreRefused
from bot.store import ops
from bot.store.command import postgres_sql
from bot.store.migrate import migrations
from bot.store.urls import redact, scheme_of, split_password

Row = Sequence[Any]


class Reader(Protocol):
    """Runs one SELECT (with `?` placeholders) and returns its rows as tuples."""

    dialect: str

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...


class SQLiteReader:
    """SELECTs on a read-only aiosqlite connection."""

    dialect = "sqlite"

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Every row of `sql`."""
        return [tuple(r) for r in await self._conn.execute_fetchall(sql, tuple(params))]


class PostgresReader:
    """SELECTs on one asyncpg connection, in a read-only transaction."""

    dialect = "postgresql"

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    async def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Every row of `sql`."""
        return [tuple(r) for r in await self._conn.fetch(postgres_sql(sql), *params)]


@contextlib.asynccontextmanager
async def open_reader(url: str, password: str = "") -> AsyncIterator[Reader]:
    """A reader on the database `url` names; OpsError when it is not a usable quizbot one."""
    if scheme_of(url) == "postgresql":
        async with _postgres(url, password) as reader:
            yield reader
        return
    from bot.store.sqlite import path_from_url

    db = path_from_url(url)
    with ops.reading(db):  # an exact quizbot schema, or OpsError
        pass
    async with aiosqlite.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True) as conn:
        await conn.execute("PRAGMA busy_timeout = 5000")
        yield SQLiteReader(conn)


@contextlib.asynccontextmanager
async def _postgres(url: str, password: str) -> AsyncIterator[Reader]:
    import asyncpg

    bare, embedded = split_password(url)
    try:
        conn = await asyncpg.connect(bare, password=password or embedded or None, timeout=10)
    except (OSError, asyncpg.PostgresError) as exc:
        raise ops.OpsError(f"{redact(url)}: cannot connect ({type(exc).__name__}: "
                           f"{exc})") from None
    try:
        async with conn.transaction(readonly=True):
            reader = PostgresReader(conn)
            await _check_postgres(reader, url)
            yield reader
    finally:
        await conn.close()


async def _check_postgres(reader: Reader, url: str) -> None:
    tables = {r[0] for r in await reader.rows(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = "
        "current_schema()")}
    if "schema_migrations" not in tables:
        raise ops.OpsError(f"{redact(url)}: is not a quizbot database (no schema_migrations)")
    version = int((await reader.rows("SELECT MAX(version) FROM schema_migrations"))[0][0] or 0)
    latest = migrations("postgres")[-1][0]
    if version > latest:
        raise ops.OpsError(f"{redact(url)}: schema version {version} is newer than this "
                           f"quizbot ({latest})")


async def postgres_summary(url: str, password: str) -> str:
    """`quizbot check`'s line for a PostgreSQL store (read-only)."""
    try:
        async with open_reader(url, password) as reader:
            version = int((await reader.rows(
                "SELECT MAX(version) FROM schema_migrations"))[0][0] or 0)
            counts = (await reader.rows(
                "SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM sessions), "
                "(SELECT COUNT(*) FROM answers)"))[0]
    except StoreRefused as exc:
        raise ops.OpsError(str(exc)) from None
    latest = migrations("postgres")[-1][0]
    pending = f", {latest - version} migration(s) to apply at start" if version < latest else ""
    return (f"{redact(url)}: schema version {version}{pending}; {counts[0]} users, "
            f"{counts[1]} sessions, {counts[2]} answers")
