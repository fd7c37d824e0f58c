"""`quizbot check` counts in words a maintainer reads: '1 quiz', '1 user'."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from adapters.cli.main import main
from tests.adapters.cli.test_validate_summary import ONE_QUESTION


def test_check_counts_one_of_each_in_the_singular(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # It said "1 quiz(zes)" and "1 users, 1 sessions, 1 answers".
    content = tmp_path / "content"
    content.mkdir()
    (content / "my-quiz.yaml").write_text(ONE_QUESTION, encoding="utf-8")
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n"
                      f"content:\n  dir: {content}\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO("a\n"))
    assert main(["play", "--user", "ana", "--lang", "en", "--config", str(config)]) == 0
    capsys.readouterr()
    main(["check", "--config", str(config)])
    out = capsys.readouterr().out
    assert f"ok   content: 1 quiz in {content}: my-quiz\n" in out
    assert "; 1 user, 1 session, 1 answer\n" in out


def test_export_counts_one_learner_record_in_the_singular(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # It said "wrote 1 learner record(s) to results.csv".
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO("a\n"))
    assert main(["play", "--user", "ana", "--lang", "en", "--config", str(config)]) == 0
    capsys.readouterr()
    out = tmp_path / "results.csv"
    assert main(["export", "--format", "csv", "--output", str(out), "--config",
                 str(config)]) == 0
    assert capsys.readouterr().err == f"wrote 1 learner record to {out}\n"
