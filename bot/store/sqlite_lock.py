"""The in-use lock on a SQLite database file.

An advisory `flock` on the database file: every process that opens the store through
`bot.app.compose.open_app` holds it shared for as long as the store is open; a restore
(`bot.ops.sqlite_backup.restore`) takes it exclusively, so it refuses while a bot (or
`quizbot play`) uses the file, and a bot started during a restore refuses to start instead of
reading half a database.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from bot.domain.errors import StoreRefused


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
