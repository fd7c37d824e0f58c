"""`quizbot check` on quiz.default: a quiz of content.dir, an installed one, or none."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli.main import main

FIXTURES = Path(__file__).parents[2] / "fixtures" / "import"


def test_check_says_whether_the_default_quiz_is_installed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It said "'week-3' is not shipped: it must be installed (quizbot quizzes list)" whether
    # or not it was: a typo in quiz.default passed the check unseen.
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n"
                      "quiz:\n  default: week-3\n")
    args = ["--config", str(config)]
    main(["check", *args])
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == (
        "ok   quiz.default: no quiz 'week-3' in "
        f"{lines[1].split(' in ', 1)[1].split(':')[0]} or installed in the database, so "
        "newcomers start with the easiest quiz until one is (quizbot quizzes add); check the id "
        "against quizbot list")
    assert main(["quizzes", "add", str(FIXTURES / "spec.gift"), "--id", "week-3", *args]) == 0
    capsys.readouterr()
    main(["check", *args])
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == "ok   quiz.default: 'week-3' is installed in the database"
    assert lines[3].startswith("ok   database: ")
