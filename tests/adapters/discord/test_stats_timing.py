"""/stats reads twice and draws a chart: all of it inside the 3-second timer (a slow read
gets the early ack, not a late callback Discord has dropped), the chart off the event loop
(for a learner of every quiz it takes ~0.6 s, during which no other interaction moved)."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable

import pytest

from adapters.discord import replies
from bot.app.compose import App
from bot.present import chart

from .conftest import ALICE, GUILD, PLAY, answer, replied, right_id
from .fake_discord import FakeDiscord


async def test_stats_is_acknowledged_while_it_reads_and_draws(
        fake: FakeDiscord, bot: App, monkeypatch: pytest.MonkeyPatch) -> None:
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options=PLAY))
    assert ix.original is not None
    await answer(fake, ALICE, ix.original, right_id(ix.original))  # a card: a chart to draw
    monkeypatch.setattr(replies, "DEFER_AFTER", 0.05)

    def slow(call: Callable[..., Awaitable[object]]) -> Callable[..., Awaitable[object]]:
        async def slowly(*args: object, **kwargs: object) -> object:
            # a busy database: the second read finishes only once the command was
            # acknowledged (an event, not a stopwatch)
            pending = list(fake.interactions.values())[-1]
            await fake.wait_for(lambda: pending.callback is not None, what="the early ack")
            return await call(*args, **kwargs)
        return slowly

    drawn_on: list[threading.Thread] = []

    draw = chart.progress_png

    def drawing(progress: object) -> bytes:
        drawn_on.append(threading.current_thread())
        return draw(progress)  # type: ignore[arg-type]

    monkeypatch.setattr(bot.engine, "progress", slow(bot.engine.progress))
    monkeypatch.setattr(chart, "progress_png", drawing)
    ix = await fake.slash(ALICE, "stats", guild=GUILD)
    stats = await fake.wait_for(lambda: ix.original if ix.original and ix.original.embeds
                                else None, what="the thinking message to be filled")
    assert ix.callback is not None and ix.callback.type == 5  # "thinking…" first
    assert stats.ephemeral and "Your stats" in stats.embeds[0]["description"]
    assert stats.embeds[0]["image"]["url"] == "attachment://stats.png"
    assert drawn_on and drawn_on[0] is not threading.main_thread()
