"""One schema on both dialects: the same tables, columns and types at the same version;
old databases upgrade in place with their rows; any number of processes may start together
on a new or an old SQLite file."""

from __future__ import annotations

import os
import selectors
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from bot.store import open_url
from bot.store.commands import jobs_sql, learning_sql, sessions_sql
from bot.store.migrate import RENUMBERED, TABLES, migrate_sqlite, migrations

ROOT = Path(__file__).resolve().parents[3]
SAME_TYPE = {"INTEGER": {"integer", "bigint"}, "TEXT": {"text"}, "REAL": {"double precision"}}


def sqlite_columns(path: Path) -> dict[str, dict[str, str]]:
    db = sqlite3.connect(path)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                           "AND name <> 'schema_migrations'")]
        return {t: {r[1]: r[2].upper() for r in db.execute(f"PRAGMA table_info({t})")}
                for t in tables}
    finally:
        db.close()


async def postgres_columns(url: str) -> dict[str, dict[str, str]]:
    conn = await asyncpg.connect(url)
    try:
        out: dict[str, dict[str, str]] = {}
        for r in await conn.fetch(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'"):
            out.setdefault(r["table_name"], {})[r["column_name"]] = r["data_type"]
        return out
    finally:
        await conn.close()


async def test_both_dialects_hold_the_same_tables_columns_and_types(tmp_path: Path,
                                                                     postgres_url: str):
    await (await open_url(f"sqlite:///{tmp_path / 'q.db'}")).close()
    await (await open_url(postgres_url)).close()
    lite, pg = sqlite_columns(tmp_path / "q.db"), await postgres_columns(postgres_url)
    assert set(lite) == set(pg) == set(TABLES)  # copy-db's table list is complete
    for table in TABLES:
        assert set(lite[table]) == set(pg[table]), table
        for column, kind in lite[table].items():
            assert pg[table][column] in SAME_TYPE[kind], (table, column, kind, pg[table][column])
    assert [v for v, _, _ in migrations("sqlite")][-1] == [v for v, _, _ in
                                                           migrations("postgres")][-1]


async def test_a_postgres_database_of_the_old_numbering_upgrades_with_its_rows(
        postgres_url: str):
    """Version 2 as PostgreSQL numbered it before both dialects shared one numbering."""
    conn = await asyncpg.connect(postgres_url)
    try:
        for number, _, sql in migrations("postgres"):
            if number <= 6:
                await conn.execute(sql)
        await conn.execute("CREATE TABLE schema_migrations (version integer PRIMARY KEY, "
                           "name text NOT NULL, applied_at double precision NOT NULL)")
        for old, old_name in RENUMBERED:
            await conn.execute("INSERT INTO schema_migrations VALUES ($1, $2, 0)", old,
                               old_name)
        await conn.execute(
            "INSERT INTO users VALUES ('t', '1', 'T', 'ur', 0);"
            "INSERT INTO sessions (id, platform, user_id, quiz_id, kind, status, question_ids, "
            "option_orders, position, score, started_at) VALUES (9, 't', '1', 'quiz', 'full', "
            "'active', '[\"a\", \"b\"]', '[[1, 0], [0, 1]]', 1, 1, 5);"
            "INSERT INTO answers VALUES (9, 0, 'a', 1, true, 6);"
            "INSERT INTO learner_settings (platform, user_id, confidence) VALUES ('t', '1', true);"
            "INSERT INTO reviews VALUES ('s:9:0', 't', '1', 'quiz', 'a', true, false, 3, 6, 0);"
            "INSERT INTO jobs (kind, key, due_at, payload) VALUES ('remind', 'k', 7, "
            "'{\"chat\": \"c\"}')")
    finally:
        await conn.close()
    store = await open_url(postgres_url)
    try:
        session, answer = await store.read(sessions_sql.session_and_answer, 9, 0)
        assert session is not None and session.question_ids == ("a", "b")
        assert session.option_orders == ((1, 0), (0, 1)) and session.confidence
        assert answer is not None and answer.correct and answer.chosen == 1
        [total] = await store.read(learning_sql.review_totals, "t", "1")
        assert (total.sure, total.correct) == (False, 1)
        [job] = await store.write(jobs_sql.claim_due, 10, 5, "w", 60)
        assert job.payload == {"chat": "c"}
    finally:
        await store.close()
    conn = await asyncpg.connect(postgres_url)
    try:
        versions = [r[0] for r in await conn.fetch("SELECT version FROM schema_migrations "
                                                    "ORDER BY version")]
    finally:
        await conn.close()
    assert versions == [v for v, _, _ in migrations("postgres")]


# A process that opens the store on every path it is sent (as `quizbot play` does at start),
# writes one row, closes, and says how it went: started once, it races its siblings on each
# new path the moment the test sends it.
WORKER = """
import asyncio, os, sys, time
from pathlib import Path
from bot.store.commands import sessions_sql
from bot.store.sqlite import SQLiteStore

async def open_once(path):
    store = await SQLiteStore.open(path)
    try:
        await sessions_sql.touch_user(store, "t", str(os.getpid()), "x", time.time())
    finally:
        await store.close()

for line in sys.stdin:
    try:
        asyncio.run(open_once(Path(line.strip())))
        print("ok", flush=True)
    except Exception as exc:
        print("fail", type(exc).__name__, str(exc).replace(chr(10), " "), flush=True)
"""
PROCESSES, RACES, RACE_TIMEOUT = 8, 20, 60.0


@pytest.fixture(scope="module")
def racers() -> Iterator[list[subprocess.Popen[str]]]:
    """PROCESSES workers, started once for this module's races (a start is a second of CPU)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    workers = [subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
               for _ in range(PROCESSES)]
    try:
        yield workers
    finally:
        for w in workers:
            assert w.stdin is not None
            w.stdin.close()
        for w in workers:
            w.wait(timeout=RACE_TIMEOUT)
            assert w.stdout is not None
            w.stdout.close()


def race(workers: list[subprocess.Popen[str]], paths: list[Path]) -> list[list[str]]:
    """Each path opened by every worker at once; every worker's answer per path."""
    answers: list[list[str]] = []
    with selectors.DefaultSelector() as sel:
        for w in workers:
            assert w.stdout is not None
            sel.register(w.stdout, selectors.EVENT_READ)
        for path in paths:
            for w in workers:
                assert w.stdin is not None
                w.stdin.write(f"{path}\n")
                w.stdin.flush()
            got: list[str] = []
            deadline = time.monotonic() + RACE_TIMEOUT
            while len(got) < len(workers):
                ready = sel.select(timeout=max(0.0, deadline - time.monotonic()))
                assert ready, f"{path}: only {len(got)} of {len(workers)} answered: {got}"
                got += [key.fileobj.readline().strip() for key, _ in ready]  # type: ignore[union-attr]
            answers.append(got)
    return answers


def check(path: Path, kept: frozenset[str] = frozenset()) -> None:
    db = sqlite3.connect(path)
    try:
        versions = [r[0] for r in db.execute("SELECT version FROM schema_migrations "
                                             "ORDER BY version")]
        users = {r[0] for r in db.execute("SELECT user_id FROM users")}
    finally:
        db.close()
    assert versions == [v for v, _, _ in migrations("sqlite")]  # each applied once
    assert len(users - kept) == PROCESSES and kept <= users  # every process wrote; rows kept


def test_eight_processes_starting_together_on_a_new_file_all_open_it(
        tmp_path: Path, racers: list[subprocess.Popen[str]]) -> None:
    paths = [tmp_path / f"new-{i}.db" for i in range(RACES)]
    for path, answers in zip(paths, race(racers, paths), strict=True):
        assert answers == ["ok"] * PROCESSES, (path, answers)
        check(path)


def _version_6_file(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        migrate_sqlite(db, [m for m in migrations("sqlite") if m[0] <= 6])
        db.execute("INSERT INTO users VALUES ('t', 'old', 'Old', 'en', 0)")
    finally:
        db.close()


def test_eight_processes_starting_together_on_a_version_6_file_all_open_it(
        tmp_path: Path, racers: list[subprocess.Popen[str]]) -> None:
    template = tmp_path / "v6.db"
    _version_6_file(template)
    paths = [tmp_path / f"old-{i}.db" for i in range(RACES)]
    for path in paths:
        shutil.copy(template, path)
    for path, answers in zip(paths, race(racers, paths), strict=True):
        assert answers == ["ok"] * PROCESSES, (path, answers)
        check(path, frozenset({"old"}))


def test_a_schema_that_turns_newer_after_the_check_names_the_option_that_chose_it(
        tmp_path: Path) -> None:
    """The version is read again under the write lock (another process may have upgraded the
    file since the check before it): that refusal names what pointed at the file, e.g.
    copy-db's --to, as the earlier check does, not always storage.url."""
    path = tmp_path / "q.db"
    db = sqlite3.connect(path, isolation_level=None)
    try:
        migrate_sqlite(db, migrations("sqlite"), path)
        db.execute("INSERT INTO schema_migrations VALUES (999, '0999_future.sql', 0)")
        with pytest.raises(Exception, match=r"version 999.*point --to at another file"):
            migrate_sqlite(db, migrations("sqlite"), path, "--to")
        assert db.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] == 999
    finally:
        db.close()
