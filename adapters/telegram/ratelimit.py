"""The Bot API rate limiter: PTB's, with a group's posts metered apart from its lookups and a
lane of their own for a round's posts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiolimiter import AsyncLimiter
from telegram.ext import AIORateLimiter

from bot.domain.product_limits import GROUP_REPLIES_PER_MINUTE

# The Bot API calls that post into a chat: the only ones Telegram's ~20 a minute per group
# applies to, so the only ones the group bucket should meter.
CHAT_POSTS = frozenset({"sendMessage", "editMessageText", "editMessageReplyMarkup",
                        "sendPhoto", "editMessageMedia", "editMessageCaption", "deleteMessage"})
ROUND_LANE = 3  # `rate_limit_args` of a round's posts: their lane (and 3 retries on 429)


class GroupPostRateLimiter(AIORateLimiter):
    """PTB's limiter, but the per-group bucket only counts posts into the group, and a
    round's posts have a lane of their own.

    PTB meters every call with a negative chat_id (getChatMember too) against the group's
    20 a minute; admin checks and deep-link checks would then eat the budget a reveal needs.
    Command replies into a group first pass a bucket of GROUP_REPLIES_PER_MINUTE, so however
    busy the members are, half the group's budget stays free and a round's posts (sent with
    `rate_limit_args=ROUND_LANE`) never queue behind replies.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._replies: dict[int, AsyncLimiter] = {}

    async def process_request(self, callback: Callable[..., Any], args: Any,
                              kwargs: dict[str, Any], endpoint: str, data: dict[str, Any],
                              rate_limit_args: int | None) -> Any:
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
