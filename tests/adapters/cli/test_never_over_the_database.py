"""`quizbot backup` and `quizbot export --output` given the database's own path, with
--force: the export replaced every learner's progress with a CSV, and the backup renamed a
copy over the file a running bot writes to. Both are refused, and the database is left as
it was. `import` and `export-quiz`, which have no config to name the live database, refuse
any quizbot database (and its side files) as their --output."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

import pytest

from adapters.cli.main import main
from bot.store.sqlite import SQLiteStore


async def made(db: Path) -> None:
    await (await SQLiteStore.open(db)).close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("command", [["backup", "{target}", "--force"],
                                     ["export", "--format", "csv", "--output", "{target}",
                                      "--force"]])
@pytest.mark.parametrize("name", ["q.db", "link.db", "../data/q.db"])
def test_the_database_itself_is_never_the_target(
        command: list[str], name: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "data").mkdir()
    db = tmp_path / "data" / "q.db"
    config = tmp_path / "c.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{db}\n")
    asyncio.run(made(db))
    os.link(db, tmp_path / "data" / "link.db")  # the same file by another name
    before = digest(db)
    target = tmp_path / "data" / name

    argv = [part.replace("{target}", str(target)) for part in command]
    assert main([*argv, "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert err == (f"quizbot: {target}: is the database itself ({db}); write the backup or "
                   "export to another file\n")
    assert digest(db) == before
    assert main(["stats", "--config", str(config)]) == 0


FIXTURES = Path(__file__).parents[2] / "fixtures" / "import"


@pytest.mark.parametrize("command", [
    ["import", str(FIXTURES / "spec.aiken"), "--format", "aiken", "--id", "mine"],
    ["export-quiz", "parallelism", "--format", "csv"]])
@pytest.mark.parametrize("name", ["q.db", "q.db-wal", "q.db-shm", "q.db-journal", "copy.db"])
def test_a_quizbot_database_is_never_an_output(
        command: list[str], name: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "q.db"
    asyncio.run(made(db))
    for side in ("-wal", "-shm", "-journal"):
        Path(f"{db}{side}").write_bytes(b"side file " * 10)  # as a live bot (or a crash) leaves
    (tmp_path / "copy.db").write_bytes(db.read_bytes())  # a backup, or the database elsewhere
    before = {p.name: digest(p) for p in tmp_path.iterdir()}
    target = tmp_path / name

    assert main([*command, "--output", str(target), "--force"]) == 1
    err = capsys.readouterr().err
    what = ("a quizbot database" if name.endswith(".db")
            else f"a file of the quizbot database {db}")
    assert err.splitlines()[-1] == (f"quizbot: {target}: is {what}; choose another file "
                                    "(nothing was written)")
    assert {p.name: digest(p) for p in tmp_path.iterdir()} == before


def test_a_sqlite_file_not_quizbots_is_no_reason_to_refuse(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.db"
    other.write_bytes(b"SQLite format 3\x00" + bytes(84))  # a header with no application id
    assert main(["export-quiz", "parallelism", "--format", "csv", "--output", str(other),
                 "--force"]) == 0
    assert other.read_bytes().startswith("\ufeff".encode())
