"""Small tmpfs mounts for fault tests (read-only and full filesystems); root only.

Root ignores file modes, so a read-only database is made the way a maintainer meets it: on
a filesystem mounted read-only. Every mount is undone on exit; tests skip, saying why, where
mounting is not permitted.
"""

from __future__ import annotations

import errno
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True, timeout=10)
    if done.returncode != 0:
        raise OSError(done.stderr.strip() or f"mount {' '.join(args)} failed")


@contextmanager
def tmpfs(where: Path, size: str = "2m") -> Iterator[Path]:
    """A fresh tmpfs of `size` on `where`; skips the test if it cannot be mounted."""
    where.mkdir(parents=True, exist_ok=True)
    try:
        _mount("-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where))
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot mount a tmpfs (needs root and mount permission): {exc}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=10)


def remount_readonly(where: Path) -> None:
    """Make the tmpfs on `where` read-only (the files on it stay)."""
    _mount("-o", "remount,ro", str(where))


def fill(folder: Path) -> Path:
    """Write a file in `folder` until the filesystem has no byte left; return it."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as fh:
        for chunk in (1 << 16, 4096, 512, 1):
            try:
                while True:
                    fh.write(b"\0" * chunk)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
    return filler
