"""`quizbot export --chat ID` for a chat where no quiz was started."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli.main import main


def test_an_export_of_a_chat_without_sessions_says_where_the_ids_are(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It said only "no sessions were started in chat 123": a teacher with a wrong id (a
    # Telegram supergroup's starts -100) had nowhere to look it up.
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n")
    assert main(["quizzes", "list", "--config", str(config)]) == 0  # the database, empty
    capsys.readouterr()
    assert main(["export", "--format", "csv", "--chat", "123", "--config", str(config)]) == 1
    assert capsys.readouterr().err == (
        "quizbot: no sessions were started in chat 123; check the id: quizbot stats lists "
        "the groups with learners and the id --chat takes\n")
