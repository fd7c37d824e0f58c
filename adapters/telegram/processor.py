"""Concurrent update processing that keeps each user's updates in arrival order, and
keeps one user from holding the shared processing slots."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections import Counter
from collections.abc import Awaitable, Hashable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor

from adapters.telegram.locks import KeyedLocks

log = logging.getLogger(__name__)

MAX_QUEUED = 4  # updates of one user waiting behind their running one; more are dropped
IN_HAND = 256  # updates of users without a key, and slack, that PTB may hand us at once


class PerUserUpdateProcessor(BaseUpdateProcessor):
    """Different users run in parallel; one user's updates run one after another.

    This is about what the learner sees, not about what counts: the store decides whether a
    tap counts (any process, any order). Keeping one user's updates in arrival order means
    replies come back in the order the learner sent (a /reset typed right after a tap is
    answered after it), and the chat's outbox then keeps them in that order on the wire.
    Locks exist only while someone holds or waits for them, so memory follows the number of
    busy users, not of users ever seen.
    """

    __slots__ = ("_locks", "_queued", "_slots", "dropped", "max_queued")

    def __init__(self, max_concurrent_updates: int, *, max_queued: int = MAX_QUEUED) -> None:
        # PTB's own semaphore is taken before `do_process_update` is called, so an update
        # waiting there for its user's turn would hold one of the shared slots: PTB's is
        # only a bound on updates in hand here, and the real slots are taken after the
        # user's turn has come.
        super().__init__(max_concurrent_updates * (max_queued + 1) + IN_HAND)
        self._slots = asyncio.Semaphore(max_concurrent_updates)
        self._locks = KeyedLocks()
        self._queued: Counter[Hashable] = Counter()  # per user: running or waiting
        self.max_queued = max_queued
        self.dropped = 0  # updates refused because their user had too many queued

    @property
    def busy_users(self) -> int:
        """How many users have an update running or waiting."""
        return len(self._locks)

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        """Await `coroutine` in the user's turn, then in one of the shared slots; beyond
        `max_queued` waiting updates of one user the newest are dropped (a flood of 1,500
        /stats costs one slot, not all of them)."""
        key = _user_key(update)
        if key is None:
            async with self._slots:
                await coroutine
            return
        if self._queued[key] > self.max_queued:
            self.dropped += 1
            if inspect.iscoroutine(coroutine):
                coroutine.close()
            log.info("telegram: user %s has %d updates queued; one more dropped", key,
                     self._queued[key])
            return
        self._queued[key] += 1
        started = False
        try:
            async with self._locks.hold(key), self._slots:
                started = True
                await coroutine
        finally:
            self._queued[key] -= 1
            if not self._queued[key]:
                del self._queued[key]
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
