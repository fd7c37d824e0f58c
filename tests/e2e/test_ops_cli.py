"""The operations commands as a maintainer runs them: real processes on real files."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import user_db

ROOT = Path(__file__).resolve().parents[2]


def quizbot(cwd: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None,
            ) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_BOT_TOKEN")}
    environ.update({"PYTHONPATH": str(ROOT), **(env or {})})
    return subprocess.run([sys.executable, "-m", "adapters.cli", *args], cwd=cwd, env=environ,
                          input=stdin, capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture(scope="module")
def played_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder (XDG_DATA_HOME) after two finished terminal attempts, played once per
    test process: the tests that start from it get a copy."""
    home, here = tmp_path_factory.mktemp("played-home"), tmp_path_factory.mktemp("played")
    for user, keys in (("ana", "a\n" * 8 + "n\n"), ("ben", "b\n" * 8 + "n\n")):
        done = quizbot(here, "play", "--user", user, stdin=keys,
                       env={"XDG_DATA_HOME": str(home)})
        assert done.returncode == 0, done.stderr
    return home


@pytest.fixture
def played(tmp_path: Path, data_home: Path, played_data: Path) -> Path:
    """A working directory; the learner's database (`user_db()`, in the data folder) holds two
    finished terminal attempts."""
    shutil.copytree(played_data, data_home, dirs_exist_ok=True)
    assert user_db().is_file()
    return tmp_path


def test_play_shows_the_learner_no_info_log_lines(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("log_level: DEBUG\n")
    done = quizbot(tmp_path, "play", "--config", "config.yaml", stdin="a\n")
    assert done.returncode == 0
    assert "Question 1/8" in done.stdout
    assert done.stderr == ""  # migrations were applied (a fresh file) but not announced
    assert (tmp_path / "data" / "quizbot.db").exists()


def test_backup_restore_round_trip_through_the_cli(played: Path) -> None:
    done = quizbot(played, "backup", "b.db")
    assert done.returncode == 0 and "16 answers" in done.stdout and "integrity ok" in done.stdout
    again = quizbot(played, "backup", "b.db")
    assert again.returncode == 1 and "already exists" in again.stderr

    (user_db()).unlink()
    done = quizbot(played, "restore", "b.db")
    assert done.returncode == 0, done.stderr
    db = sqlite3.connect(user_db())
    assert db.execute("SELECT COUNT(*) FROM answers").fetchone() == (16,)
    db.close()
    missing = quizbot(played, "restore", "nope.db")
    assert missing.returncode == 1 and "nope.db: no such database file" in missing.stderr


def test_stats_and_export_through_the_cli(played: Path) -> None:
    stats = quizbot(played, "stats")
    assert stats.returncode == 0
    assert "users     2" in stats.stdout and "answers   16" in stats.stdout
    rows = list(csv.DictReader(io.StringIO(quizbot(played, "export", "--format", "csv").stdout)))
    assert len(rows) == 16 and {r["user_id"] for r in rows} == {"ana", "ben"}
    assert all(r["last_option"] in "ABCD" for r in rows)
    out = played / "results.json"
    done = quizbot(played, "export", "--format", "json", "--output", str(out))
    assert done.returncode == 0 and done.stdout == ""
    data = json.loads(out.read_text())
    assert [r["attempts_finished"] for r in data["learners"]] == [1, 1]
    assert len(data["questions"]) == 8 and sum(q["answered"] for q in data["questions"]) == 16
    nobody = quizbot(played, "export", "--format", "csv", "--chat", "-100")
    assert nobody.returncode == 1 and "no sessions were started in chat -100" in nobody.stderr
    bad = quizbot(played, "export", "--format", "xml")
    assert bad.returncode == 2 and "invalid choice: 'xml'" in bad.stderr


def test_ops_refuse_bad_input_with_a_clear_message(tmp_path: Path) -> None:
    # Before the first start: what makes the database, not only that it is missing.
    for command in (["stats"], ["export", "--format", "csv"], ["backup", "b.db"]):
        said = quizbot(tmp_path, *command)
        assert said.returncode == 1 and said.stderr == (
            f"quizbot: {user_db()}: no database yet; quizbot makes it when it first starts "
            "(a first quizbot play), and until then there is nothing to read\n")
    assert not user_db().exists() and not (tmp_path / "b.db").exists()
    (tmp_path / "bad.yaml").write_text("metrics:\n  port: http\n")
    bad = quizbot(tmp_path, "backup", "x.db", "--config", "bad.yaml")
    assert bad.returncode == 1 and "metrics.port must be a whole number" in bad.stderr
    (tmp_path / "notes.db").write_text("not a database")
    refused = quizbot(tmp_path, "restore", "notes.db")
    assert refused.returncode == 1 and "is not a SQLite database" in refused.stderr


def test_check_reports_each_part_without_starting_anything(played: Path,
                                                          process_content: Path) -> None:
    (played / "config.yaml").write_text(f"metrics:\n  port: 9464\nstorage:\n  url: sqlite:///{user_db()}\n"
                                        f"content:\n  dir: {process_content}\n")
    no_token = quizbot(played, "check", "--config", "config.yaml")
    assert no_token.returncode == 1
    assert "FAIL tokens: none set" in no_token.stdout
    assert f"ok   database: {user_db()}: schema version" in no_token.stdout
    ok = quizbot(played, "check", "--config", "config.yaml",
                 env={"TELEGRAM_BOT_TOKEN": "123:abcdefghijklmnop"})
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "ok   telegram: TELEGRAM_BOT_TOKEN is set" in ok.stdout
    assert "abcdefghijklmnop" not in ok.stdout + ok.stderr
    assert "ok   content: " in ok.stdout and "parallelism-deep" in ok.stdout

    (user_db()).write_bytes(b"garbage" * 100)
    broken = quizbot(played, "check", "--config", "config.yaml",
                     env={"TELEGRAM_BOT_TOKEN": "123:abcdefghijklmnop"})
    assert broken.returncode == 1 and "FAIL database:" in broken.stdout
    assert "not a SQLite database" in broken.stdout
