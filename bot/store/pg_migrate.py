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
    version = int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM "
                                      "schema_migrations"))
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
        for number, name, sql in known:
            if number <= version:
                continue
            await conn.execute(sql)  # no arguments: the simple protocol runs the whole file
            await conn.execute("INSERT INTO schema_migrations VALUES ($1, $2, $3)",
                               number, name, time.time())
            log.info("applied migration postgres/%s", name)
    return latest
