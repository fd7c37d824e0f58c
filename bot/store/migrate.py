"""Numbered schema migrations per dialect, and opening a SQLite file safely.

Migrations are `bot/store/migrations/<dialect>/NNNN_name.sql`, applied in order at start,
each in its own transaction, and recorded in `schema_migrations`. A file that is not ours
(not SQLite, corrupt, someone else's database, a newer schema) is refused after a read-only
look, before a single byte is written.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from importlib import resources
from pathlib import Path

import aiosqlite

from bot.errors import StoreRefused

log = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"


def migrations(dialect: str = "sqlite") -> list[tuple[int, str, str]]:
    """(version, name, sql) for every numbered file of the dialect, in order."""
    found = []
    for entry in (resources.files("bot.store") / "migrations" / dialect).iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append((int(name[:4]), name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def refuse(path: object, why: str) -> StoreRefused:
    """The error for a database we will not open; it says nothing was changed."""
    return StoreRefused(
        f"Refusing to open {path}: {why}. The file was left untouched; move it aside or point "
        f"storage.url at another file.")


async def inspect_sqlite(path: Path) -> int:
    """Check an existing file read-only; return its schema version. Never writes to it."""
    with path.open("rb") as fh:
        header = fh.read(16)
    if header != SQLITE_HEADER:
        raise refuse(path, "it is not a SQLite database")
    try:
        uri = f"{path.absolute().as_uri()}?mode=ro"  # noqa: ASYNC240 - no I/O, just getcwd
        async with aiosqlite.connect(uri, uri=True) as db:
            rows = await db.execute_fetchall("PRAGMA quick_check")
            verdict = [r[0] for r in rows]
            if verdict != ["ok"]:
                raise refuse(path, f"it is corrupt ({'; '.join(verdict[:3])})")
            tables = {r[0] for r in await db.execute_fetchall(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables:
                return 0
            if "schema_migrations" not in tables:
                raise refuse(path, "it is a SQLite database, but not quizbot's")
            rows = await db.execute_fetchall("SELECT MAX(version) FROM schema_migrations")
            return int(next(iter(rows))[0] or 0)
    except sqlite3.DatabaseError as exc:
        raise refuse(path, f"it is corrupt ({exc})") from exc


async def migrate_sqlite(db: aiosqlite.Connection, known: list[tuple[int, str, str]]) -> None:
    """Apply every migration newer than the recorded version, each in its own transaction.

    `db` is in autocommit mode (isolation_level=None): the transactions here are explicit.
    """
    await db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
        "name TEXT NOT NULL, applied_at REAL NOT NULL)")
    rows = await db.execute_fetchall("SELECT version FROM schema_migrations")
    applied = {r[0] for r in rows}
    pending = [m for m in known if m[0] not in applied]
    if not pending:
        return
    # Rebuilding a table (SQLite's only way to change a CHECK) drops the old one, which with
    # foreign keys on would cascade into the rows that reference it. SQLite's documented
    # recipe: keys off outside the transaction, check them before COMMIT, back on after.
    rows = await db.execute_fetchall("PRAGMA foreign_keys")
    keys_on = bool(next(iter(rows))[0])
    await db.execute("PRAGMA foreign_keys = OFF")
    try:
        for version, name, sql in pending:
            await db.execute("BEGIN IMMEDIATE")
            try:
                for statement in statements(sql):
                    await db.execute(statement)
                broken = list(await db.execute_fetchall("PRAGMA foreign_key_check"))
                if broken:
                    raise RuntimeError(f"migration {name} breaks foreign keys: {broken[:3]}")
                await db.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)",
                                 (version, name, time.time()))
                await db.execute("COMMIT")
            except BaseException:
                await db.execute("ROLLBACK")
                raise
            log.info("applied migration %s", name)
    finally:
        if keys_on:
            await db.execute("PRAGMA foreign_keys = ON")


def statements(sql: str) -> list[str]:
    """Split a SQLite migration file into statements (sqlite3 knows the grammar)."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    return out
