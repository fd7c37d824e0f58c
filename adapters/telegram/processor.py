"""Concurrent update processing that keeps each user's updates in arrival order."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Hashable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from adapters.telegram.locks import KeyedLocks


class PerUserUpdateProcessor(BaseUpdateProcessor):
    """Different users run in parallel; one user's updates run one after another.

    This is about what the learner sees, not about what counts: the store decides whether a
    tap counts (any process, any order). Keeping one user's updates in arrival order means
    replies come back in the order the learner sent (a /reset typed right after a tap is
    answered after it), and the chat's outbox then keeps them in that order on the wire.
    Locks exist only while someone holds or waits for them, so memory follows the number of
    busy users, not of users ever seen.
    """

    __slots__ = ("_locks",)

    def __init__(self, max_concurrent_updates: int) -> None:
        super().__init__(max_concurrent_updates)
        self._locks = KeyedLocks()

    @property
    def busy_users(self) -> int:
        """How many users have an update running or waiting."""
        return len(self._locks)

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Await `coroutine` under the lock of the update's user (if it has one)."""
        key = _user_key(update)
        if key is None:
            await coroutine
            return
        started = False
        try:
            async with self._locks.hold(key):
                started = True
                await coroutine
        finally:
            if not started and inspect.iscoroutine(coroutine):
                coroutine.close()  # cancelled while queued: never leave it un-awaited

    async def initialize(self) -> None:
        """Nothing to allocate."""

    async def shutdown(self) -> None:
        """Nothing to free: PTB waits for running updates before it shuts us down."""


def _user_key(update: object) -> Hashable | None:
    if isinstance(update, Update) and update.effective_user is not None:
        return update.effective_user.id
    return None
