"""What the getUpdates loop runs into, told once and in one line; a 409 Conflict (another
process polls this token, or a webhook is set) makes the adapter not connected.

python-telegram-bot retries a failed getUpdates for ever and, left to itself, logs every
failure at ERROR with a traceback: two processes polling one token (the old container and
the new service, a forgotten `quizbot run` in a terminal) fill the log with 25-line
tracebacks every few seconds while /healthz answers 200, and neither process gets every
update. `Updater.start_polling(error_callback=...)` is PTB's public hook for these errors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from telegram.error import Conflict, TelegramError

log = logging.getLogger(__name__)

# PTB's retry loop waits at most 30 s between tries and a long poll lasts POLL_TIMEOUT
# (10 s): while another process polls, a 409 comes at least every 40 s. A conflict counts
# as current for longer than that, so /healthz does not flap between 200 and 503.
CONFLICT_WINDOW = 60.0
RETELL_AFTER = 600.0  # a conflict that goes on is logged again every ten minutes


class PollWatch:
    """PTB's `error_callback` for polling, and whether polling is being fought over."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.conflict_at: float | None = None  # the last 409 from getUpdates
        self._told_at: float | None = None

    def __call__(self, exc: TelegramError) -> None:
        """One failed getUpdates (PTB retries it after this returns)."""
        now = self.clock()
        if not isinstance(exc, Conflict):
            log.warning("telegram: getUpdates failed (%s: %s); retrying",
                        type(exc).__name__, exc.message)
            return
        fresh = not self.conflicting()
        self.conflict_at = now
        if fresh or self._told_at is None or now - self._told_at >= RETELL_AFTER:
            self._told_at = now
            log.warning("telegram: another process is taking this bot's updates (409 from "
                        "getUpdates: %s). Only one process may poll a token: stop the other "
                        "quizbot run (or any program using TELEGRAM_BOT_TOKEN); several "
                        "processes need telegram.mode: webhook (deploy/SCALING.md). Until "
                        "then updates are split between them and /healthz answers 503",
                        exc.message)

    def conflicting(self) -> bool:
        """True while getUpdates answered 409 within the last CONFLICT_WINDOW seconds."""
        return (self.conflict_at is not None
                and self.clock() - self.conflict_at < CONFLICT_WINDOW)
