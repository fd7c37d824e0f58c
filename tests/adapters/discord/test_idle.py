"""An idle bot on Discord writes nothing: connected to the (fake) gateway, with the
scheduler running what `quizbot run` gives it and nothing due, a minute passes without one
write transaction."""

from __future__ import annotations

from bot.app.compose import App, serve_jobs
from tests.idle import idle_minute


async def test_an_idle_discord_bot_makes_no_write_transaction(bot: App) -> None:
    await serve_jobs(bot, {})
    assert await idle_minute(bot) == []
