"""The bot loses the right to post in a channel while a round or the question of the day
runs there (Discord answers a post with 403 Missing Permissions / Missing Access): the round
ends at once (no post tried again and again), the daily goes off, and whoever started them
is told why and what to do, by direct message in their language, once; /daily status keeps
saying why the daily is off. When the direct message is refused too, the log says it all."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from adapters.discord.views import MARKDOWN
from bot.app.compose import App
from bot.features.jobs import Scheduler
from bot.present.i18n import person, strip_isolates

from .conftest import ALICE, BOB, CHANNEL, GUILD, replied, settle
from .fake_discord import FakeDiscord, Message
from .test_rounds import Room

POSTS = rf"^/channels/{CHANNEL}/messages$"
TITLE = f"guild {GUILD} · #quiz"  # the channel as the interactions named it


def refuse_posts(fake: FakeDiscord, times: int = 10) -> None:
    fake.fail("POST", POSTS, 403, {"message": "Missing Permissions", "code": 50013},
              times=times)


def dms_to(fake: FakeDiscord, who: dict[str, Any]) -> list[Message]:
    return [m for m in fake.channel_messages if m.channel_id == fake.dm_channel(who)]


def channel_posts(fake: FakeDiscord) -> int:
    return sum(1 for m, p in fake.requests if m == "POST" and p == f"/channels/{CHANNEL}/messages")


async def test_a_round_that_may_no_longer_post_ends_and_its_host_hears_why_in_urdu(
        fake: FakeDiscord, bot: App) -> None:
    room = Room(fake, bot)
    await replied(fake, await fake.slash(BOB, "language", options={"language": "ur"}))
    ix = await replied(fake, await fake.slash(BOB, "round", guild=GUILD, subcommand="start",
                                              options={"seconds": 20, "questions": 3}))
    assert ix.original is not None and not ix.original.ephemeral
    refuse_posts(fake)  # someone took Send Messages away after the round was announced
    room.advance(5)
    told = (await fake.wait_for(lambda: dms_to(fake, BOB), what="the DM to the host"))[0]
    assert told.content == MARKDOWN.escape(bot.catalogue.t("ur", "round.lost_access",
                                                           channel=person("ur", TITLE)))
    assert "/round start" in strip_isolates(told.content)
    assert not await bot.engine.round_running("discord", str(CHANNEL))
    # nothing more is tried (not even the stopped round's reveal: it would be refused too),
    # nobody told twice
    for _ in range(3):
        room.advance(60)
        await settle()
    assert channel_posts(fake) == 1
    assert len(dms_to(fake, BOB)) == 1


async def test_the_daily_that_may_no_longer_post_goes_off_says_so_and_status_keeps_why(
        fake: FakeDiscord, bot: App) -> None:
    room = Room(fake, bot)
    ix = await replied(fake, await fake.slash(ALICE, "daily", guild=GUILD, subcommand="on",
                                              options={"time": "08:30", "offset": "+00:00"}))
    assert ix.original is not None and ix.original.content.startswith("📅")
    status = await replied(fake, await fake.slash(BOB, "daily", guild=GUILD,
                                                  subcommand="status"))
    assert status.original is not None and status.original.ephemeral
    assert status.original.content.startswith("📅 A question of the day from")

    dailies = bot.engine.dailies
    scheduler = Scheduler(bot.store, {dailies.kind: dailies}, clock=room.clock)
    refuse_posts(fake)
    room.clock.now += 30 * 60  # 08:30 UTC: the day's question, which Discord refuses
    assert await scheduler.tick() == 1
    room.advance(0)
    told = (await fake.wait_for(lambda: dms_to(fake, ALICE), what="the DM to Alice"))[0]
    assert told.content == MARKDOWN.escape(bot.catalogue.t("en", "daily.lost_access",
                                                           channel=TITLE))
    assert "/daily on HH:MM" in told.content

    status = await replied(fake, await fake.slash(BOB, "daily", guild=GUILD,
                                                  subcommand="status"))
    assert status.original is not None
    assert status.original.content == bot.catalogue.t("en", "daily.stopped")
    room.clock.now += 24 * 3600
    assert await scheduler.tick() == 0  # nothing retried
    await settle()
    assert len(dms_to(fake, ALICE)) == 1

    # the permission is back: /daily on again, and status says it is on
    await replied(fake, await fake.slash(ALICE, "daily", guild=GUILD, subcommand="on",
                                         options={"time": "08:30", "offset": "+00:00"}))
    status = await replied(fake, await fake.slash(BOB, "daily", guild=GUILD,
                                                  subcommand="status"))
    assert status.original is not None
    assert status.original.content.startswith("📅 A question of the day from")
    await replied(fake, await fake.slash(ALICE, "daily", guild=GUILD, subcommand="off"))
    status = await replied(fake, await fake.slash(BOB, "daily", guild=GUILD,
                                                  subcommand="status"))
    assert status.original is not None
    assert status.original.content == bot.catalogue.t("en", "daily.off")


async def test_a_host_whose_dms_are_closed_is_named_in_the_log(
        fake: FakeDiscord, bot: App, caplog: pytest.LogCaptureFixture) -> None:
    room = Room(fake, bot)
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start"))
    fake.fail("POST", rf"^/channels/{fake.dm_channel(ALICE)}/messages$", 403,
              {"message": "Cannot send messages to this user", "code": 50007})
    refuse_posts(fake)
    with caplog.at_level(logging.WARNING, logger="adapters.discord.round_posts"):
        room.advance(5)
        await fake.wait_for(lambda: ("POST", f"/channels/{fake.dm_channel(ALICE)}/messages")
                            in fake.requests, what="the refused DM")
        await fake.wait_for(lambda: "could not tell" in caplog.text, what="the log line")
    line = next(r.getMessage() for r in caplog.records if "could not tell" in r.getMessage())
    assert ALICE["id"] in line and TITLE in line and "Send Messages" in line
    assert "/round start" in line
    assert not await bot.engine.round_running("discord", str(CHANNEL))
