"""`quizbot copy-db`: every row from one store to another (SQLite <-> PostgreSQL).

Both ends are opened as `quizbot run` opens them first (refused if foreign or newer,
migrated to the current schema), so the copy is between identical schemas. The source is
read in one snapshot; the target is written in one transaction that first checks it is
empty and, before COMMIT, that it holds exactly as many rows per table (and the same sum of
scores) as the source: a failed or short copy leaves the target empty. Stop the bots on
the source first; answers written after the snapshot would not be copied.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import aiosqlite
import asyncpg

from bot.domain.errors import StoreRefused
from bot.domain.secret import Secret
from bot.store import open_url
from bot.store.migrate import TABLES
from bot.store.sqlite import path_from_url
from bot.store.urls import redact, scheme_of

CHUNK = 5000
# Tables whose ids were copied as they were (buttons and jobs carry them): their identity
# sequences move past the copied ids.
IDENTITIES = ("sessions", "rounds", "jobs", "installed_quizzes", "problem_reports")


class CopyRefused(StoreRefused):
    """copy-db will not (or could not) copy; the target holds nothing of the source."""


@dataclass(frozen=True)
class Copied:
    """Rows per table that are now in the target (equal to the source's)."""

    rows: dict[str, int]
    score_sum: int


async def copy_db(source: str, target: str, *, source_password: Secret | None = None,
                  target_password: Secret | None = None) -> Copied:
    """Copy everything from `source` to the empty store `target` (URLs); verify counts."""
    if _same(source, target):
        raise CopyRefused("--from and --to name the same database")
    for url, password in ((source, source_password), (target, target_password)):
        await (await open_url(url, password=password, pool_size=1)).close()  # refuse/migrate
    async with _end(source, source_password) as src, _end(target, target_password) as dst:
        return await dst.write_all(src, shown=redact(target))


def _same(a: str, b: str) -> bool:
    if scheme_of(a) == scheme_of(b) == "sqlite":
        return path_from_url(a).resolve() == path_from_url(b).resolve()
    return redact(a) == redact(b)


@contextlib.asynccontextmanager
async def _end(url: str, password: Secret | None) -> AsyncIterator[_SQLite | _Postgres]:
    if scheme_of(url) == "sqlite":
        conn = await aiosqlite.connect(path_from_url(url), isolation_level=None)
        try:
            await conn.execute("PRAGMA foreign_keys = ON")
            yield _SQLite(conn)
        finally:
            await conn.close()
    else:
        pg = await asyncpg.connect(url, password=password.reveal() if password else None)
        try:
            yield _Postgres(pg)
        finally:
            await pg.close()


class _SQLite:
    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn

    async def columns(self, table: str) -> tuple[str, ...]:
        return tuple(r[1] for r in await self.conn.execute_fetchall(
            f"PRAGMA table_info({table})"))

    @contextlib.asynccontextmanager
    async def snapshot(self) -> AsyncIterator[None]:
        await self.conn.execute("BEGIN")  # WAL: one consistent view for every read below
        try:
            yield
        finally:
            await self.conn.execute("ROLLBACK")

    async def rows(self, table: str, cols: Sequence[str]) -> AsyncIterator[list[Any]]:
        async with self.conn.execute(f"SELECT {', '.join(cols)} FROM {table}") as cur:
            while chunk := await cur.fetchmany(CHUNK):
                yield list(chunk)

    async def count(self, sql: str) -> int:
        return int(next(iter(await self.conn.execute_fetchall(sql)))[0])

    async def write_all(self, src: _SQLite | _Postgres, *, shown: str) -> Copied:
        await self.conn.execute("BEGIN IMMEDIATE")
        try:
            copied = await _copy_into(self, src, shown)
            await self.conn.execute("COMMIT")
        except BaseException:
            await self.conn.execute("ROLLBACK")
            raise
        return copied

    async def insert(self, table: str, cols: Sequence[str], rows: Sequence[Any]) -> None:
        await self.conn.executemany(
            f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
            rows)

    async def after_insert(self) -> None:
        pass  # INTEGER PRIMARY KEY continues after the largest id by itself


class _Postgres:
    def __init__(self, conn: Any) -> None:
        self.conn = conn

    async def columns(self, table: str) -> tuple[str, ...]:
        return tuple(r[0] for r in await self.conn.fetch(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = "
            "current_schema() AND table_name = $1 ORDER BY ordinal_position", table))

    @contextlib.asynccontextmanager
    async def snapshot(self) -> AsyncIterator[None]:
        async with self.conn.transaction(isolation="repeatable_read", readonly=True):
            yield

    async def rows(self, table: str, cols: Sequence[str]) -> AsyncIterator[list[Any]]:
        chunk: list[Any] = []
        async for record in self.conn.cursor(f"SELECT {', '.join(cols)} FROM {table}"):
            chunk.append(tuple(record))
            if len(chunk) == CHUNK:
                yield chunk
                chunk = []
        if chunk:
            yield chunk

    async def count(self, sql: str) -> int:
        return int(await self.conn.fetchval(sql))

    async def write_all(self, src: _SQLite | _Postgres, *, shown: str) -> Copied:
        async with self.conn.transaction():
            return await _copy_into(self, src, shown)

    async def insert(self, table: str, cols: Sequence[str], rows: Sequence[Any]) -> None:
        await self.conn.copy_records_to_table(table, records=rows, columns=list(cols))

    async def after_insert(self) -> None:
        # Ids were copied as they were (buttons carry them); new rows continue after them.
        for table in IDENTITIES:
            await self.conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)")


async def _counts(end: _SQLite | _Postgres) -> tuple[dict[str, int], int]:
    rows = {t: await end.count(f"SELECT COUNT(*) FROM {t}") for t in TABLES}
    return rows, await end.count("SELECT COALESCE(SUM(score), 0) FROM sessions")


async def _copy_into(dst: _SQLite | _Postgres, src: _SQLite | _Postgres, shown: str) -> Copied:
    """Inside the target's transaction: check empty, copy, verify."""
    present, _ = await _counts(dst)
    if any(present.values()):
        held = ", ".join(f"{n} {t}" for t, n in present.items() if n)
        raise CopyRefused(f"Refusing to copy into {shown}: it is not empty ({held}). Nothing "
                          "was copied; point --to at an empty database.")
    async with src.snapshot():
        expected, expected_sum = await _counts(src)
        for table in TABLES:
            # Both ends are at the same schema version, so the same columns: the
            # migrations are the one list of them.
            cols = await src.columns(table)
            if sorted(cols) != sorted(await dst.columns(table)):
                raise CopyRefused(f"copy-db: {table} has other columns in {shown}; nothing "
                                  "was copied")
            async for chunk in src.rows(table, cols):
                await dst.insert(table, cols, chunk)
    await dst.after_insert()
    got, got_sum = await _counts(dst)
    if (got, got_sum) != (expected, expected_sum):
        raise CopyRefused(f"copy-db check failed: the source has {expected} (score sum "
                          f"{expected_sum}), the target would have {got} ({got_sum}); "
                          "rolled back, nothing was copied")
    return Copied(got, got_sum)


__all__ = ["Copied", "CopyRefused", "copy_db"]
