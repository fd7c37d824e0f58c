"""The ops commands on a database quizbot made but nobody has played in yet."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli.main import main


@pytest.fixture
def config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """A config whose database exists, migrated and empty."""
    path = tmp_path / "config.yaml"
    path.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    assert main(["quizzes", "list", "--config", str(path)]) == 0  # makes the database
    capsys.readouterr()
    return str(path)


def test_stats_before_any_answer_says_when_accuracy_appears(
        config: str, capsys: pytest.CaptureFixture[str]) -> None:
    # It ended on "no answers in full attempts yet", saying nothing of what makes some; then
    # it said "quizbot play here", which plays into the learner's own data folder, not
    # into the database of the --config it was given.
    assert main(["stats", "--config", config]) == 0
    assert capsys.readouterr().out.endswith(
        "no answers in full attempts yet: accuracy per question appears here once learners "
        f"answer a quiz (/quiz in the chats, quizbot play --config {config} here)\n")


def test_an_export_of_a_chat_without_sessions_says_where_the_ids_are(
        config: str, capsys: pytest.CaptureFixture[str]) -> None:
    # It said only "no sessions were started in chat 123": a teacher with a wrong id (a
    # Telegram supergroup's starts -100) had nowhere to look it up.
    assert main(["export", "--format", "csv", "--chat", "123", "--config", config]) == 1
    assert capsys.readouterr().err == (
        "quizbot: no sessions were started in chat 123; check the id: quizbot stats lists "
        "the groups with learners and the id --chat takes\n")
