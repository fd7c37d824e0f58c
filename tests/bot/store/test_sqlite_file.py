"""The database file deleted or replaced under a running store: SQLite went on writing to
the file it had open, which nobody could open again, so every answer since was lost when
the bot stopped (and reads failed as a bare 'disk I/O error', logged as a bug each time).
Now what the store holds is written back, writes are refused as StoreLost (the learner is
told), and the log says it once."""

from __future__ import annotations

import logging
import os
import shutil
import time
from pathlib import Path

import pytest

from bot.domain.errors import StoreLost
from bot.store.commands import sessions_sql
from bot.store.sqlite import SQLiteStore


async def language(path: Path, user: str) -> str | None:
    store = await SQLiteStore.open(path)
    try:
        return await sessions_sql.touch_user(store, "t", user, "", time.time())
    finally:
        await store.close()


def lost_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "bot.store.sqlite_file" and r.levelno == logging.ERROR]


async def test_a_deleted_database_is_written_back_and_later_writes_are_refused(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "q.db"
    store = await SQLiteStore.open(path)
    try:
        await store.write(sessions_sql.set_language, "t", "1", "ur", time.time())
        os.unlink(path)  # a cleanup script, an rm in the wrong folder
        for user in ("2", "3"):
            with pytest.raises(StoreLost):
                await store.write(sessions_sql.set_language, "t", user, "ur", time.time())
    finally:
        await store.close()
    [line] = lost_lines(caplog)  # once, saying where the data is and what to do
    assert f"{path} was deleted" in line and f"written to {path}" in line and "Restart" in line
    assert await language(path, "1") == "ur"  # what was saved before is still there
    assert await language(path, "2") is None  # refused, and the learner was told


async def test_a_replaced_database_is_left_alone_and_the_open_one_is_kept_beside_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path, other = tmp_path / "q.db", tmp_path / "other" / "q.db"
    other.parent.mkdir()
    await (await SQLiteStore.open(other)).close()
    store = await SQLiteStore.open(path)
    try:
        await store.write(sessions_sql.set_language, "t", "1", "ur", time.time())
        shutil.copy(other, tmp_path / "new.db")
        os.replace(tmp_path / "new.db", path)  # a copy moved over the live file
        with pytest.raises(StoreLost):
            await store.write(sessions_sql.set_language, "t", "2", "ur", time.time())
    finally:
        await store.close()
    [rescued] = tmp_path.glob("q.db.rescued-*")
    [line] = lost_lines(caplog)
    assert f"written to {rescued}" in line and f"after putting {rescued} in place" in line
    assert await language(rescued, "1") == "ur"
    assert await language(path, "1") is None  # the file put there is not overwritten
