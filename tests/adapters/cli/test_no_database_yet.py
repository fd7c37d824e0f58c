"""The ops commands before the database exists, run as docs/deploy.md's `qb` runs them
(`--config /etc/quizbot/config.yaml` appended): the refusal names what makes the database
the config points at."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli.main import main


@pytest.mark.parametrize("command", [["stats"], ["export", "--format", "csv"],
                                     ["backup", "b.db"]])
def test_with_a_config_it_says_to_start_the_bot_with_that_config(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It said '(quizbot run, or a first quizbot play)': play without --config makes the
    # learner's own database in their data folder, never the one the config names.
    db, config = tmp_path / "quizbot.db", tmp_path / "my config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{db}\n")
    if command[0] == "backup":
        command = ["backup", str(tmp_path / "b.db")]

    assert main([*command, "--config", str(config)]) == 1

    assert capsys.readouterr().err == (
        f"quizbot: {db}: no database yet; quizbot makes it when it first starts (start the "
        f"bot once: quizbot run --config '{config}', or start its service), and until then "
        "there is nothing to read\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my config.yaml"]
