"""The database file a running store opened, watched: deleted or replaced under it.

SQLite keeps writing to the file it opened after the path stops naming it (`rm q.db`, a
cleanup script, a copy moved over it): every answer then goes into a file no one can open
again, and is gone when the bot stops. Before each write batch the writer checks that the
path still names its file (one stat); once it does not, what the store holds is written
back beside the path from the open connection (nothing is lost), and every write is refused
as `StoreLost` (the learner is told nothing is saved) until a restart opens the file again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from pathlib import Path

from bot.domain.errors import StoreLost

log = logging.getLogger(__name__)


class FileWatch:
    """Whether the path still names the database file the store opened."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._identity = identity(path)
        # the WAL and its index beside it are the open file's: left beside another file
        # they would be replayed into it at the next start
        self._beside = {side: identity(side) for side in sides(path)}
        self._lost: StoreLost | None = None

    def moved(self) -> bool:
        """The path is gone or names another file."""
        return identity(self.path) != self._identity

    def check(self, db: sqlite3.Connection) -> StoreLost | None:
        """On the writer's thread, before a batch: None while the file is in place; else
        (saving what the store holds, the first time) the error every write gets."""
        if self._lost is None and self.moved():
            self._lost = StoreLost(f"the database file {self.path} was deleted or replaced")
            self._rescue(db)
        return self._lost

    def lost(self) -> StoreLost | None:
        """The error a failed read gets once the file is known to be lost (else None)."""
        return self._lost if self._lost is not None or not self.moved() else \
            StoreLost(f"the database file {self.path} was deleted or replaced")

    def _rescue(self, db: sqlite3.Connection) -> None:
        """Write what the open connection still reads to the path (deleted) or beside it
        (replaced: that file is left alone), and say so once."""
        target = self.path
        if target.exists():
            target = target.with_name(f"{self.path.name}.rescued-{int(time.time())}")
        partial = target.with_name(target.name + ".partial")
        try:
            with contextlib.closing(sqlite3.connect(partial)) as copy:
                db.backup(copy)
            for side, was in self._beside.items():  # the open file's, not the path's now
                if was is not None and identity(side) == was:
                    side.unlink()
            os.replace(partial, target)  # whole or not at all: never a half-written database
        except (OSError, sqlite3.Error) as exc:
            partial.unlink(missing_ok=True)
            log.error("storage: the database file %s was deleted or replaced while the bot "
                      "ran, and writing what the bot holds to %s failed (%s): nothing is "
                      "saved from now on; keep the bot running while you free the disk or "
                      "fix the folder, then restart it", self.path, target, exc)
            return
        log.error("storage: the database file %s was deleted or replaced while the bot ran: "
                  "everything it held is written to %s, and nothing is saved from now on "
                  "(learners are told so). Restart the bot%s", self.path, target,
                  "" if target == self.path else f" after putting {target} in place of "
                  f"{self.path}, if that is the database it should use")


def identity(path: Path) -> tuple[int, int] | None:
    """The file a path names (device, inode), or None when there is none."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_dev, st.st_ino


def sides(path: Path) -> list[Path]:
    """The WAL and shared-memory files SQLite keeps beside a database in WAL mode."""
    return [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]
