"""`quizbot check` on an empty database: the PostgreSQL one a deployment starts with
(`createdb`, Compose's postgres service), or the SQLite file a first start left with no
tables when it failed (a full disk). `quizbot run` creates its tables in either, so check
says so instead of failing (stats and the other commands still have nothing to read)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from adapters.cli.main import main
from bot.store.urls import split_password


async def test_check_passes_an_empty_postgres_database_run_will_migrate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        postgres_url: str) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "1:a")
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: {postgres_url}\n")
    code = await asyncio.to_thread(main, ["check", "--config", str(config)])
    out = capsys.readouterr().out
    assert code == 0, out  # was: FAIL database: ...: is not a quizbot database (it is empty)
    line = next(x for x in out.splitlines() if x.startswith("ok   database: postgresql://"))
    assert line.endswith(": empty (quizbot creates its tables on first start)")
    assert split_password(postgres_url)[1] not in out
    stats = await asyncio.to_thread(main, ["stats", "--config", str(config)])
    assert stats == 1  # nothing to report yet: still one line saying so
    assert "it is empty" in capsys.readouterr().err


def test_check_passes_a_sqlite_file_a_failed_first_start_left_empty(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
        ) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "1:a")
    db = tmp_path / "q.db"
    with sqlite3.connect(db) as conn:  # the header and WAL mode, no tables: what is left
        conn.execute("PRAGMA journal_mode=wal")
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{db}\n")
    assert main(["check", "--config", str(config)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # was: FAIL database: ...: refused: it is a SQLite database, but not quizbot's (it has
    # no tables), while `quizbot run` migrates the file as it is
    assert f"ok   database: {db}: empty (quizbot creates its tables on first start)" in lines
    assert main(["stats", "--config", str(config)]) == 1
    assert "it has no tables" in capsys.readouterr().err
