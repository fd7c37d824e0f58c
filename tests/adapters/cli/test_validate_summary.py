"""`quizbot validate`: the one line it prints per quiz that loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli.main import main

ONE_QUESTION = """\
id: my-quiz
title: {en: My quiz}
description: {en: One question.}
difficulty: medium
languages: [en]
questions:
  - id: q1
    text: {en: What is 2 + 2?}
    options:
      - text: {en: "4"}
      - text: {en: "5"}
    correct: 0
    takeaway: {en: Two and two make four.}
    explanation: {en: Arithmetic.}
"""


def test_a_one_question_quiz_is_summed_up_as_1_question(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A teacher's first quiz, written from content/README.md, was "1 questions".
    path = tmp_path / "my-quiz.yaml"
    path.write_text(ONE_QUESTION, encoding="utf-8")
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out == (
        f"ok  {path}: my-quiz (intermediate), 1 question, languages en\n")


def test_validate_with_a_config_checks_its_content_dir(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/deploy.md's `qb` appends `--config` to every command, as the service runs:
    validate refused it ('unrecognized arguments: --config'), and with no PATH checked the
    shipped quizzes, not the deployment's content.dir that `run` serves."""
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "mine.yaml").write_text(ONE_QUESTION.replace("correct: 0", "correct: 7"))
    config = tmp_path / "config.yaml"
    config.write_text(f"content:\n  dir: {folder}\n")

    assert main(["validate", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{folder / 'mine.yaml'}:") and "correct is 7" in err
    (folder / "mine.yaml").write_text(ONE_QUESTION)
    assert main(["validate", "--config", str(config)]) == 0
    assert capsys.readouterr().out.startswith(f"ok  {folder / 'mine.yaml'}: my-quiz")
    assert main(["validate", str(folder / "mine.yaml"), "--config", str(config)]) == 0
