"""`Recent`: answers kept a short while, and a question already being asked not asked again.

The dashboard's two costly questions (Telegram's getChatMember, and a group's figures read
from every member's answers) are asked by floods of identical requests: a learner reloading,
a group opening its page together after a round, a script. `Recent` turns those into one
question per key per `seconds`. It only saves work: dropping it changes no answer, only how
fresh it is (at most `seconds` old). A failure is never kept.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """Values by key for `seconds` (at most `max_keys`, the oldest dropped first)."""

    def __init__(self, seconds: float, clock: Callable[[], float] | None = None,
                 max_keys: int = 10_000) -> None:
        self.seconds, self._clock, self._max_keys = seconds, clock, max_keys
        self._known: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._asking: dict[K, asyncio.Future[V]] = {}
        self.made = 0  # values actually made (tests and the benchmark read it)

    def _now(self) -> float:
        return self._clock() if self._clock is not None else asyncio.get_running_loop().time()

    def clear(self) -> None:
        """Forget everything kept."""
        self._known.clear()

    def forget(self, key: K) -> None:
        """Forget what is kept for `key` (the next `get` makes it again)."""
        self._known.pop(key, None)

    async def get(self, key: K, make: Callable[[], Awaitable[V]]) -> V:
        """The value kept for `key`, else the one being made for it, else `make()`'s."""
        known = self._known.get(key)
        if known is not None and known[0] > self._now():
            return known[1]
        asking = self._asking.get(key)
        if asking is not None:  # the same question is on its way: share its answer
            return await asyncio.shield(asking)
        future: asyncio.Future[V] = asyncio.get_running_loop().create_future()
        self._asking[key] = future
        try:
            self.made += 1
            value = await make()
        except BaseException as exc:
            if isinstance(exc, Exception):
                future.set_exception(exc)
                future.exception()  # marked retrieved: nobody else may be waiting
            else:
                future.cancel()
            raise
        finally:
            del self._asking[key]
        future.set_result(value)
        self._known[key] = (self._now() + self.seconds, value)
        self._known.move_to_end(key)
        while len(self._known) > self._max_keys:
            self._known.popitem(last=False)
        return value


__all__ = ["Recent"]
