"""`quizbot stats` and `export` on a database an older quizbot wrote, before the bot has
started on it with this version (between `pip install` and the restart of an upgrade, or an
old backup restored): they never migrate, so what the old schema lacks ended in a
traceback ("no such column: ls.seed"). Each now answers, or says in one line which version
the file is and to start the bot once; the file is left as it was."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from adapters.cli.main import main
from bot.store.migrate import migrate_sqlite, migrations

LATEST = migrations("sqlite")[-1][0]


def old_file(path: Path, version: int) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        migrate_sqlite(db, [m for m in migrations("sqlite") if m[0] <= version])
    finally:
        db.close()


@pytest.mark.parametrize("version", [1, 6, 11, 20, LATEST - 1])
@pytest.mark.parametrize("command", [["stats"], ["export", "--format", "csv"],
                                     ["export", "--format", "json"]])
def test_a_report_on_an_older_database_answers_or_says_to_start_the_bot(
        version: int, command: list[str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "old.db"
    old_file(path, version)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    config = tmp_path / "c.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{path}\n")

    code = main([*command, "--config", str(config)])

    err = capsys.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err
    if code:
        assert code == 1
        assert err == (f"quizbot: {path}: written by an older quizbot (schema version "
                       f"{version}; this one reads {LATEST}): start the bot once with this "
                       f"version (quizbot run --config {config}, or restart its service) to "
                       "upgrade it, then run this command again\n")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml", "old.db"]


def test_export_of_a_version_6_database_is_refused_and_stats_answers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "old.db"
    old_file(path, 6)
    config = tmp_path / "c.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{path}\n")

    assert main(["stats", "--config", str(config)]) == 0
    assert capsys.readouterr().out.startswith("users     0\n")
    assert main(["export", "--format", "csv", "--config", str(config)]) == 1
    assert "schema version 6; this one reads" in capsys.readouterr().err
