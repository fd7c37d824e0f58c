"""A simulated clock: tests move time by hand and never sleep."""

from __future__ import annotations

from datetime import UTC, datetime

START = datetime(2025, 3, 1, 12, 0, tzinfo=UTC).timestamp()


class FakeClock:
    """Epoch seconds that move only when told; `sleep` advances them at once."""

    def __init__(self, now: float = START) -> None:
        self.now = now
        self.slept = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    async def sleep(self, seconds: float) -> None:
        """Return at once with the clock at (at least) the time this sleep would end.

        Concurrent sleepers each move it to their own end, not the sum of all of them.
        """
        target = self.now + max(0.0, seconds)
        self.slept += max(0.0, target - self.now)
        self.now = max(self.now, target)
