"""Chat titles as the platforms name them, kept on a real SQLite store: written when new or
changed, and once however many updates arrive together."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from bot.features.chats import ChatTitles
from bot.store.sqlite import SQLiteStore
from tests.clock import FakeClock


class Counted:
    """The real store, with every write counted by its command's name."""

    def __init__(self, store: SQLiteStore) -> None:
        self.store, self.writes = store, Counter[str]()

    async def read(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return await self.store.read(fn, *args, **kwargs)

    async def write(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        self.writes[fn.__name__] += 1
        return await self.store.write(fn, *args, **kwargs)


async def test_a_burst_of_updates_writes_a_chats_title_once(store: SQLiteStore) -> None:
    """After a restart nothing is remembered, and a round's members press at once: every
    press carried the server's and the channel's names, and each press wrote both (200
    writes for 100 presses, queued before the lock-ins on one connection)."""
    counted = Counted(store)
    chats = ChatTitles(counted, FakeClock(1_800_000_000))  # type: ignore[arg-type]
    await asyncio.gather(*(chats.note("discord", "5", "Study group · #quiz")
                           for _ in range(100)))
    assert counted.writes["save_chat_title"] == 1
    assert await chats.titles("discord", ["5"]) == {"5": "Study group · #quiz"}
    await chats.note("discord", "5", "Study group · #quiz")  # known: no write
    await chats.note("discord", "5", "Study group · #rounds")  # renamed: written
    assert counted.writes["save_chat_title"] == 2
    assert await chats.titles("discord", ["5"]) == {"5": "Study group · #rounds"}
