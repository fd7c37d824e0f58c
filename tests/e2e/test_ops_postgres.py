"""Every operations command on a PostgreSQL store (issue 17): backup and restore through
pg_dump / pg_restore, stats, export and check through the read-only reader."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import asyncpg
import pytest

from bot.app.compose import build_engine
from bot.domain.quiz import Quiz
from bot.domain.results import Actor, AnswerResult
from bot.ops import pg_backup
from bot.store import open_url
from bot.store.urls import split_password
from tests.e2e.test_ops_cli import quizbot
from tests.helpers import right_option


async def finish(url: str, quizzes: dict[str, Quiz], users: int) -> None:
    store = await open_url(url, pool_size=2)
    try:
        engine = build_engine(store, quizzes, rng=random.Random(3))
        for n in range(users):
            actor = Actor("telegram", str(n + 1), chat_id="-100", display_name=f"L{n}")
            prompt = await engine.start(actor, "parallelism")
            while True:
                result = await engine.answer(actor, prompt.session_id, prompt.position,
                                             right_option(quizzes, prompt))
                assert isinstance(result, AnswerResult)
                if result.next is None:
                    break
                prompt = result.next
    finally:
        await store.close()


async def count(url: str, sql: str) -> int:
    bare, password = split_password(url)
    conn = await asyncpg.connect(bare, password=password or None)
    try:
        return int(await conn.fetchval(sql))
    finally:
        await conn.close()


@pytest.fixture
def deployment(tmp_path: Path, postgres_url: str, process_content: Path) -> Path:
    (tmp_path / "config.yaml").write_text(f"storage:\n  url: {postgres_url}\n"
                                          f"content:\n  dir: {process_content}\n")
    return tmp_path


async def test_backup_and_restore_round_trip(deployment: Path, postgres_url: str,
                                             quizzes: dict[str, Quiz]) -> None:
    await finish(postgres_url, quizzes, 2)
    done = await asyncio.to_thread(quizbot, deployment, "backup", "pg.dump", "--config",
                                   "config.yaml")
    assert done.returncode == 0, done.stderr
    assert "pg_dump custom format" in done.stdout
    assert split_password(postgres_url)[1] not in done.stdout + done.stderr
    again = await asyncio.to_thread(quizbot, deployment, "backup", "pg.dump", "--config",
                                    "config.yaml")
    assert again.returncode == 1 and "already exists" in again.stderr

    await count(postgres_url, "WITH gone AS (DELETE FROM answers RETURNING 1) "
                              "SELECT COUNT(*) FROM gone")
    assert await count(postgres_url, "SELECT COUNT(*) FROM answers") == 0
    done = await asyncio.to_thread(quizbot, deployment, "restore", "pg.dump", "--config",
                                   "config.yaml")
    assert done.returncode == 0, done.stderr
    assert await count(postgres_url, "SELECT COUNT(*) FROM answers") == 16

    # the restored database is a working store again
    await finish(postgres_url, quizzes, 3)  # three more full attempts
    assert await count(postgres_url, "SELECT COUNT(*) FROM answers") == 16 + 3 * 8


async def test_backup_and_restore_refuse_another_applications_database(
        deployment: Path, postgres_url: str, quizzes: dict[str, Quiz]) -> None:
    await finish(postgres_url, quizzes, 1)
    done = await asyncio.to_thread(quizbot, deployment, "backup", "good.dump", "--config",
                                   "config.yaml")
    assert done.returncode == 0, done.stderr
    # storage.url now names another application's database (a typo'd database name, say)
    bare, password = split_password(postgres_url)
    conn = await asyncpg.connect(bare, password=password or None)
    await conn.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public; "
                       "CREATE TABLE invoices (id integer); INSERT INTO invoices VALUES (7)")
    await conn.close()
    for args in (("restore", "good.dump", "--force"), ("backup", "theirs.dump")):
        refused = await asyncio.to_thread(quizbot, deployment, *args, "--config", "config.yaml")
        assert refused.returncode == 1, refused.stdout
        assert "it has tables (invoices) but no schema_migrations: it is not quizbot's" in \
            refused.stderr and "Traceback" not in refused.stderr
    assert not (deployment / "theirs.dump").exists()
    # nothing of quizbot's was written beside their table
    assert await count(postgres_url, "SELECT COUNT(*) FROM information_schema.tables "
                                     "WHERE table_schema = 'public'") == 1
    assert await count(postgres_url, "SELECT COUNT(*) FROM invoices") == 1


async def test_restore_refuses_a_crafted_archive_and_a_busy_database(
        deployment: Path, postgres_url: str, quizzes: dict[str, Quiz]) -> None:
    await finish(postgres_url, quizzes, 1)
    bare, password = split_password(postgres_url)
    conn = await asyncpg.connect(bare, password=password or None)
    await conn.execute("CREATE FUNCTION wipe() RETURNS trigger LANGUAGE plpgsql AS "
                       "$$ BEGIN DELETE FROM answers; RETURN NEW; END $$")
    await conn.execute("CREATE TRIGGER wipe AFTER INSERT ON sessions "
                       "FOR EACH ROW EXECUTE FUNCTION wipe()")
    await conn.close()
    done = await asyncio.to_thread(quizbot, deployment, "backup", "evil.dump", "--config",
                                   "config.yaml")
    assert done.returncode == 0, done.stderr
    refused = await asyncio.to_thread(quizbot, deployment, "restore", "evil.dump", "--force",
                                      "--config", "config.yaml")
    assert refused.returncode == 1 and "which quizbot never creates" in refused.stderr
    assert "Traceback" not in refused.stderr

    conn = await asyncpg.connect(bare, password=password or None)
    await conn.execute("DROP TRIGGER wipe ON sessions")
    await conn.execute("DROP FUNCTION wipe()")
    await conn.close()
    assert (await asyncio.to_thread(quizbot, deployment, "backup", "good.dump", "--config",
                                    "config.yaml")).returncode == 0
    store = await open_url(postgres_url, pool_size=1)  # a running bot
    try:
        busy = await asyncio.to_thread(quizbot, deployment, "restore", "good.dump", "--force",
                                       "--config", "config.yaml")
    finally:
        await store.close()
    assert busy.returncode == 1 and "stop the bot first" in busy.stderr

    await finish(postgres_url, quizzes, 2)  # activity newer than good.dump
    newer = await asyncio.to_thread(quizbot, deployment, "restore", "good.dump", "--config",
                                    "config.yaml")
    assert newer.returncode == 1 and "newer than the backup" in newer.stderr
    forced = await asyncio.to_thread(quizbot, deployment, "restore", "good.dump", "--force",
                                     "--config", "config.yaml")
    assert forced.returncode == 0, forced.stderr
    assert "newer activity discarded" in forced.stdout
    assert await count(postgres_url, "SELECT COUNT(*) FROM answers") == 8


async def test_stats_export_and_check_read_postgres(deployment: Path, postgres_url: str,
                                                    quizzes: dict[str, Quiz]) -> None:
    await finish(postgres_url, quizzes, 2)
    stats = await asyncio.to_thread(quizbot, deployment, "stats", "--config", "config.yaml")
    assert stats.returncode == 0, stats.stderr
    assert "users     2" in stats.stdout and "answers   16" in stats.stdout
    export = await asyncio.to_thread(quizbot, deployment, "export", "--format", "json",
                                     "--chat", "telegram:-100", "--config", "config.yaml")
    assert export.returncode == 0, export.stderr
    data = json.loads(export.stdout)
    assert [(r["display_name"], r["best_score"]) for r in data["learners"]] == [
        ("L0", 8), ("L1", 8)]
    check = await asyncio.to_thread(quizbot, deployment, "check", "--config", "config.yaml",
                                    env={"TELEGRAM_BOT_TOKEN": "1:abcdefghijklmnop"})
    assert check.returncode == 0, check.stdout + check.stderr
    assert "ok   database: postgresql://" in check.stdout and "2 users" in check.stdout
    assert split_password(postgres_url)[1] not in check.stdout


def test_a_missing_pg_dump_is_one_clear_line(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(pg_backup, "PG_BIN_GLOB", str(tmp_path / "nowhere" / "*" / "bin"))
    with pytest.raises(pg_backup.OpsError, match="pg_dump was not found on PATH"):
        pg_backup.find_tool("pg_dump")
