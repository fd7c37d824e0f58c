"""/daily on the fake Discord with the test's clock: Manage Server only, a time that does not
parse gets the usage line, the day's question is a channel message revealed once at its
close, and a channel the bot may no longer post in switches the daily off."""

from __future__ import annotations

import asyncio
import logging

from bot.app.compose import App
from bot.features.jobs import Scheduler
from bot.store.commands import daily_sql

from .conftest import ALICE, BOB, CHANNEL, GUILD, replied
from .fake_discord import FakeDiscord
from .test_rounds import Room, letter_of, question_of


async def daily(fake: FakeDiscord, who: dict[str, object], sub: str, **options: str) -> str:
    ix = await replied(fake, await fake.slash(who, "daily", guild=GUILD, subcommand=sub,
                                              options=options))
    assert ix.original is not None
    return ix.original.content


async def test_daily_on_the_fake_discord(fake: FakeDiscord, bot: App) -> None:
    room = Room(fake, bot)
    fake.permissions[BOB["id"]] = "0"
    assert await daily(fake, BOB, "on", time="09:00") == \
        "Only members who may Manage Server can do that."
    assert (await daily(fake, ALICE, "on", time="9am")).startswith("Use: /daily on HH:MM")
    said = await daily(fake, ALICE, "on", time="08:30", offset="+00:00")
    assert said.startswith("📅 A question of the day from Model and pipeline")
    dailies = bot.engine.dailies
    scheduler = Scheduler(bot.store, {dailies.kind: dailies}, clock=room.clock)
    room.clock.now += 30 * 60  # 08:30 UTC
    assert await scheduler.tick() == 1

    def posted() -> object:
        found = [m for m in fake.channel_messages if m.channel_id == CHANNEL and m.embeds
                 and m.embeds[0].get("title", "").startswith("📅 Question of the day")]
        return found[0] if found else None
    message = await fake.wait_for(posted, what="the day's question")
    question = question_of(message)
    assert (await room.press(ALICE, message, letter_of(message, question.correct))
            ).startswith("🔒 Locked in")
    room.advance(8 * 3600)
    await fake.wait_for(lambda: "Answer:" in message.embeds[0]["description"],
                        what="the reveal")
    assert "Got it right: Alice" in message.embeds[0]["description"]
    assert sum(1 for m in fake.channel_messages if m is message) == 1  # posted once

    # The next day the bot may not post in the channel: the daily goes off, with a log line.
    switched_off = Seen("switched off")
    logger = logging.getLogger("bot.features.daily")
    level = logger.level
    logger.setLevel(logging.INFO)
    logger.addHandler(switched_off)
    try:
        fake.fail("POST", rf"/channels/{CHANNEL}/messages", 403,
                  {"message": "Missing Access", "code": 50001})
        room.clock.now += 24 * 3600 - 8 * 3600
        assert await scheduler.tick() == 1
        room.advance(0)
        await asyncio.wait_for(switched_off.seen.wait(), 10)
    finally:
        logger.removeHandler(switched_off)
        logger.setLevel(level)
    assert await bot.store.read(daily_sql.get_daily, "discord", str(CHANNEL)) is None
    room.clock.now += 24 * 3600
    assert await scheduler.tick() == 0  # nothing retried


class Seen(logging.Handler):
    """Sets `seen` when a record containing `text` is logged."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text, self.seen = text, asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.text in record.getMessage():
            self.seen.set()
