"""Per-chat ordered delivery that does not hold up the next update.

An answered tap is acknowledged at once (answerCallbackQuery is not rate limited); the edit
and the next question are handed to the chat's outbox, so the update frees its processing
slot instead of waiting in the rate limiter behind other chats' sends. Each chat's messages
still go out in the order they were posted.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

from bot.domain.tasks import spawn

Send = Callable[[], Awaitable[Any]]


SENDS_IN_FLIGHT = 16  # Telegram takes ~30 messages/s; more at once only crowds out the acks


class Outbox:
    """One chain of sends per chat; tasks are owned here and awaited on `drain`.

    At most `in_flight` sends run at once across chats, so the HTTP connections stay free
    for what must be fast: the acks of the taps arriving meanwhile.
    """

    def __init__(self, in_flight: int = SENDS_IN_FLIGHT) -> None:
        self._tails: dict[Hashable, asyncio.Task[Any]] = {}
        self._slots = asyncio.Semaphore(in_flight)
        self._lost: dict[Hashable, int] = {}  # chat -> session whose question was given up

    def lost(self, chat: Hashable, session_id: int) -> None:
        """The message opening `session_id` in `chat` was given up: it never arrived."""
        self._lost[chat] = session_id

    def take_lost(self, chat: Hashable, session_id: int) -> bool:
        """Was the message opening `session_id` in `chat` given up? (Asked to post it again:
        the answer is given once.)"""
        if self._lost.get(chat) != session_id:
            return False
        del self._lost[chat]
        return True

    def post(self, chat: Hashable, send: Send) -> None:
        """Run `send` after everything posted to `chat` before it."""
        before = self._tails.get(chat)
        task = spawn(self._after(before, send), name=f"telegram-outbox-{chat}")
        self._tails[chat] = task
        task.add_done_callback(lambda done: self._forget(chat, done))

    async def _after(self, before: asyncio.Task[Any] | None, send: Send) -> None:
        if before is not None:
            with contextlib.suppress(BaseException):  # its failure is logged by its owner
                await asyncio.shield(before)
        async with self._slots:
            await send()

    def _forget(self, chat: Hashable, task: asyncio.Task[Any]) -> None:
        if self._tails.get(chat) is task:
            del self._tails[chat]

    async def settled(self, chat: Hashable) -> None:
        """Wait until everything posted to `chat` so far has run (its failures are its
        owner's to log): the webhook inbox marks an update done only then."""
        tail = self._tails.get(chat)
        if tail is not None:
            await asyncio.wait([tail])

    def __len__(self) -> int:
        return len(self._tails)

    async def drain(self) -> None:
        """Wait until every posted send has run (at shutdown, before the bot closes)."""
        while self._tails:
            await asyncio.gather(*self._tails.values(), return_exceptions=True)
