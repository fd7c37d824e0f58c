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
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import aiosqlite
import asyncpg

from bot.domain.errors import StoreRefused
from bot.domain.secret import Secret
from bot.store import open_url
from bot.store.sqlite import path_from_url
from bot.store.urls import redact, scheme_of

CHUNK = 5000
# In foreign-key order. Columns are the same on both dialects; the values differ only in
# type: flags (BOOL_COLUMNS) are 0/1 on SQLite and boolean on PostgreSQL, lists and payloads
# (JSON_COLUMNS) are JSON text / jsonb.
TABLES: dict[str, tuple[str, ...]] = {
    "users": ("platform", "user_id", "display_name", "lang", "created_at"),
    "rounds": ("id", "platform", "chat_id", "board_chat", "host_id", "host_name", "quiz_id",
               "lang", "question_ids", "option_orders", "seconds", "reveal_pause", "status",
               "position", "next_open_at", "started_at", "finished_at", "seed"),
    "sessions": ("id", "platform", "user_id", "chat_id", "quiz_id", "kind", "status",
                 "question_ids", "option_orders", "position", "score", "started_at",
                 "finished_at", "round_id", "seed"),
    "answers": ("session_id", "position", "question_id", "chosen", "correct", "answered_at"),
    "best_scores": ("quiz_id", "scope", "platform", "user_id", "score", "total",
                    "finished_at"),
    "round_questions": ("round_id", "qindex", "opened_at", "deadline", "revealed_at",
                        "message_ref"),
    "round_answers": ("round_id", "qindex", "user_id", "display_name", "chosen", "correct",
                      "elapsed"),
    "cards": ("platform", "user_id", "quiz_id", "question_id", "card", "due_at", "reviews",
              "updated_at"),
    "reviews": ("answer_key", "platform", "user_id", "quiz_id", "question_id", "correct",
                "sure", "rating", "reviewed_at", "day"),
    "learner_settings": ("platform", "user_id", "confidence", "utc_offset", "remind_at",
                         "chat_id"),
    "jobs": ("id", "kind", "key", "due_at", "payload", "claimed_at", "claimed_by", "attempts",
             "done_at"),
    "inbox": ("platform", "update_id", "body", "received_at", "lease_until", "done_at",
              "attempts"),
}
ORDER = {"users": "platform, user_id", "rounds": "id", "sessions": "id",
         "answers": "session_id, position", "best_scores": "quiz_id, scope, platform, user_id",
         "round_questions": "round_id, qindex", "round_answers": "round_id, qindex, user_id",
         "cards": "platform, user_id, quiz_id, question_id", "reviews": "answer_key",
         "learner_settings": "platform, user_id", "jobs": "id",
         "inbox": "platform, update_id"}
JSON_COLUMNS = ("question_ids", "option_orders", "payload")
BOOL_COLUMNS = ("correct", "sure", "confidence")
# Tables whose ids were copied as they were (buttons and jobs carry them): their identity
# sequences move past the copied ids.
IDENTITIES = ("sessions", "rounds", "jobs")


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

    @contextlib.asynccontextmanager
    async def snapshot(self) -> AsyncIterator[None]:
        await self.conn.execute("BEGIN")  # WAL: one consistent view for every read below
        try:
            yield
        finally:
            await self.conn.execute("ROLLBACK")

    async def rows(self, table: str) -> AsyncIterator[list[tuple[Any, ...]]]:
        cols = TABLES[table]
        async with self.conn.execute(
                f"SELECT {', '.join(cols)} FROM {table} ORDER BY {ORDER[table]}") as cur:
            while chunk := await cur.fetchmany(CHUNK):
                yield [_from_sqlite(cols, row) for row in chunk]

    async def counts(self) -> tuple[dict[str, int], int]:
        out = {}
        for table in TABLES:
            rows = await self.conn.execute_fetchall(f"SELECT COUNT(*) FROM {table}")
            out[table] = int(next(iter(rows))[0])
        rows = await self.conn.execute_fetchall("SELECT COALESCE(SUM(score), 0) FROM sessions")
        return out, int(next(iter(rows))[0])

    async def write_all(self, src: _SQLite | _Postgres, *, shown: str) -> Copied:
        await self.conn.execute("BEGIN IMMEDIATE")
        try:
            copied = await _copy_into(self, src, shown)
            await self.conn.execute("COMMIT")
        except BaseException:
            await self.conn.execute("ROLLBACK")
            raise
        return copied

    async def insert(self, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
        cols = TABLES[table]
        await self.conn.executemany(
            f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
            [_to_sqlite(cols, row) for row in rows])

    async def after_insert(self) -> None:
        pass  # INTEGER PRIMARY KEY continues after the largest id by itself


class _Postgres:
    def __init__(self, conn: Any) -> None:
        self.conn = conn

    @contextlib.asynccontextmanager
    async def snapshot(self) -> AsyncIterator[None]:
        async with self.conn.transaction(isolation="repeatable_read", readonly=True):
            yield

    async def rows(self, table: str) -> AsyncIterator[list[tuple[Any, ...]]]:
        cols = TABLES[table]
        select = ", ".join(f"{c}::text AS {c}" if c in JSON_COLUMNS else c for c in cols)
        cursor = self.conn.cursor(f"SELECT {select} FROM {table} ORDER BY {ORDER[table]}")
        chunk: list[tuple[Any, ...]] = []
        async for record in cursor:
            chunk.append(tuple(record[c] for c in cols))
            if len(chunk) == CHUNK:
                yield chunk
                chunk = []
        if chunk:
            yield chunk

    async def counts(self) -> tuple[dict[str, int], int]:
        out = {t: int(await self.conn.fetchval(f"SELECT COUNT(*) FROM {t}")) for t in TABLES}
        return out, int(await self.conn.fetchval("SELECT COALESCE(SUM(score), 0) FROM sessions"))

    async def write_all(self, src: _SQLite | _Postgres, *, shown: str) -> Copied:
        async with self.conn.transaction():
            return await _copy_into(self, src, shown)

    async def insert(self, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
        cols = TABLES[table]
        await self.conn.copy_records_to_table(table, records=rows, columns=list(cols))

    async def after_insert(self) -> None:
        # Ids were copied as they were (buttons carry them); new rows continue after them.
        for table in IDENTITIES:
            await self.conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)")


async def _copy_into(dst: _SQLite | _Postgres, src: _SQLite | _Postgres, shown: str) -> Copied:
    """Inside the target's transaction: check empty, copy, verify."""
    present, _ = await dst.counts()
    if any(present.values()):
        held = ", ".join(f"{n} {t}" for t, n in present.items() if n)
        raise CopyRefused(f"Refusing to copy into {shown}: it is not empty ({held}). Nothing "
                          "was copied; point --to at an empty database.")
    async with src.snapshot():
        expected, expected_sum = await src.counts()
        for table in TABLES:
            async for chunk in src.rows(table):
                await dst.insert(table, chunk)
    await dst.after_insert()
    got, got_sum = await dst.counts()
    if (got, got_sum) != (expected, expected_sum):
        raise CopyRefused(f"copy-db check failed: the source has {expected} (score sum "
                          f"{expected_sum}), the target would have {got} ({got_sum}); "
                          "rolled back, nothing was copied")
    return Copied(got, got_sum)


def _from_sqlite(cols: tuple[str, ...], row: Any) -> tuple[Any, ...]:
    return tuple(bool(v) if c in BOOL_COLUMNS and v is not None else v
                 for c, v in zip(cols, row, strict=True))


def _to_sqlite(cols: tuple[str, ...], row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(v if v is None else int(v) if c in BOOL_COLUMNS
                 else _compact(v) if c in JSON_COLUMNS else v
                 for c, v in zip(cols, row, strict=True))


def _compact(text: str) -> str:
    """jsonb prints `[0, 1]`; SQLite rows hold json.dumps's `[0, 1]` too: one canonical form."""
    return json.dumps(json.loads(text))


__all__ = ["Copied", "CopyRefused", "copy_db"]
