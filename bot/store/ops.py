"""Operations on a SQLite database file: the in-use lock, backup, restore, inspection.

These run in `quizbot backup|restore|stats|export|check`, a separate process from the bot,
with the stdlib `sqlite3` (no event loop: nothing here runs inside `async def`). Only
`restore` writes, and only to the target through SQLite's backup API, which keeps the
target's WAL and shared-memory files consistent where a file copy would not.

The in-use lock is an advisory `flock` on `<database>.lock`: every process that opens the
store through `bot.app.compose.open_app` holds it shared for as long as the store is open; `restore`
takes it exclusively, so it refuses while a bot (or `quizbot play`) uses the file, and a bot
started during a restore refuses to start instead of reading half a database.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bot.domain.errors import StoreRefused
from bot.store.migrate import SQLITE_HEADER, migrations


class OpsError(Exception):
    """A refusal with a message for the maintainer (the CLI prints it and exits 1)."""


def lock_path(db: Path) -> Path:
    """What carries the in-use lock: the database file itself. flock(2) locks are separate
    from the POSIX record locks SQLite takes, so neither disturbs the other, and no extra
    file appears beside the database."""
    return db


@contextlib.contextmanager
def hold(db: Path, *, exclusive: bool) -> Iterator[None]:
    """Hold the database's in-use lock (shared: a user of it; exclusive: a restore).

    Raises StoreRefused at once, never waits, when the other kind is held.
    """
    db.parent.mkdir(parents=True, exist_ok=True)
    # Read-only is enough for flock, and works on a file another user (root, running
    # `quizbot restore`) owns.
    fd = os.open(lock_path(db), os.O_RDONLY | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            why = ("a quizbot process is using it (stop the bot first)" if exclusive
                   else "it is being restored right now (try again when the restore ends)")
            raise StoreRefused(f"{db}: {why}") from None
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def latest_version() -> int:
    """The newest schema version this quizbot knows."""
    return migrations()[-1][0]


def _connect_ro(db: Path) -> sqlite3.Connection:
    """A read-only connection to an existing quizbot database; OpsError if it is not one."""
    if not db.is_file():
        raise OpsError(f"{db}: no such database file")
    with db.open("rb") as fh:
        if fh.read(16) != SQLITE_HEADER:
            raise OpsError(f"{db}: is not a SQLite database")
    try:
        conn = sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro", uri=True)
        conn.execute("PRAGMA busy_timeout = 5000")
        tables = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        raise OpsError(f"{db}: cannot be read ({exc})") from exc
    if "schema_migrations" not in tables:
        conn.close()
        raise OpsError(f"{db}: is a SQLite database, but not quizbot's")
    return conn


def schema_version(conn: sqlite3.Connection) -> int:
    """MAX(version) recorded in schema_migrations."""
    return int(conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] or 0)


def _integrity(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("PRAGMA integrity_check")]


def last_activity(conn: sqlite3.Connection) -> float:
    """The newest timestamp of any user, session or answer (0 for an empty database)."""
    row = conn.execute(
        "SELECT MAX(t) FROM (SELECT MAX(created_at) AS t FROM users "
        "UNION ALL SELECT MAX(started_at) FROM sessions "
        "UNION ALL SELECT MAX(finished_at) FROM sessions "
        "UNION ALL SELECT MAX(answered_at) FROM answers)").fetchone()
    return float(row[0] or 0.0)


# --- backup --------------------------------------------------------------------------------

@dataclass(frozen=True)
class BackupResult:
    path: Path
    version: int
    answers: int
    bytes: int


def backup(db: Path, target: Path) -> BackupResult:
    """A consistent copy of `db` at `target` while the bot keeps running.

    SQLite's online backup API in one step reads one snapshot of the database (in WAL mode
    that never blocks the bot's writer), so the copy holds exactly the transactions
    committed when it started. Written to a temporary file, checked, then renamed into
    place: `target` is either absent or a complete, verified backup.
    """
    if target.exists():
        raise OpsError(f"{target}: already exists; choose a new name (backups never overwrite)")
    if not target.parent.is_dir():
        raise OpsError(f"{target.parent}: no such folder")
    partial = target.with_name(f".{target.name}.partial")
    with contextlib.closing(_connect_ro(db)) as src:
        try:
            with contextlib.closing(sqlite3.connect(partial)) as dst:
                src.backup(dst)  # pages=-1: everything in one step, one snapshot
                # A backup is one file: no -wal to lose when it is copied elsewhere.
                dst.execute("PRAGMA journal_mode = DELETE")
                verdict = _integrity(dst)
                if verdict != ["ok"]:
                    raise OpsError(f"the copy failed its integrity check: {verdict[:3]}")
                version = schema_version(dst)
                answers = int(dst.execute("SELECT COUNT(*) FROM answers").fetchone()[0])
            os.replace(partial, target)
        finally:
            with contextlib.suppress(FileNotFoundError):
                partial.unlink()
    return BackupResult(target, version, answers, target.stat().st_size)


# --- restore -------------------------------------------------------------------------------

@dataclass(frozen=True)
class RestoreResult:
    version: int
    answers: int
    replaced_newer: bool


def restore(source: Path, db: Path, *, force: bool = False) -> RestoreResult:
    """Replace the database at `db` with the backup at `source`.

    Refuses when: a quizbot process has `db` open; the backup is damaged or comes from a
    newer quizbot (its schema is ahead of this code's migrations); or `db` holds activity
    newer than anything in the backup (restoring would throw it away) unless `force`.
    """
    with contextlib.closing(_connect_ro(source)) as src:
        verdict = _integrity(src)
        if verdict != ["ok"]:
            raise OpsError(f"{source}: fails its integrity check ({'; '.join(verdict[:3])})")
        version, latest = schema_version(src), latest_version()
        if version > latest:
            raise OpsError(f"{source}: its schema is version {version}, newer than this "
                           f"quizbot understands ({latest}); restore it with a newer quizbot")
        with hold(db, exclusive=True):
            newer = False
            if db.exists() and db.stat().st_size > 0:
                with contextlib.closing(_connect_ro(db)) as current:
                    newer = last_activity(current) > last_activity(src)
                    if schema_version(current) > latest:
                        raise OpsError(f"{db}: its schema is newer than this quizbot "
                                       f"understands; restore with the quizbot that wrote it")
                if newer and not force:
                    raise OpsError(
                        f"{db}: holds activity newer than the backup {source}; restoring "
                        f"would lose it. Back it up first (quizbot backup PATH), then repeat "
                        f"with --force")
            with contextlib.closing(sqlite3.connect(db, timeout=0)) as dst:
                src.backup(dst)
                answers = int(dst.execute("SELECT COUNT(*) FROM answers").fetchone()[0])
                if _integrity(dst) != ["ok"]:
                    raise OpsError(f"{db}: failed its integrity check after the restore")
    return RestoreResult(version, answers, newer)


# --- inspection (check) --------------------------------------------------------------------

def inspect(db: Path) -> str:
    """One line on the database's state; OpsError when the bot would refuse it."""
    if not db.exists() or db.stat().st_size == 0:
        parent = next((p for p in (db.parent, *db.parent.parents) if p.exists()), Path("/"))
        if not os.access(parent, os.W_OK):
            raise OpsError(f"{db}: does not exist and {parent} is not writable")
        return f"{db}: not created yet (it will be on first start)"
    with contextlib.closing(_connect_ro(db)) as conn:
        verdict = [r[0] for r in conn.execute("PRAGMA quick_check")]
        if verdict != ["ok"]:
            raise OpsError(f"{db}: is corrupt ({'; '.join(verdict[:3])})")
        version, latest = schema_version(conn), latest_version()
        if version > latest:
            raise OpsError(f"{db}: schema version {version} is newer than this quizbot "
                           f"({latest})")
        counts = conn.execute("SELECT (SELECT COUNT(*) FROM users), "
                              "(SELECT COUNT(*) FROM sessions), "
                              "(SELECT COUNT(*) FROM answers)").fetchone()
    pending = f", {latest - version} migration(s) to apply at start" if version < latest else ""
    return (f"{db}: schema version {version}{pending}; {counts[0]} users, {counts[1]} "
            f"sessions, {counts[2]} answers")


@contextlib.contextmanager
def reading(db: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection for stats and export (closed on exit)."""
    with contextlib.closing(_connect_ro(db)) as conn:
        yield conn
