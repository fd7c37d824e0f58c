"""Faults a maintainer meets at start, through `quizbot play` as a process: someone else's
file is refused untouched, an unwritable database says which kind of unwritable, and every
failure is one line, exit 1, within seconds."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import yaml

from bot.store.migrate import APPLICATION_ID
from tests.mounts import remount_readonly, tmpfs

ROOT = Path(__file__).resolve().parents[2]
EXIT_WITHIN = 30  # seconds: a refusal must never hang (a bound for a hang, not a speed:
# the suite runs two workers per core, so a start may wait its turn for a core)


def play(cwd: Path, db: Path | str, *, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`quizbot play` on `db` (via a config file in cwd); fails the test if it hangs."""
    config = cwd / "quizbot.yaml"
    config.write_text(yaml.safe_dump({"storage": {"url": f"sqlite:///{db}"}}))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "adapters.cli", "play", "--user", "t", "--config", str(config)],
        cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=EXIT_WITHIN)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file in `folder` with the hash of its bytes."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


def assert_one_line_failure(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    """Exit 1, nothing on stdout, one line on stderr holding every needle, no traceback."""
    err = done.stderr.strip()
    assert done.returncode == 1, (done.returncode, done.stdout, err)
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    for needle in needles:
        assert needle in err, err
    return err


def test_foreign_database_with_a_schema_migrations_table_is_refused_untouched(tmp_path: Path):
    other = tmp_path / "theirs"
    other.mkdir()
    path = other / "app.db"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied_at REAL NOT NULL);"
        "INSERT INTO schema_migrations VALUES (1, '0001_create_orders.sql', 0), "
        "(2, '0002_add_customers.sql', 0), (3, '0003_index.sql', 0);"
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL);")
    db.commit()
    db.close()
    before = snapshot(other)
    done = play(tmp_path, path, stdin="A\n")
    assert_one_line_failure(done, "Refusing to open", "not quizbot's", "left untouched")
    assert snapshot(other) == before  # same bytes, no -wal/-shm, nothing new in the folder


def test_another_applications_id_is_refused_from_the_header(tmp_path: Path):
    other = tmp_path / "theirs"
    other.mkdir()
    path = other / "app.db"
    db = sqlite3.connect(path)
    db.executescript("PRAGMA application_id = 1234; PRAGMA journal_mode = WAL;"
                     "CREATE TABLE schema_migrations (version, name, applied_at);")
    db.close()
    before = snapshot(other)
    done = play(tmp_path, path)
    assert_one_line_failure(done, "another application's", "0x000004d2")
    assert snapshot(other) == before


def test_a_new_database_carries_quizbots_application_id(tmp_path: Path):
    done = play(tmp_path, tmp_path / "data" / "q.db", stdin="q\n")
    assert done.returncode == 0, done.stderr
    header = (tmp_path / "data" / "q.db").read_bytes()[:100]
    assert int.from_bytes(header[68:72], "big") == APPLICATION_ID


def test_a_directory_given_as_the_database_is_named(tmp_path: Path):
    (tmp_path / "data").mkdir()
    assert_one_line_failure(play(tmp_path, tmp_path / "data"), "which is a folder")


def test_a_parent_that_is_a_file_is_named(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("mine")
    done = play(tmp_path, tmp_path / "notes.txt" / "q.db")
    assert_one_line_failure(done, "notes.txt is a file, not a folder")
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_read_only_filesystem_each_case_says_which(tmp_path: Path):
    mnt = tmp_path / "ro"
    with tmpfs(mnt):
        assert play(tmp_path, mnt / "q.db", stdin="q\n").returncode == 0  # a valid database
        (mnt / "empty").mkdir()
        remount_readonly(mnt)
        before = snapshot(mnt)
        # A valid database on a read-only filesystem: read-only, not "corrupt".
        err = assert_one_line_failure(play(tmp_path, mnt / "q.db"), "q.db is read-only",
                                      "read-only filesystem")
        assert "corrupt" not in err
        # A read-only folder with no database yet.
        assert_one_line_failure(play(tmp_path, mnt / "empty" / "new.db"),
                                "folder", "empty is read-only")
        # A folder that cannot be created.
        assert_one_line_failure(play(tmp_path, mnt / "sub" / "q.db"),
                                "cannot create the folder", "read-only")
        assert snapshot(mnt) == before and sorted(p.name for p in mnt.iterdir()) == [
            "empty", "q.db"]


def test_a_disk_that_fills_during_the_first_migration_is_one_line(tmp_path: Path):
    mnt = tmp_path / "tiny"
    with tmpfs(mnt, size="40k"):
        err = assert_one_line_failure(play(tmp_path, mnt / "q.db"), "cannot write the database",
                                      "free some disk space")
        assert "full" in err
