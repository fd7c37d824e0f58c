"""What the features report as they run (the metrics of `bot.app.metrics` listen)."""

from __future__ import annotations

from typing import Protocol


class Observer(Protocol):
    """Counts the engine reports; `bot.app.metrics.Metrics` is one."""

    def answer_recorded(self, platform: str, correct: bool) -> None:
        """An answer counted."""

    def session_started(self, platform: str) -> None:
        """A solo session began."""

    def session_finished(self, platform: str) -> None:
        """A solo session's last answer counted."""
