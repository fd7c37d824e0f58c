"""`quizbot play --quiz ID --review` when there is nothing to review yet, or the quiz is
still in progress: the command that finishes it, never the chats' /quiz."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from adapters.cli.main import main


@pytest.mark.parametrize(("lang", "progress", "nothing"), [
    ("en", "You have a quiz in progress (question 2/8). Finish it first: quizbot play --quiz "
           "parallelism --user ana --lang en --config {config}",
     "Nothing to review yet: finish this quiz once (quizbot play --quiz parallelism --user "
     "ana --lang en --config {config}); the questions you miss then come back with --review."),
    ("ur", "پہلے اسے مکمل کریں: quizbot play --quiz parallelism --user ana --lang ur "
           "--config {config}",
     "پہلے یہ کوئز ایک بار مکمل کریں (quizbot play --quiz parallelism --user ana --lang ur "
     "--config {config})؛"),
])
def test_a_refused_review_names_the_command_that_finishes_the_quiz(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        lang: str, progress: str, nothing: str) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    review = ["play", "--quiz", "parallelism", "--review", "--user", "ana", "--lang", lang,
              "--config", str(config)]
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(review) == 1
    err = _plain(capsys.readouterr().err)
    assert nothing.format(config=config) in err and "/quiz" not in err
    monkeypatch.setattr(sys, "stdin", io.StringIO("a\n"))  # one answer, then input ends
    assert main(["play", "--quiz", "parallelism", "--user", "ana", "--lang", lang,
                 "--config", str(config)]) == 0
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(review) == 1
    err = _plain(capsys.readouterr().err)
    assert progress.format(config=config) in err and "/quiz" not in err


def _plain(text: str) -> str:
    """Without the direction isolates an Urdu line puts around Latin runs."""
    return "".join(c for c in text if c not in "\u2066\u2067\u2068\u2069")
