"""The bot taken out of a server while a round runs in one of its channels: the round is
stored as ended at once, nothing more of it is posted, its question of the day goes off.
The bot added to a server: one welcome in its system channel saying how to start a round,
in the language the server's admins chose if the bot was there before."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.app.compose import App
from bot.present.i18n import strip_isolates
from bot.store.commands import daily_sql, rounds_sql

from .conftest import ALICE, BOB, CHANNEL, GUILD, replied, running_adapter, settle
from .fake_discord import FakeDiscord
from .test_rounds import Room, button_of

OTHER_GUILD, OTHER_CHANNEL = 1_400_000_000_000_000_011, 1_400_000_000_000_000_012
QUIET_GUILD, QUIET_CHANNEL = 1_400_000_000_000_000_021, 1_400_000_000_000_000_022


def spy(monkeypatch: pytest.MonkeyPatch, obj: Any, name: str) -> asyncio.Event:
    """An event set once `obj.name` (a coroutine method) has returned: the test's bounded
    wait on something the bot does without sending anything."""
    done, real = asyncio.Event(), getattr(obj, name)

    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return await real(*args, **kwargs)
        finally:
            done.set()
    monkeypatch.setattr(obj, name, wrapped)
    return done


@pytest.fixture
async def ready(config_path: Path) -> AsyncIterator[App]:
    """The app with its Discord adapter past READY and its servers: a server joined later
    is a join (discord.py counts one during start-up as there already)."""
    async with running_adapter(config_path, ready=True) as (app, _):
        yield app


def channel_calls(fake: FakeDiscord, channel: int) -> int:
    return sum(1 for _, path in fake.requests if path.startswith(f"/channels/{channel}/"))


async def test_a_round_ends_the_moment_the_server_removes_the_bot(
        fake: FakeDiscord, bot: App, monkeypatch: pytest.MonkeyPatch) -> None:
    room = Room(fake, bot)
    await replied(fake, await fake.slash(ALICE, "daily", guild=GUILD, subcommand="on",
                                         options={"time": "08:30", "offset": "+00:00"}))
    await replied(fake, await fake.slash(BOB, "round", guild=GUILD, subcommand="start",
                                         options={"seconds": 20, "questions": 3}))
    question = await room.question(1)
    await replied(fake, await fake.press(ALICE, question, button_of(question, "A")))
    rnd = await bot.store.read(rounds_sql.active_round, "discord", str(CHANNEL))
    assert rnd is not None
    gone = spy(monkeypatch, bot.engine, "server_gone")
    since = channel_calls(fake, CHANNEL)
    await fake.remove_guild(GUILD)
    await asyncio.wait_for(gone.wait(), 30)
    ended = await bot.store.read(rounds_sql.get_round, rnd.id)
    assert ended is not None and ended.status == "stopped"
    assert ended.finished_at == room.clock.now  # at once, not at the question's deadline
    assert await bot.store.read(daily_sql.get_daily, "discord", str(CHANNEL)) is None
    for _ in range(3):  # past the deadline and the next question's opening
        room.advance(30)
        await settle()
    assert channel_calls(fake, CHANNEL) == since  # no reveal, no next question


async def wait_for_message(fake: FakeDiscord, channel: int) -> str:
    found = await fake.wait_for(lambda: [m for m in fake.channel_messages
                                         if m.channel_id == channel],
                                what=f"a message in channel {channel}")
    return strip_isolates(found[0].content)


async def test_the_bot_added_to_a_server_says_how_to_start_a_round(
        fake: FakeDiscord, ready: App) -> None:
    await fake.join_guild(QUIET_GUILD, QUIET_CHANNEL, system=False)  # nowhere to greet
    await fake.join_guild(OTHER_GUILD, OTHER_CHANNEL)
    hello = await wait_for_message(fake, OTHER_CHANNEL)
    assert hello.splitlines() == [
        "👋 Thanks for adding me! I run timed quiz rounds in this server's channels.",
        "/round start in a channel: a round of Model and pipeline parallelism, 30 s a "
        "question (seconds: and questions: change that). Answers stay private until each "
        "reveal.",
        "/quiz: a quiz of your own, that only you see; it counts on this server's board too.",
        "Members who may Manage Server: /settings picks the server's quiz and language. "
        "/help: everything else."]
    assert not [m for m in fake.channel_messages if m.channel_id == QUIET_CHANNEL]


async def test_a_server_that_chose_urdu_is_welcomed_back_in_urdu(
        fake: FakeDiscord, ready: App, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = ready
    await replied(fake, await fake.slash(ALICE, "settings", guild=GUILD,
                                         options={"quiz": "long-context", "language": "ur"}))
    gone = spy(monkeypatch, bot.engine, "server_gone")
    await fake.remove_guild(GUILD)
    await asyncio.wait_for(gone.wait(), 30)
    since = len(fake.channel_messages)
    await fake.join_guild(GUILD, CHANNEL)
    found = await fake.wait_for(lambda: fake.channel_messages[since:], what="the welcome")
    hello = strip_isolates(found[0].content)
    assert hello.startswith("👋 مجھے شامل کرنے کا شکریہ!")
    assert "لمبی سیکوئنسز" in hello  # the server's own quiz, in Urdu
    assert "/round start" in hello
