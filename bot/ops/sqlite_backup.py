"""Backup and restore of a SQLite database file.

These run in `quizbot backup|restore`, a separate process from the bot, with the stdlib
`sqlite3` (no event loop: nothing here runs inside `async def`). Only `restore` writes the
database, and only by renaming a complete, checked copy into place, while it holds the file's
in-use lock exclusively (`bot.store.sqlite_lock`: it refuses while a bot uses the file).

A file is taken for a quizbot database only when its schema is exactly the one quizbot's
migrations make (`bot.ops.reader.open_checked`, which runs the check the store's open makes
too): a crafted backup carrying a trigger of its own, or another program's file that happens
to have a `schema_migrations` table, is refused before anything is written.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bot.domain.errors import OpsError
from bot.ops.files import PlaceError, new_file, refuse_database
from bot.ops.reader import BACKUP_DAMAGED, BACKUP_REFUSED, open_checked, refusing_damage
from bot.store.command import run_sync
from bot.store.commands.report_sql import last_activity, summary
from bot.store.sqlite_lock import hold


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
        refuse_database(target, db)
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
    with open_checked(source, what_to_do=BACKUP_REFUSED) as src:
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
