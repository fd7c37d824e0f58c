"""Writing a new file where a maintainer asked for it, without following any symlink.

`quizbot backup` and `quizbot export --output` run as whoever starts them, often root, in
folders other people can write to. So the file is first written inside a fresh private
folder (`mkdtemp`: created exclusively, mode 0700, nobody else can plant anything in it)
next to the target, then put into place in one step: `link()` when the target must not
exist (it fails on anything already there, a dangling symlink included, and never follows
one), `rename()` with `--force` (which replaces a symlink itself, never its target).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from bot.store.migrate import APPLICATION_ID, HEADER_SIZE, SQLITE_HEADER, application_id

SIDE_FILES = ("-wal", "-shm", "-journal")  # SQLite's files beside a database


class PlaceError(Exception):
    """The target cannot be written as asked (the message names it and why)."""


def refuse_existing(target: Path, *, force: bool) -> None:
    """Raise PlaceError if `target` exists (and `force` is off) or is not a plain file."""
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise PlaceError(f"{target}: is a symbolic link; quizbot never writes through one "
                         "(remove it or choose another name)")
    if not stat.S_ISREG(info.st_mode):
        raise PlaceError(f"{target}: exists and is not a regular file")
    if not force:
        raise PlaceError(f"{target}: already exists; choose a new name or add --force "
                         "to replace it")


def refuse_database(target: Path, db: Path) -> None:
    """PlaceError when `target` is the database `db` itself or one of its side files (the
    same file by any name or hard link): `--force` replaces an old backup or export, never
    the database the command reads, which an export or a backup written over it (the bot
    still writing to the file it has open) would take from every learner."""
    for own in (db, *(Path(f"{db}{side}") for side in SIDE_FILES)):
        with contextlib.suppress(OSError):  # either not there: not the same file
            if os.path.samefile(target, own):
                raise PlaceError(f"{target}: is the database itself ({db}); write the "
                                 "backup or export to another file")


def refuse_quizbot_database(target: Path) -> None:
    """PlaceError when `target` is a quizbot database (a SQLite file carrying quizbot's
    application_id) or one of its side files: `import` and `export-quiz` have no config,
    so they cannot tell the live database from another; they never write over any."""
    name = str(target)
    side = next((s for s in SIDE_FILES if name.endswith(s)), "")
    db = name.removesuffix(side) if side else name
    try:
        with Path(db).open("rb") as fh:
            header = fh.read(HEADER_SIZE)
    except OSError:  # not there, or not a file this user can read: no database of ours
        return
    if header.startswith(SQLITE_HEADER) and application_id(header) == APPLICATION_ID:
        what = f"a file of the quizbot database {db}" if side else "a quizbot database"
        raise PlaceError(f"{target}: is {what}; choose another file (nothing was written)")


def refuse_missing_folder(target: Path) -> None:
    """PlaceError, saying what to do, when the folder `target` would be written in is not
    there (checked before any work whose result would then have nowhere to go)."""
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise PlaceError(f"{folder}: no such folder; make it first (mkdir -p {folder}) or "
                         "give a file in an existing folder")


@contextlib.contextmanager
def new_file(target: Path, *, force: bool = False) -> Iterator[Path]:
    """Yield a private path to write; on a clean exit it becomes `target`.

    Refuses an existing target unless `force`, and a symlinked one always; on an error
    nothing is left behind and `target` is as it was.
    """
    folder = target.parent if str(target.parent) else Path(".")
    refuse_missing_folder(target)
    refuse_existing(target, force=force)
    try:
        private = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=folder))
    except OSError as exc:
        raise PlaceError(f"{folder}: cannot write there ({exc.strerror})") from None
    try:
        partial = private / target.name
        yield partial
        if not partial.is_file() or partial.is_symlink():
            raise PlaceError(f"{target}: nothing was written")
        _put(partial, target, force=force)
    finally:
        shutil.rmtree(private, ignore_errors=True)


def write_new(target: Path, data: bytes, *, force: bool = False) -> None:
    """Write `data` to `target` (a new file unless `force`), following no symlink."""
    with new_file(target, force=force) as partial:
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)


def _put(partial: Path, target: Path, *, force: bool) -> None:
    if force:
        refuse_existing(target, force=True)  # a symlink planted since the first look
        os.replace(partial, target)
        return
    try:
        os.link(partial, target, follow_symlinks=False)
    except FileExistsError:
        raise PlaceError(f"{target}: appeared while it was being written; nothing was "
                         "replaced") from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
            raise PlaceError(f"{target}: cannot be written ({exc.strerror})") from None
        # No hard links on this filesystem: claim the name exclusively, then move over it.
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            raise PlaceError(f"{target}: appeared while it was being written; nothing was "
                             "replaced") from None
        os.close(fd)
        os.replace(partial, target)
