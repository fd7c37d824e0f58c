"""The one router of button presses: a press's handler is picked by its payload's class
(STYLE example 14); the engine registers a handler per payload class. A kind routed `bound`
(a one-shot choice such as /reset's Yes and Cancel) is taken only from a message that still
carries it, where the platform lists the message's buttons (`Where.carries`): a second tap
after the prompt was answered, or data copied elsewhere, finds no handler."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bot.domain.errors import QuizGone, UnknownQuiz
from bot.domain.payloads import Payload
from bot.domain.results import Actor, PressOutcome, Where

P = TypeVar("P")
Handler = Callable[[Actor, Any, Where | None], Awaitable[PressOutcome]]


class ButtonRouter:
    """Picks a press's handler by the payload's class (STYLE example 14)."""

    def __init__(self) -> None:
        self._handlers: dict[type, Handler] = {}
        self._bound: set[type] = set()

    def route(self, kind: type[P],
              handler: Callable[[Actor, P, Where | None], Awaitable[PressOutcome]], *,
              bound: bool = False) -> None:
        """Send presses of `kind` to `handler` (`bound`: only from a message carrying it)."""
        self._handlers[kind] = handler
        if bound:
            self._bound.add(kind)

    def handler(self, pressed: Payload | None, where: Where | None = None) -> Handler | None:
        """The handler for this payload, None for one no feature takes (or a bound one
        pressed on a message that no longer carries it)."""
        if (pressed is not None and type(pressed) in self._bound and where is not None
                and not where.carries(pressed.pack())):
            return None
        handler = self._handlers.get(type(pressed))
        return None if handler is None else _gone_quiz_said(handler)


def _gone_quiz_said(handler: Handler) -> Handler:
    """A button's quiz that is gone (Start, Try again, Review on an old message) is said to
    be gone (`QuizGone`), not refused as a typed name would be, with its id and the titles."""
    async def pressed(actor: Actor, payload: Any, where: Where | None) -> PressOutcome:
        try:
            return await handler(actor, payload, where)
        except UnknownQuiz:
            raise QuizGone() from None
    return pressed
