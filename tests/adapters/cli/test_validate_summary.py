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
