"""`quizbot check` on the empty PostgreSQL database a deployment starts with (`createdb`,
Compose's postgres service): quizbot creates its tables there on first start, as it creates
a SQLite file, so check says so instead of failing."""

from __future__ import annotations

import asyncio
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
