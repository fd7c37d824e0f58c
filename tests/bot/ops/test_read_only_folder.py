"""`quizbot stats|export|check|backup` on a database in a folder they cannot write (a
read-only mount, another user's folder): they only read, so they work, and add no file."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from bot.domain.errors import OpsError
from bot.ops import sqlite_backup
from bot.ops.reader import inspect, open_reader
from bot.store.commands.report_sql import overview
from bot.store.sqlite import SQLiteStore
from tests.mounts import remount_readonly, tmpfs


def snapshot(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


async def test_a_stopped_bots_database_in_a_read_only_folder_is_read(tmp_path: Path) -> None:
    mnt = tmp_path / "ro"
    with tmpfs(mnt):
        store = await SQLiteStore.open(mnt / "q.db")  # a WAL database, as the bot leaves it
        await store.close()
        remount_readonly(mnt)
        before = snapshot(mnt)

        async with open_reader(f"sqlite:///{mnt / 'q.db'}") as reader:  # stats, export
            assert (await reader.read(overview)).users == 0
        assert inspect(mnt / "q.db") is not None  # check
        sqlite_backup.backup(mnt / "q.db", tmp_path / "copy.db")  # backup

        assert snapshot(mnt) == before
    assert inspect(tmp_path / "copy.db") is not None


async def test_a_database_in_use_in_a_read_only_folder_says_what_to_do(tmp_path: Path) -> None:
    mnt = tmp_path / "ro"
    with tmpfs(mnt):
        store = await SQLiteStore.open(mnt / "q.db")
        await store.close()
        (mnt / "q.db-wal").write_bytes(b"")  # a bot has it open; its -shm is not ours to make
        remount_readonly(mnt)

        with pytest.raises(OpsError) as refused:
            inspect(mnt / "q.db")
        message = str(refused.value)
        assert "in use" in message and "run the command as the user the bot runs as" in message
        assert "attempt to write" not in message
