"""The Bot API rate limiter: PTB's, with a group's posts metered apart from its lookups, a
lane of their own for a round's posts, and a 429 waited out by the chat it came for."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable
from datetime import timedelta
from typing import Any

from aiolimiter import AsyncLimiter
from telegram.error import RetryAfter
from telegram.ext import AIORateLimiter

from bot.domain.product_limits import GROUP_REPLIES_PER_MINUTE

log = logging.getLogger(__name__)

# The Bot API calls that post into a chat: the only ones Telegram's ~20 a minute per group
# applies to, so the only ones the group bucket should meter.
CHAT_POSTS = frozenset({"sendMessage", "editMessageText", "editMessageReplyMarkup",
                        "sendPhoto", "editMessageMedia", "editMessageCaption", "deleteMessage"})
ROUND_LANE = 3  # `rate_limit_args` of a round's posts: their lane (and 3 retries on 429)


class Limited(Exception):
    """A RetryAfter carried past PTB's limiter, which would pause every chat for it."""

    def __init__(self, error: RetryAfter) -> None:
        super().__init__(str(error))
        self.error = error


def _carried(callback: Callable[..., Any]) -> Callable[..., Any]:
    async def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return await callback(*args, **kwargs)
        except RetryAfter as exc:
            raise Limited(exc) from None
    return call


def seconds(after: float | timedelta) -> float:
    """A RetryAfter's wait in seconds (PTB gives an int or a timedelta)."""
    return after.total_seconds() if isinstance(after, timedelta) else float(after)


class GroupPostRateLimiter(AIORateLimiter):
    """PTB's limiter, but the per-group bucket only counts posts into the group, a round's
    posts have a lane of their own, and a 429 holds up only the chat it answered.

    PTB meters every call with a negative chat_id (getChatMember too) against the group's
    20 a minute; admin checks and deep-link checks would then eat the budget a reveal needs.
    Command replies into a group first pass a bucket of GROUP_REPLIES_PER_MINUTE, so however
    busy the members are, half the group's budget stays free and a round's posts (sent with
    `rate_limit_args=ROUND_LANE`) never queue behind replies.

    PTB waits out any RetryAfter with every call of the bot held: a group's flood limit
    (retry after up to a minute) then kept every learner's tap unanswered. Telegram's 429
    is about the chat posted to, so the wait is kept per chat (calls without one share one).
    """

    def __init__(self, *, max_retries: int = 0, **kwargs: Any) -> None:
        super().__init__(max_retries=max_retries, **kwargs)
        self.max_retries = max_retries  # 429s retried per call (PTB keeps its copy private)
        self._replies: dict[int, AsyncLimiter] = {}
        self._paused: dict[Hashable, float] = {}  # chat -> loop time its 429 wait ends

    async def process_request(self, callback: Callable[..., Any], args: Any,
                              kwargs: dict[str, Any], endpoint: str, data: dict[str, Any],
                              rate_limit_args: int | None) -> Any:
        chat, tries = data.get("chat_id"), rate_limit_args or self.max_retries
        loop, attempt = asyncio.get_running_loop(), 0
        while True:
            await self._wait_out(chat, loop)
            try:
                return await self._metered(_carried(callback), args, kwargs, endpoint, data,
                                           rate_limit_args)
            except Limited as limited:
                if attempt >= tries:
                    raise limited.error from None
                attempt += 1
                wait = seconds(limited.error.retry_after) + 0.1
                self._paused[chat] = max(self._paused.get(chat, 0.0), loop.time() + wait)
                log.info("telegram: %s to chat %s rate limited; again in %.1f s", endpoint,
                         chat, wait)

    async def _wait_out(self, chat: Hashable, loop: asyncio.AbstractEventLoop) -> None:
        """Until the chat's last 429 wait ends (one that ends later meanwhile may cost one
        more 429, which sets it again)."""
        until = self._paused.get(chat)
        if until is None:
            return
        if until > loop.time():
            await asyncio.sleep(until - loop.time())
        if self._paused.get(chat) == until:
            del self._paused[chat]

    async def _metered(self, callback: Callable[..., Any], args: Any, kwargs: dict[str, Any],
                       endpoint: str, data: dict[str, Any], rate_limit_args: int | None) -> Any:
        if endpoint not in CHAT_POSTS and "chat_id" in data:
            data = {k: v for k, v in data.items() if k != "chat_id"}  # the request keeps it
        chat = data.get("chat_id")
        if (endpoint in CHAT_POSTS and rate_limit_args != ROUND_LANE and isinstance(chat, int)
                and chat < 0):
            lane = self._replies.setdefault(chat, AsyncLimiter(GROUP_REPLIES_PER_MINUTE, 60))
            async with lane:
                return await super().process_request(callback, args, kwargs, endpoint, data,
                                                      rate_limit_args)
        return await super().process_request(callback, args, kwargs, endpoint, data,
                                              rate_limit_args)
