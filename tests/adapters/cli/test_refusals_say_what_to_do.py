"""The operations commands' refusals of a file that is not quizbot's name what is wrong and
what to do about it ("refused: it is not a SQLite database" said only the first), and
change nothing."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from adapters.cli.main import main


def files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


@pytest.fixture
def strangers(tmp_path: Path) -> Path:
    (tmp_path / "junk.db").write_bytes(b"not a database at all " * 300)
    with sqlite3.connect(tmp_path / "foreign.db") as db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    db.close()
    return tmp_path


@pytest.mark.parametrize("name", ["junk.db", "foreign.db"])
@pytest.mark.parametrize("command", [["stats"], ["export", "--format", "csv"], ["check"]])
def test_a_live_database_that_is_not_quizbots_says_to_check_storage_url(
        name: str, command: list[str], strangers: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = strangers / "c.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{strangers / name}\n")
    before = files(strangers)

    assert main([*command, "--config", str(config)]) == 1
    out = capsys.readouterr()
    said = out.err if command != ["check"] else out.out
    assert f"{strangers / name}: refused: " in said
    assert "check that storage.url in the --config file names quizbot's database" in said
    assert files(strangers) == before


@pytest.mark.parametrize("name", ["junk.db", "foreign.db", "missing.db"])
def test_a_backup_that_is_not_quizbots_says_to_choose_one_quizbot_wrote(
        name: str, strangers: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = strangers / "c.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{strangers / 'live.db'}\n")
    before = files(strangers)

    assert main(["restore", str(strangers / name), "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"quizbot: {strangers / name}: ") and err.count("\n") == 1
    assert err.rstrip().endswith("choose a file that quizbot backup wrote")
    assert files(strangers) == before


def test_a_file_pg_restore_cannot_read_says_to_choose_one_quizbot_wrote(tmp_path: Path) -> None:
    from bot.domain.errors import OpsError
    from bot.ops import pg_backup

    try:
        pg_backup.find_tool("pg_restore")
    except OpsError as missing:
        pytest.skip(str(missing))
    text_dump = tmp_path / "backup.sql"
    text_dump.write_text("-- PostgreSQL database dump\nCREATE TABLE users (id int);\n")

    with pytest.raises(OpsError) as refused:
        pg_backup.read_archive(text_dump)
    assert str(refused.value).startswith(f"reading {text_dump} failed: pg_restore")
    assert str(refused.value).endswith("; choose a file that quizbot backup wrote")
