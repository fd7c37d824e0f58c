"""Where `quizbot play` keeps progress without --config: the user's data folder, found from
any folder; an old `./data/quizbot.db` is used and named, never dropped; --config wins."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.conftest import user_db
from tests.e2e.test_ops_cli import quizbot
from tests.e2e.test_ops_hardening import answers

FIRST, SECOND, THIRD = "Question 1/8", "Question 2/8", "Question 3/8"


def folders(tmp_path: Path, *names: str) -> list[Path]:
    made = [tmp_path / name for name in names]
    for folder in made:
        folder.mkdir()
    return made


def test_play_continues_the_same_progress_from_any_folder(tmp_path: Path) -> None:
    here, there = folders(tmp_path, "here", "there")
    first = quizbot(here, "play", stdin="a\nq\n")
    assert first.returncode == 0 and FIRST in first.stdout and first.stderr == ""
    again = quizbot(there, "play", stdin="q\n")
    assert again.returncode == 0 and SECOND in again.stdout and FIRST not in again.stdout
    assert answers(user_db()) == 1
    assert not (here / "data").exists() and not (there / "data").exists()
    # list and the operations read the same database as play, from anywhere
    assert "users     1" in quizbot(tmp_path, "stats").stdout
    assert f"ok   database: {user_db()}" in quizbot(tmp_path, "check").stdout


def test_without_xdg_data_home_progress_is_under_home(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    done = quizbot(tmp_path, "play", stdin="a\nq\n")
    assert done.returncode == 0, done.stderr
    assert answers(tmp_path / "home" / ".local" / "share" / "quizbot" / "quizbot.db") == 1


def test_an_old_data_folder_here_is_used_named_and_movable(tmp_path: Path) -> None:
    old, elsewhere = folders(tmp_path, "old", "elsewhere")
    (old / "c.yaml").write_text("quiz:\n  default_language: en\n")  # storage.url: the default
    assert quizbot(old, "play", "--config", "c.yaml", stdin="a\nq\n").returncode == 0
    legacy = old / "data" / "quizbot.db"
    assert answers(legacy) == 1 and not user_db().exists()

    kept = quizbot(old, "play", stdin="q\n")
    assert kept.returncode == 0 and SECOND in kept.stdout  # the old progress, not a new start
    [note] = kept.stderr.splitlines()
    assert note.startswith("quizbot: using data/quizbot.db in this folder")
    assert not user_db().exists()  # nothing moved behind the learner's back

    move = re.search(r"run here once: (.+)$", note)
    assert move is not None
    command = shlex.split(move.group(1))
    assert command[:2] == ["quizbot", "backup"]
    assert quizbot(old, *command[1:]).returncode == 0
    moved = quizbot(elsewhere, "play", stdin="a\nq\n")
    assert moved.returncode == 0 and SECOND in moved.stdout and moved.stderr == ""
    assert answers(user_db()) == 2 and answers(legacy) == 1  # the old file stays as it was
    assert quizbot(old, "play", stdin="q\n").stderr == ""  # the data folder wins from now on


def test_config_storage_url_wins_over_the_data_folder(tmp_path: Path) -> None:
    assert quizbot(tmp_path, "play", stdin="a\nq\n").returncode == 0
    (tmp_path / "c.yaml").write_text("storage:\n  url: sqlite:///own.db\n")
    own = quizbot(tmp_path, "play", "--config", "c.yaml", stdin="a\nb\nq\n")
    assert own.returncode == 0 and THIRD in own.stdout
    assert answers(tmp_path / "own.db") == 2 and answers(user_db()) == 1
    stats = quizbot(tmp_path, "stats", "--config", "c.yaml")
    assert "answers   2" in stats.stdout
