"""PostgreSQL: migrations once under a lock, refusal without writing, no password shown."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import asyncpg
import pytest

from adapters.cli.main import main
from bot.app.config import load_config
from bot.domain.errors import ConfigError, StoreRefused
from bot.store import open_store, open_url
from bot.store.commands import sessions_sql
from bot.store.migrate import migrations
from bot.store.postgres import PostgresStore
from bot.store.urls import redact, split_password


async def snapshot(url: str) -> list[tuple[str, str, int]]:
    """Every table of the public schema with its columns and row count."""
    conn = await asyncpg.connect(url)
    try:
        tables = await conn.fetch(
            "SELECT table_name, string_agg(column_name || ':' || data_type, ',' "
            "ORDER BY column_name) AS cols FROM information_schema.columns "
            "WHERE table_schema = 'public' GROUP BY table_name ORDER BY table_name")
        out = []
        for t in tables:
            count = await conn.fetchval(f'SELECT COUNT(*) FROM "{t["table_name"]}"')
            out.append((t["table_name"], t["cols"], count))
        return out
    finally:
        await conn.close()


async def run_sql(url: str, *statements: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


def password_of(url: str) -> str:
    password = split_password(url)[1]
    assert len(password) >= 8  # the test server has one, and long enough to search for
    return password


async def assert_refused_untouched(url: str, match: str) -> None:
    before = await snapshot(url)
    with pytest.raises(StoreRefused, match=match) as caught:
        await open_url(url)
    assert password_of(url) not in str(caught.value)
    assert await snapshot(url) == before


async def test_migrations_are_recorded_once(postgres_url: str):
    for _ in range(2):
        await (await open_url(postgres_url)).close()
    conn = await asyncpg.connect(postgres_url)
    try:
        versions = [r["version"] for r in await conn.fetch(
            "SELECT version FROM schema_migrations ORDER BY version")]
        index = await conn.fetchval(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'sessions_one_active'")
    finally:
        await conn.close()
    assert versions == [v for v, _, _ in migrations("postgres")]
    assert "UNIQUE" in index and "WHERE (status = 'active'::text)" in index


async def test_workers_starting_together_migrate_once(postgres_url: str):
    stores = await asyncio.gather(*(open_url(postgres_url) for _ in range(6)))
    for store in stores:
        await store.close()
    tables = {t for t, _, _ in await snapshot(postgres_url)}
    assert {"users", "sessions", "answers", "best_scores", "schema_migrations"} <= tables
    assert [c for t, _, c in await snapshot(postgres_url) if t == "schema_migrations"] == [
        len(migrations("postgres"))]


async def test_someone_elses_database_is_refused_untouched(postgres_url: str):
    await run_sql(postgres_url, "CREATE TABLE invoices (id integer PRIMARY KEY)",
                  "INSERT INTO invoices VALUES (1), (2)")
    await assert_refused_untouched(postgres_url, "no schema_migrations: it is not quizbot's")


async def test_a_foreign_schema_migrations_table_is_refused_untouched(postgres_url: str):
    # e.g. a Rails or golang-migrate database: same table name, another shape
    await run_sql(postgres_url, "CREATE TABLE schema_migrations (version varchar PRIMARY KEY)",
                  "INSERT INTO schema_migrations VALUES ('20240101000000')")
    await assert_refused_untouched(postgres_url, "schema_migrations table is not quizbot's")


async def test_a_newer_schema_is_refused_untouched(postgres_url: str):
    await (await open_url(postgres_url)).close()
    await run_sql(postgres_url, "INSERT INTO schema_migrations VALUES (999, '0999_x.sql', 0)")
    await assert_refused_untouched(postgres_url, "version 999, newer than this quizbot")


def test_the_password_is_split_off_and_redacted():
    PASSWORD = "pg-Pa55word-test"
    url = f"postgresql://quiz%40bot:{PASSWORD}@db.internal:5432/quizbot"
    bare, password = split_password(url)
    assert bare == "postgresql://quiz%40bot@db.internal:5432/quizbot" and password == PASSWORD
    assert redact(url) == "postgresql://quiz%40bot:***@db.internal:5432/quizbot"
    assert split_password("sqlite:///data/q.db") == ("sqlite:///data/q.db", "")


async def test_the_password_shows_nowhere(postgres_url: str, tmp_path: Path,
                                          caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.DEBUG)
    PASSWORD = password_of(postgres_url)
    path = tmp_path / "config.yaml"
    path.write_text(f"storage:\n  url: {postgres_url}\n  pool_size: 3\n", encoding="utf-8")
    config = load_config(path, env={})
    assert PASSWORD not in repr(config) and PASSWORD not in config.storage_url
    store = await open_store(config)  # the password travels as a Secret
    try:
        assert isinstance(store, PostgresStore) and PASSWORD not in repr(store)
        assert await sessions_sql.touch_user(store, "t", "1", "A", time.time()) is None
    finally:
        await store.close()
    wrong = postgres_url.replace(PASSWORD, "Wr0ng-" + PASSWORD[::-1])
    with pytest.raises(StoreRefused, match="password authentication failed") as caught:
        await open_url(wrong)
    assert "Wr0ng" not in str(caught.value) and PASSWORD[::-1] not in str(caught.value)
    unreachable = postgres_url.rsplit("@", 1)[0] + "@127.0.0.1:1/quizbot"
    with pytest.raises(StoreRefused, match="Cannot use the database") as caught:
        await open_url(unreachable)
    assert PASSWORD not in str(caught.value)
    assert not [r for r in caplog.records if PASSWORD in r.getMessage()]


async def test_a_database_that_cannot_be_used_says_what_to_do(postgres_server: str) -> None:
    """The server's own words named the cause but not the fix: a maintainer meeting these
    on the first start (or in `quizbot check`) is told what to change."""
    password = password_of(postgres_server)
    base = postgres_server.rsplit("/", 1)[0]
    cases = [
        (postgres_server.replace(password, "Wr0ng-pw"), "password authentication failed",
         "check the password (in the URL, or PGPASSWORD)"),
        (f"{base}/no_such_quizbot_db", 'database "no_such_quizbot_db" does not exist',
         "create the database (createdb, or Compose's postgres service) or fix its name "
         "in the URL"),
        (postgres_server.rsplit("@", 1)[0] + "@127.0.0.1:1/quizbot", "Connect call failed",
         "is PostgreSQL running and listening there? check the host and port in the URL"),
    ]
    for url, cause, fix in cases:
        with pytest.raises(StoreRefused) as caught:
            await open_url(url)
        assert cause in str(caught.value) and str(caught.value).endswith(f"; {fix}")
        assert password not in str(caught.value)


def test_copy_db_errors_never_show_a_password(postgres_server: str,
                                              capsys: pytest.CaptureFixture[str]):
    PASSWORD = password_of(postgres_server)
    wrong = postgres_server.replace(PASSWORD, "Wr0ng-" + PASSWORD[::-1])
    unreachable = postgres_server.rsplit("@", 1)[0] + "@127.0.0.1:1/quizbot"
    assert main(["copy-db", "--from", unreachable, "--to", wrong]) == 1
    err = capsys.readouterr().err
    assert f"Cannot use the database {split_password(unreachable)[0]}:" in err
    assert PASSWORD not in err
    assert main(["copy-db", "--from", wrong, "--to", unreachable]) == 1
    err = capsys.readouterr().err
    assert "password authentication failed" in err and "Wr0ng" not in err


async def test_an_unknown_scheme_names_the_key():
    with pytest.raises(ConfigError, match=r"storage\.url must be sqlite:///.* or postgresql://"):
        await open_url("mysql://root:hunter2@db/q")
    with pytest.raises(ConfigError) as caught:
        await open_url("mysql://root:hunter2@db/q")
    assert "hunter2" not in str(caught.value)
