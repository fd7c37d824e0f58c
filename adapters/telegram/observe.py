"""Telegram errors as metric kinds: a small, bounded set of label values."""

from __future__ import annotations

from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

# Most specific first: BadRequest, TimedOut and friends are all NetworkErrors in PTB.
KINDS: tuple[tuple[type[TelegramError], str], ...] = (
    (RetryAfter, "rate_limited"),
    (Forbidden, "forbidden"),
    (InvalidToken, "unauthorized"),
    (Conflict, "conflict"),
    (ChatMigrated, "chat_migrated"),
    (BadRequest, "bad_request"),
    (TimedOut, "timeout"),
    (NetworkError, "network"),
)


def error_kind(exc: BaseException) -> str | None:
    """The metric kind of a Bot API failure, or None when `exc` is not one."""
    for cls, kind in KINDS:
        if isinstance(exc, cls):
            return kind
    return "other" if isinstance(exc, TelegramError) else None
