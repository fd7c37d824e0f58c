"""`quizbot stats` on a database nobody has answered in yet."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli.main import main


def test_stats_before_any_answer_says_when_accuracy_appears(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It ended on "no answers in full attempts yet", saying nothing of what makes some.
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    assert main(["quizzes", "list", "--config", str(config)]) == 0  # the database, empty
    capsys.readouterr()
    assert main(["stats", "--config", str(config)]) == 0
    assert capsys.readouterr().out.endswith(
        "no answers in full attempts yet: accuracy per question appears here once learners "
        "answer a quiz (/quiz in the chats, quizbot play here)\n")
