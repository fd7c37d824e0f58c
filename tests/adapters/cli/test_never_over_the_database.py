"""`quizbot backup` and `quizbot export --output` given the database's own path, with
--force: the export replaced every learner's progress with a CSV, and the backup renamed a
copy over the file a running bot writes to. Both are refused, and the database is left as
it was."""

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
