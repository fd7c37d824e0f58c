"""A content folder with no quiz file in it: validate, check and play say what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli.main import main

HINT = ("no quiz files (*.yaml) found; write one as content/README.md shows, or convert a "
        "GIFT, Moodle XML, Aiken or CSV file with quizbot import")


def test_an_empty_content_folder_is_told_with_what_to_put_there(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It said only "quizzes: no quiz files (*.yaml) found", and check named the folder twice
    # ("FAIL content: quizzes: quizzes: no quiz files ...").
    folder = tmp_path / "quizzes"
    folder.mkdir()
    assert main(["validate", str(folder)]) == 1
    assert f"{folder}: {HINT}\n" in capsys.readouterr().err
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n"
                      f"content:\n  dir: {folder}\n")
    assert main(["check", "--config", str(config)]) == 1
    assert f"FAIL content: {folder}: {HINT}\n" in capsys.readouterr().out
