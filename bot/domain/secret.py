"""Secrets (tokens, passwords) wrapped so no repr, log line or traceback shows them."""

from __future__ import annotations


class Secret:
    """A string that never shows itself in repr() or str()."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The secret itself: pass it to the library, never to a log."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._value)
