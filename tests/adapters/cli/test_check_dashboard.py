"""`quizbot check` says whether the dashboard will work: it needs web.port (a page served)
and web.public_url (the chats' links); with one alone /dashboard said "not set up" and
nothing told the maintainer why."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.cli.main import main


@pytest.mark.parametrize("web, line", [
    ("port: 8080\n  public_url: https://quiz.example.org",
     "ok   dashboard: https://quiz.example.org/app, served on http://127.0.0.1:8080"),
    ("port: 8080", "ok   dashboard: served on http://127.0.0.1:8080, but /dashboard in the "
                   "chats answers that it is not set up until web.public_url is set"),
    ("public_url: https://quiz.example.org",
     "ok   dashboard: the chats link to https://quiz.example.org/app, but this process "
     "serves no page (web.port is off): another process must, or set web.port"),
])
def test_check_says_what_the_dashboard_still_needs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        web: str, line: str) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "1:a")
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\nweb:\n  {web}\n")
    assert main(["check", "--config", str(config)]) == 0  # informational: not a FAIL
    assert line in capsys.readouterr().out.splitlines()
    assert not (tmp_path / "q.db").exists()
