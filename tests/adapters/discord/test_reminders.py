"""Reminders on Discord: a direct message with "Review now" (set in a server, /remind says
so), sent with as few calls as Discord allows (open the DM, send), once a day; a member
whose DMs are closed is not asked again, and is told why once, privately, in a server."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from adapters.discord import DiscordAdapter
from adapters.discord.views import MARKDOWN
from bot.app.compose import App
from bot.domain.learning import next_occurrence
from bot.domain.results import Actor
from bot.features.jobs import Scheduler
from bot.features.reminders import Reminders
from bot.features.review import reminder_kind
from bot.present.i18n import strip_isolates
from tests.clock import FakeClock
from tests.helpers import play_through

from .conftest import ALICE, GUILD, replied, running_adapter, settle
from .fake_discord import FakeDiscord


async def reminders_due(app: App, adapter: DiscordAdapter, alice: Actor
                        ) -> tuple[Scheduler, FakeClock]:
    """Alice has played a quiz; a reminder scheduler whose clock is three days on, at her
    19:30 (UTC+05:00)."""
    await play_through(app.engine, alice, "parallelism")
    clock = FakeClock(next_occurrence(time.time() + 3 * 86400, 19 * 60 + 30, 300))
    reminders = Reminders(app.engine, {"discord": adapter.reminder_sender()},
                          clock=clock, sleep=clock.sleep)
    return Scheduler(app.store, {reminder_kind("discord"): reminders}, clock=clock), clock


async def test_a_reminder_is_a_dm_with_review_now(config_path: Path, fake: FakeDiscord) -> None:
    async with running_adapter(config_path) as (app, adapter):
        ix = await replied(fake, await fake.slash(ALICE, "remind", guild=GUILD,
                                                  options={"time": "19:30",
                                                           "offset": "+05:00"}))
        assert ix.original is not None and ix.original.ephemeral
        # asked in a server, it says where the reminder will come, and what stops it
        assert ix.original.content.splitlines() == [
            app.catalogue.t("en", "remind.set", time="19:30", offset="UTC+05:00"),
            app.catalogue.t("en", "remind.by_dm")]
        ix = await replied(fake, await fake.slash(ALICE, "remind",  # in the DM: plain
                                                  options={"time": "19:30",
                                                           "offset": "+05:00"}))
        assert ix.original is not None and ix.original.content == app.catalogue.t(
            "en", "remind.set", time="19:30", offset="UTC+05:00")
        alice, engine = Actor("discord", ALICE["id"]), app.engine
        scheduler, clock = await reminders_due(app, adapter, alice)
        before = len(fake.requests)
        assert await scheduler.run_until_idle() == 1
        dm = int(ALICE["id"]) + 1
        note = await fake.wait_for(lambda: next(
            (m for m in fake.channel_messages if m.channel_id == dm), None),
            what="the reminder DM")
        assert note.content == app.catalogue.t("en", "reminder.text", due=8)
        assert [b["label"] for b in note.buttons] == [
            app.catalogue.t("en", "button.review_now")]
        # open the DM, send: no look-up of the user first
        assert [m for m, _ in fake.requests[before:]] == ["POST", "POST"]
        assert await scheduler.run_until_idle() == 0  # once
        assert (await engine.settings(alice)).remind_at is not None

        # Alice closes her DMs: Discord refuses with 50007, and she is not asked again
        fake.fail("POST", rf"^/channels/{dm}/messages$", 403,
                  {"message": "Cannot send messages to this user", "code": 50007})
        clock.advance(86400)
        assert await scheduler.run_until_idle() == 1
        assert (await engine.settings(alice)).remind_at is None
        clock.advance(86400)
        assert await scheduler.run_until_idle() == 0


async def test_a_learner_whose_dms_are_closed_hears_why_reminders_stopped_once(
        config_path: Path, fake: FakeDiscord) -> None:
    """Discord refused the reminder DM (50007): the reminder went off and nobody knew. The
    next command Alice uses in a server (not in a DM) brings one private note, in her Urdu,
    saying why and how to turn reminders back on; the one after does not repeat it."""
    async with running_adapter(config_path) as (app, adapter):
        await replied(fake, await fake.slash(ALICE, "language",
                                             options={"language": "ur"}))
        await replied(fake, await fake.slash(ALICE, "remind", guild=GUILD,
                                             options={"time": "19:30",
                                                      "offset": "+05:00"}))
        alice, engine = Actor("discord", ALICE["id"]), app.engine
        scheduler, _ = await reminders_due(app, adapter, alice)
        dm = int(ALICE["id"]) + 1
        fake.fail("POST", rf"^/channels/{dm}/messages$", 403,
                  {"message": "Cannot send messages to this user", "code": 50007})
        assert await scheduler.run_until_idle() == 1
        assert (await engine.settings(alice)).remind_at is None

        told = MARKDOWN.escape(app.catalogue.t("ur", "remind.stopped_dm"))
        ix = await replied(fake, await fake.slash(ALICE, "stats"))  # a DM: not there
        await settle()
        assert ix.followups == []
        ix = await replied(fake, await fake.slash(ALICE, "stats", guild=GUILD),
                           followups=1)
        (note,) = ix.followups
        assert note.ephemeral and note.content == told
        assert "/remind" in strip_isolates(note.content)
        ix = await replied(fake, await fake.slash(ALICE, "stats", guild=GUILD))
        await settle()
        assert ix.followups == []  # once

        # told, she turns them back on; a later refusal would be told again
        await replied(fake, await fake.slash(ALICE, "remind", guild=GUILD,
                                             options={"time": "19:30"}))
        assert (await engine.settings(alice)).remind_at is not None


async def test_a_reminder_the_network_drops_is_sent_again_later_without_a_traceback(
        config_path: Path, fake: FakeDiscord, caplog: pytest.LogCaptureFixture) -> None:
    """The connection to Discord cut while a reminder goes out (an aiohttp error, not an
    HTTPException): it was logged as a failed job with its traceback and tried again 1, 2,
    4 ... s later, each time with another traceback; as on Telegram, it is now a warning and
    another try in a minute."""
    async with running_adapter(config_path) as (app, adapter):
        await replied(fake, await fake.slash(ALICE, "remind", options={
            "time": "19:30", "offset": "+05:00"}))
        alice = Actor("discord", ALICE["id"])
        scheduler, clock = await reminders_due(app, adapter, alice)
        dm = int(ALICE["id"]) + 1
        fake.drop("POST", rf"^/channels/{dm}/messages$")
        caplog.clear()
        assert await scheduler.run_until_idle() == 1
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert any("reminder to" in r.getMessage() for r in caplog.records
                   if r.levelno == logging.WARNING)
        assert await scheduler.run_until_idle() == 0  # not before its minute
        clock.advance(61)
        assert await scheduler.run_until_idle() == 1
        await fake.wait_for(lambda: any(m.channel_id == dm for m in fake.channel_messages),
                            what="the reminder DM")
        assert (await app.engine.settings(alice)).remind_at is not None
