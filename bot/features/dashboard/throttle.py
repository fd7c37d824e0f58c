"""How often the dashboard's API may be asked: per learner and per address.

A token bucket per key: `per_minute` tokens a minute, at most a quarter-minute's worth saved
up (BURST_SHARE, at least MIN_BURST), so a learner who opens the page a few times in a row is
never stopped and a flood gets its burst, then one request every 60/per_minute seconds. A
refused request is told when the next one will be taken (HTTP 429 with Retry-After). The
buckets are kept in memory, per process: a limit that forgets on restart only lets a little
more through, never less.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable

DEFAULT_PER_MINUTE = 60  # web.rate_limit: requests a minute per learner
ADDRESS_FACTOR = 10  # an address (a school's NAT) gets ten learners' worth
BURST_SHARE = 4  # a quarter of a minute's requests may come at once
MIN_BURST = 5
MAX_KEYS = 100_000  # buckets kept at most; the least recently used go first (a full bucket)


class RateLimit:
    """Token buckets by key; `take(key)` spends one or says how long to wait."""

    def __init__(self, per_minute: int, clock: Callable[[], float],
                 max_keys: int = MAX_KEYS) -> None:
        if per_minute < 1:
            raise ValueError("per_minute must be at least 1")
        self.per_minute = per_minute
        self.burst = float(max(MIN_BURST, per_minute // BURST_SHARE))
        self._rate = per_minute / 60.0  # tokens a second
        self._clock = clock
        self._max_keys = max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, at

    def take(self, key: str) -> int:
        """0 when the request may go ahead (one token spent), else the whole seconds until
        it may (for Retry-After)."""
        now = self._clock()
        tokens, at = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self._rate)
        if tokens >= 1.0:
            self._buckets[key] = (tokens - 1.0, now)
            wait = 0
        else:
            self._buckets[key] = (tokens, now)
            wait = max(1, math.ceil((1.0 - tokens) / self._rate))
        self._buckets.move_to_end(key)
        if len(self._buckets) > self._max_keys:
            # Forgetting a bucket only refills it: the oldest one has waited longest.
            self._buckets.popitem(last=False)
        return wait


__all__ = ["ADDRESS_FACTOR", "DEFAULT_PER_MINUTE", "RateLimit"]
