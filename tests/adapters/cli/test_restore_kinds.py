"""`quizbot restore` of the other store's backup says so and what to do: pg_restore's "not a
valid archive" and SQLite's "not a SQLite database" did not."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from adapters.cli.main import main


def test_a_backup_of_the_other_store_is_refused_saying_what_to_do(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sqlite_backup = tmp_path / "backup.db"
    with sqlite3.connect(sqlite_backup) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    pg_archive = tmp_path / "backup.dump"
    pg_archive.write_bytes(b"PGDMP\x01\x0f\x00" + bytes(64))  # pg_dump's custom format
    postgres = tmp_path / "pg.yaml"
    postgres.write_text("storage:\n  url: postgresql://quizbot@127.0.0.1:9/nowhere\n")
    sqlite = tmp_path / "sqlite.yaml"
    sqlite.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'live.db'}\n")

    assert main(["restore", str(sqlite_backup), "--config", str(postgres)]) == 1
    assert capsys.readouterr().err == (
        f"quizbot: {sqlite_backup}: is a SQLite backup and storage.url is PostgreSQL: restore "
        "it with a sqlite:/// storage.url, then move it with quizbot copy-db\n")
    assert main(["restore", str(pg_archive), "--force", "--config", str(sqlite)]) == 1
    assert capsys.readouterr().err == (
        f"quizbot: {pg_archive}: is a PostgreSQL backup (pg_dump) and storage.url is SQLite: "
        "restore it with a postgresql:// storage.url, then move it with quizbot copy-db\n")
    assert not (tmp_path / "live.db").exists()  # nothing made for a refused restore
