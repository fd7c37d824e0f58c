"""The one private aiosqlite call (`group_commit.in_thread`) still works: if aiosqlite
renames what it uses, these fail loudly instead of the store slowing down or breaking."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiosqlite

from bot.store.sqlite import SQLiteStore

TAPS = 200


def test_aiosqlite_still_has_the_private_call_in_thread_uses():
    assert inspect.iscoroutinefunction(getattr(aiosqlite.Connection, "_execute", None))
    assert isinstance(inspect.getattr_static(aiosqlite.Connection, "_conn", None), property)


def count_hops(conn: aiosqlite.Connection) -> list[Callable[..., Any]]:
    """Every function sent to the connection's thread from now on (calls pass through)."""
    sent: list[Callable[..., Any]] = []
    real = conn._execute

    async def spy(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        sent.append(fn)
        return await real(fn, *args, **kwargs)

    conn._execute = spy  # type: ignore[method-assign]
    return sent


async def test_a_batch_of_writes_and_a_batch_of_reads_are_one_hop_each(tmp_path: Path):
    store = await SQLiteStore.open(tmp_path / "q.db")
    try:
        writes, reads = count_hops(store._w), count_hops(store._r)
        commits = store.commits
        await asyncio.gather(*(store.set_language("t", str(i), "ur") for i in range(TAPS)))
        assert store.commits - commits == len(writes) <= 2  # the first alone, then the rest
        langs = await asyncio.gather(*(store.touch_user("t", str(i), "") for i in range(TAPS)))
        assert langs == ["ur"] * TAPS and len(reads) <= 2
    finally:
        await store.close()
