"""The one router of button presses: a press's handler is picked by its payload's class
(STYLE example 14); the engine registers a handler per payload class."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bot.domain.results import Actor, PressOutcome, Where

P = TypeVar("P")
Handler = Callable[[Actor, Any, Where | None], Awaitable[PressOutcome]]


class ButtonRouter:
    """Picks a press's handler by the payload's class (STYLE example 14)."""

    def __init__(self) -> None:
        self._handlers: dict[type, Handler] = {}

    def route(self, kind: type[P],
              handler: Callable[[Actor, P, Where | None], Awaitable[PressOutcome]]) -> None:
        """Send presses of `kind` to `handler`."""
        self._handlers[kind] = handler

    def handler(self, pressed: object) -> Handler | None:
        """The handler for this payload, None for one no feature takes."""
        return self._handlers.get(type(pressed))
