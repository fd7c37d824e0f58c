"""Said lately: one reply per key (a group member, a private chat) per quiet window.

A process's memory only: losing it at a restart allows one more reply, never one fewer.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

FORGET_AFTER = 10_000  # keys held before the ones past their window are dropped


class SaidLately:
    """Remembers when each key last had its reply, on the engine's clock."""

    def __init__(self, clock: Callable[[], float], seconds: float) -> None:
        self.clock, self.seconds = clock, seconds
        self._said: dict[Hashable, float] = {}

    def __call__(self, key: Hashable) -> bool:
        """True when `key` had its reply in the last `seconds`; else notes it as said now."""
        now = self.clock()
        if len(self._said) > FORGET_AFTER:  # forget what no longer matters
            self._said = {k: t for k, t in self._said.items() if now - t < self.seconds}
        if now - self._said.get(key, now - self.seconds) < self.seconds:
            return True
        self._said[key] = now
        return False
