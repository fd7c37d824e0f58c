"""Operations on a SQLite database file: the in-use lock, backup, restore, inspection.

These run in `quizbot backup|restore|stats|export|check`, a separate process from the bot,
with the stdlib `sqlite3` (no event loop: nothing here runs inside `async def`). Only
`restore` writes the database, and only by renaming a complete, checked copy into place.

A file is taken for a quizbot database only when its schema is exactly the one quizbot's
migrations make (`bot.store.migrate.examine`, the check the store's open makes too): a
crafted backup carrying a trigger of its own, or another program's file that happens to
have a `schema_migrations` table, is refused before anything is written.

The in-use lock is an advisory `flock` on `<database>.lock`: every process that opens the
store through `bot.app.compose.open_app` holds it shared for as long as the store is open; `restore`
takes it exclusively, so it refuses while a bot (or `quizbot play`) uses the file, and a bot
started during a restore refuses to start instead of reading half a database.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bot.domain.errors import EmptyDatabase, OpsError, StoreRefused
from bot.ops.files import PlaceError, new_file
from bot.store.command import run_sync
from bot.store.commands.report_sql import last_activity, summary
from bot.store.migrate import NotOurs, open_examined


@contextlib.contextmanager
def hold(db: Path, *, exclusive: bool) -> Iterator[None]:
    """Hold the database's in-use lock (shared: a user of it; exclusive: a restore).

    Raises StoreRefused at once, never waits, when the other kind is held. The lock is on the
    database file itself: flock(2) locks are separate from the POSIX record locks SQLite
    takes, so neither disturbs the other, and no extra file appears beside the database.
    """
    db.parent.mkdir(parents=True, exist_ok=True)
    # Read-only is enough for flock, and works on a file another user (root, running
    # `quizbot restore`) owns.
    fd = os.open(db, os.O_RDONLY | os.O_CREAT, 0o644)
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


@contextlib.contextmanager
def open_checked(db: Path, *, quick: bool = False) -> Iterator[sqlite3.Connection]:
    """A read-only connection to an exact quizbot database (`migrate.open_examined`), closed
    on exit; OpsError for anything else (`quick`: its pages checked too). The reader
    (`bot.ops.reader`) runs its commands on a worker thread.

    A read-only connection to a WAL database makes a -wal and a -shm file when none is
    there and cannot delete them: made by root, they would stop the bot's own user from
    opening the database. So when the look made them they go again (`_drop_side_files`)."""
    if not db.is_file():
        raise OpsError(f"{db}: no such database file")
    had_side_files = any(side.exists() for side in _side_files(db))
    try:
        try:
            conn, version = open_examined(db, immutable=False, quick=quick)
        except (NotOurs, sqlite3.Error) as exc:
            raise OpsError(f"{db}: refused: {exc}") from None
        try:
            if not version:  # as a first start that failed (a full disk) leaves it
                raise EmptyDatabase(f"{db}: refused: it is a SQLite database, but not "
                                    "quizbot's (it has no tables)")
            yield conn
        finally:
            conn.close()
    finally:
        if not had_side_files:
            _drop_side_files(db)


def _side_files(db: Path) -> tuple[Path, Path]:
    return Path(f"{db}-wal"), Path(f"{db}-shm")


def _drop_side_files(db: Path) -> None:
    """SQLite's own clean-up: the last connection to close on a WAL database folds the -wal
    in and deletes both files. A read-only one may not, so a plain connection that writes
    nothing closes last; while another process has the database open, it is not the last
    and the files stay."""
    if any(side.exists() for side in _side_files(db)):
        with contextlib.suppress(sqlite3.Error), contextlib.closing(
                sqlite3.connect(db, timeout=0)) as plain:
            plain.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()


# What a maintainer does about a damaged file, by the role it plays in the command.
LIVE_DAMAGED = ("stop the bot, move the file aside and restore the latest backup "
                "(quizbot restore PATH)")
BACKUP_DAMAGED = "choose another backup"


@contextlib.contextmanager
def refusing_damage(db: Path, what_to_do: str = LIVE_DAMAGED) -> Iterator[None]:
    """OpsError naming `db` and `what_to_do` when a read inside finds its pages damaged.

    The open's look (`open_checked`) reads the schema, not every page: a damaged table is
    found only when a command reads it (SQLite's SQLITE_CORRUPT or SQLITE_NOTADB), and
    must end in one line, not a traceback. Any other error is not damage and passes on."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if exc.sqlite_errorcode & 0xFF not in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
            raise
        raise OpsError(f"{db}: refused: it is corrupt ({exc}); {what_to_do}") from None


def _integrity(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("PRAGMA integrity_check")]


# --- backup --------------------------------------------------------------------------------

@dataclass(frozen=True)
class BackupResult:
    path: Path
    version: int
    answers: int
    bytes: int


def backup(db: Path, target: Path, *, force: bool = False) -> BackupResult:
    """A consistent copy of `db` at `target` while the bot keeps running.

    SQLite's online backup API in one step reads one snapshot of the database (in WAL mode
    that never blocks the bot's writer), so the copy holds exactly the transactions
    committed when it started. Written in a private folder, checked, then put into place
    (`bot.ops.files`): `target` is either as it was or a complete, verified backup, and
    no symlink is ever followed.
    """
    try:
        with (open_checked(db) as src, new_file(target, force=force) as tmp,
              refusing_damage(db)):
            version, answers = _copy_checked(src, tmp)
    except PlaceError as exc:
        raise OpsError(str(exc)) from None
    return BackupResult(target, version, answers, target.stat().st_size)


def _copy_checked(src: sqlite3.Connection, tmp: Path) -> tuple[int, int]:
    """Copy `src` into the new file `tmp` as one self-contained file; (version, answers)."""
    with contextlib.closing(sqlite3.connect(tmp)) as dst:
        src.backup(dst)  # pages=-1: everything in one step, one snapshot
        # One file: no -wal to lose when it is copied elsewhere.
        dst.execute("PRAGMA journal_mode = DELETE")
        verdict = _integrity(dst)
        if verdict != ["ok"]:
            raise OpsError(f"the copy failed its integrity check: {verdict[:3]}")
        version, _, _, answers = run_sync(dst, summary())
        return version, answers


# --- restore -------------------------------------------------------------------------------

@dataclass(frozen=True)
class RestoreResult:
    version: int
    answers: int
    replaced_newer: bool


def restore(source: Path, db: Path, *, force: bool = False) -> RestoreResult:
    """Replace the database at `db` with the backup at `source`.

    Refuses when: the backup is damaged, is not exactly a quizbot database, or comes from a
    newer quizbot; a quizbot process has `db` open; or `db` holds activity newer than
    anything in the backup (restoring would throw it away) unless `force`. The copy is
    written and checked in a private folder beside `db`, then renamed over it.
    """
    if db.is_symlink():
        raise OpsError(f"{db}: is a symbolic link; point storage.url at the real file")
    with open_checked(source) as src:
        with refusing_damage(source, BACKUP_DAMAGED):
            verdict = _integrity(src)
        if verdict != ["ok"]:
            raise OpsError(f"{source}: fails its integrity check ({'; '.join(verdict[:3])})")
        existed = db.exists()
        try:
            with hold(db, exclusive=True):
                newer = _refuse_newer(source, src, db, force=force)
                folder = db.parent if str(db.parent) else Path(".")
                private = Path(tempfile.mkdtemp(prefix=f".{db.name}.restore.", dir=folder))
                try:
                    version, answers = _copy_checked(src, private / db.name)
                    _retire(db)
                    os.replace(private / db.name, db)
                finally:
                    shutil.rmtree(private, ignore_errors=True)
        except BaseException:
            if not existed and db.exists() and db.stat().st_size == 0:
                db.unlink()  # only the lock file `hold` made: leave no trace
            raise
    return RestoreResult(version, answers, newer)


def _refuse_newer(source: Path, src: sqlite3.Connection, db: Path, *, force: bool) -> bool:
    """Whether `db` holds newer activity than the backup; OpsError unless `force`."""
    if not db.exists() or db.stat().st_size == 0:
        return False
    # A damaged database is refused, never replaced: it may still be recovered
    # (sqlite3's .recover), and a restore over it would make that impossible.
    with (open_checked(db) as current,
          refusing_damage(db, "it is left as it is: move it aside, then run this restore "
                              "again")):
        now = run_sync(current, last_activity())
    with refusing_damage(source, BACKUP_DAMAGED):
        newer = now > run_sync(src, last_activity())
    if newer and not force:
        raise OpsError(
            f"{db}: holds activity newer than the backup {source}; restoring would lose it. "
            f"Back it up first (quizbot backup PATH), then repeat with --force")
    return newer


def _retire(db: Path) -> None:
    """Fold the old database's WAL into it and drop its side files, so none of them is
    applied to the file renamed into its place."""
    if db.exists() and db.stat().st_size > 0:
        with contextlib.closing(sqlite3.connect(db, timeout=0)) as old:
            old.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            old.execute("PRAGMA journal_mode = DELETE")
    for side in (Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}-journal")):
        with contextlib.suppress(FileNotFoundError):
            side.unlink()


# --- inspection (check) --------------------------------------------------------------------

def inspect(db: Path) -> tuple[int, int, int, int] | None:
    """(schema version, users, sessions, answers), None when the file is not created yet;
    OpsError when the bot would refuse it."""
    if not db.exists() or db.stat().st_size == 0:
        parent = next((p for p in (db.parent, *db.parent.parents) if p.exists()), Path("/"))
        if not os.access(parent, os.W_OK):
            raise OpsError(f"{db}: does not exist and {parent} is not writable")
        return None
    with open_checked(db, quick=True) as conn, refusing_damage(db):
        return run_sync(conn, summary())
