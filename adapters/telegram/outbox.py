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

from bot.tasks import spawn

Send = Callable[[], Awaitable[Any]]


class Outbox:
    """One chain of sends per chat; tasks are owned here and awaited on `drain`."""

    def __init__(self) -> None:
        self._tails: dict[Hashable, asyncio.Task[Any]] = {}

    def post(self, chat: Hashable, send: Send) -> None:
        """Run `send` after everything posted to `chat` before it."""
        before = self._tails.get(chat)
        task = spawn(self._after(before, send), name=f"telegram-outbox-{chat}")
        self._tails[chat] = task
        task.add_done_callback(lambda done: self._forget(chat, done))

    @staticmethod
    async def _after(before: asyncio.Task[Any] | None, send: Send) -> None:
        if before is not None:
            with contextlib.suppress(BaseException):  # its failure is logged by its owner
                await asyncio.shield(before)
        await send()

    def _forget(self, chat: Hashable, task: asyncio.Task[Any]) -> None:
        if self._tails.get(chat) is task:
            del self._tails[chat]

    def __len__(self) -> int:
        return len(self._tails)

    async def drain(self) -> None:
        """Wait until every posted send has run (at shutdown, before the bot closes)."""
        while self._tails:
            await asyncio.gather(*self._tails.values(), return_exceptions=True)
