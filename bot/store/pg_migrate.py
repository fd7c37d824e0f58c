"""Migrations on PostgreSQL: look first (read only), then migrate under an advisory lock.

A database is ours when its schema is empty or holds our `schema_migrations` table (same
columns and types). Anything else, and a schema newer than this quizbot knows, is refused
before a single statement that writes runs. Several workers starting at once serialise on
`pg_advisory_xact_lock`: the first applies the migrations, the others find them recorded.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from bot.domain.errors import StoreRefused
from bot.store.migrate import migrations

log = logging.getLogger(__name__)

# Any constant; only quizbot takes it, so it cannot collide with another application's lock
# unless that application picked the same 63-bit number.
MIGRATION_LOCK = 0x71_75_69_7A_62_6F_74  # "quizbot"
SCHEMA_MIGRATIONS = {"version": "integer", "name": "text", "applied_at": "double precision"}
# Before both dialects shared one numbering, PostgreSQL's files were 0001 (SQLite's 1-3) and
# 0002 (SQLite's 5-6); databases that recorded them are renumbered, rows and all, in place.
RENUMBERED = {(1, "0001_init.sql"): (3, "0003_init.sql"),
              (2, "0002_rounds_learning.sql"): (6, "0006_rounds_learning.sql")}


def refuse_pg(url: str, why: str) -> StoreRefused:
    """The error for a database we will not use; `url` must already be redacted."""
    return StoreRefused(f"Refusing to use the database {url}: {why}. Nothing was written to "
                        "it; point storage.url at an empty database or quizbot's own.")


async def inspect_postgres(conn: Any, url: str, latest: int) -> int:
    """Our schema version in the connection's current schema (0: empty); refuse otherwise.

    Only reads the catalogue and `schema_migrations`.
    """
    tables = {r["table_name"] for r in await conn.fetch(
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = current_schema()")}
    if not tables:
        return 0
    if "schema_migrations" not in tables:
        raise refuse_pg(url, f"it has tables ({', '.join(sorted(tables)[:5])}) but no "
                             "schema_migrations: it is not quizbot's")
    columns = {r["column_name"]: r["data_type"] for r in await conn.fetch(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = 'schema_migrations'")}
    if columns != SCHEMA_MIGRATIONS:
        raise refuse_pg(url, "its schema_migrations table is not quizbot's "
                             f"(columns {', '.join(sorted(columns))})")
    recorded = {(int(r["version"]), r["name"]) for r in await conn.fetch(
        "SELECT version, name FROM schema_migrations")}
    version = max((RENUMBERED.get(r, r)[0] for r in recorded), default=0)
    if version > latest:
        raise refuse_pg(url, f"its schema is version {version}, newer than this quizbot "
                             f"understands ({latest}); upgrade quizbot")
    return version


async def migrate_postgres(conn: Any, url: str) -> int:
    """Refuse a foreign or newer database, else apply what is missing; return the version."""
    known = migrations("postgres")
    latest = known[-1][0]
    if await inspect_postgres(conn, url, latest) == latest:
        return latest  # the common case: no lock, no write
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        # Another worker may have migrated (or someone created tables) while we waited.
        version = await inspect_postgres(conn, url, latest)
        if version == 0:
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, "
                "name text NOT NULL, applied_at double precision NOT NULL)")
        for (old, old_name), (new, new_name) in RENUMBERED.items():
            await conn.execute("UPDATE schema_migrations SET version = $1, name = $2 "
                               "WHERE version = $3 AND name = $4", new, new_name, old, old_name)
        for number, name, sql in known:
            if number <= version:
                continue
            await conn.execute(sql)  # no arguments: the simple protocol runs the whole file
            await conn.execute("INSERT INTO schema_migrations VALUES ($1, $2, $3)",
                               number, name, time.time())
            log.info("applied migration postgres/%s", name)
    return latest
