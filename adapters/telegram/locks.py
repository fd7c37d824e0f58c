"""Per-key asyncio locks that exist only while someone holds or waits for them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager


class KeyedLocks:
    """One lock per key (a session, a user); memory follows busy keys, not keys ever seen."""

    def __init__(self) -> None:
        self._held: dict[Hashable, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        """Hold the lock for `key`; waiters for the same key go one at a time, in order."""
        lock, users = self._held.get(key, (asyncio.Lock(), 0))
        self._held[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._held[key]
            if users == 1:
                del self._held[key]
            else:
                self._held[key] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._held)
