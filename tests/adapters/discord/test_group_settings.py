"""/settings quiz: language: in a server (Manage Server): the server's quiz and language,
used by /round start and /quiz there; members without the permission are refused."""

from __future__ import annotations

import pytest

from bot.app.compose import App
from bot.store.commands import rounds_sql, sessions_sql

from .conftest import ALICE, BOB, CHANNEL, GUILD, replied, slow_after_the_ack
from .fake_discord import FakeDiscord


async def test_server_admins_choose_quiz_and_language(bot: App, fake: FakeDiscord) -> None:
    fake.permissions[BOB["id"]] = "0"  # no Manage Server
    ix = await replied(fake, await fake.slash(BOB, "settings", guild=GUILD,
                                              options={"quiz": "long-context"}))
    # Discord's words: who may (Manage Server), and a server, not "this group's admins"
    assert ix.original is not None and ix.original.content == "Only members who may " \
        "Manage Server can change this server's settings. /settings shows them."

    ix = await replied(fake, await fake.slash(ALICE, "settings", guild=GUILD,
                                              options={"quiz": "long-context", "language": "ur"}))
    assert ix.original is not None and not ix.original.ephemeral  # news for the server
    text = ix.original.embeds[0]["description"] if ix.original.embeds else ix.original.content
    assert "Long sequences and sharded data parallelism\n" in text and "اردو" in text
    assert "long-context" not in text  # its title, never its id
    # Discord's words: a server, slash options, Manage Server (not "/settings quiz ID" in a
    # "group", nor "/settings in a private chat", which Telegram needs)
    lines = text.splitlines()
    assert lines[1] == "This server's settings"
    assert lines[-2].startswith("Members with Manage Server change them: /settings quiz: (type "
                                "part of a title and pick it from the suggestions) and")
    assert lines[-1].startswith("Your own settings (confidence, reminders): /settings with no")

    ix = await replied(fake, await fake.slash(BOB, "settings", guild=GUILD), followups=1)
    assert ix.original is not None  # their own settings, then the server's
    shown = [m.embeds[0]["description"] if m.embeds else m.content
             for m in (ix.original, *ix.followups)]
    assert any("Long sequences and sharded data parallelism" in text for text in shown)
    assert not any("long-context" in text for text in shown)

    ix = await replied(fake, await fake.slash(BOB, "quiz", guild=GUILD))  # the server's quiz
    assert ix.original is not None and ix.original.embeds  # a question, not the catalogue
    assert await bot.store.read(sessions_sql.active_session, "discord", BOB["id"],
                                "long-context") is not None

    await replied(fake, await fake.slash(BOB, "round", guild=GUILD, subcommand="start"))
    row = await bot.store.read(rounds_sql.active_round, "discord", str(CHANNEL))
    assert row is not None and (row.quiz_id, row.lang) == ("long-context", "ur")


async def test_settings_reads_both_inside_the_three_seconds(
        bot: App, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch) -> None:
    """/settings in a server reads the learner's settings and the server's: a slow second
    read gets the early ack (it used to run after the timer, unacknowledged)."""
    slow_after_the_ack(fake, monkeypatch, bot.engine, "group_settings")
    ix = await replied(fake, await fake.slash(BOB, "settings", guild=GUILD), followups=1)
    assert ix.callback is not None and ix.callback.type == 5  # "thinking…" first
    assert ix.original is not None and ix.original.ephemeral
    assert ix.original.content.startswith("Your learning settings")
    assert ix.followups[0].content.splitlines()[0] == "This server's settings"


async def test_help_in_a_server_offers_the_quiz_its_admins_chose(
        bot: App, fake: FakeDiscord) -> None:
    """/help in a server whose quiz was chosen said 'start with Model and pipeline
    parallelism (8 questions)' over a Start button for it: the bot's default."""
    await replied(fake, await fake.slash(ALICE, "settings", guild=GUILD,
                                         options={"quiz": "long-context"}))
    shown = (await replied(fake, await fake.slash(BOB, "help", guild=GUILD))).original
    assert shown is not None
    assert "start with Long sequences and sharded data parallelism" in shown.content
    assert "Model and pipeline parallelism" not in shown.content
    ix = await replied(fake, await fake.press(BOB, shown, shown.button("▶ Start")["custom_id"]))
    assert ix.original is not None and ix.original.embeds
    assert await bot.store.read(sessions_sql.active_session, "discord", BOB["id"],
                                "long-context") is not None
    dm = (await replied(fake, await fake.slash(BOB, "help"))).original  # a DM: the default
    assert dm is not None and "start with Model and pipeline parallelism" in dm.content
