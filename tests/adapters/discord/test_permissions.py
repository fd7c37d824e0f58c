"""The bot's own permissions in a channel: a round or a question of the day needs it to post
embeds there. Without them the command says so, privately, and starts nothing (the
command's answer goes through the interaction webhook, which the channel cannot stop, so
it used to announce a round whose questions Discord then refused one by one)."""

from __future__ import annotations

import pytest

from bot.app.compose import App
from bot.store.commands import daily_sql

from .conftest import ALICE, CHANNEL, GUILD, replied
from .fake_discord import FakeDiscord
from .payloads import ALL_PERMISSIONS

VIEW_CHANNEL, SEND_MESSAGES, EMBED_LINKS = 1 << 10, 1 << 11, 1 << 14


def without(*bits: int) -> str:
    value = int(ALL_PERMISSIONS) & ~(1 << 3)  # not an administrator either
    for bit in bits:
        value &= ~bit
    return str(value)


@pytest.mark.parametrize("missing", [SEND_MESSAGES, EMBED_LINKS, VIEW_CHANNEL])
async def test_no_round_or_daily_where_the_bot_cannot_post(fake: FakeDiscord, bot: App,
                                                           missing: int) -> None:
    fake.app_permissions = without(missing)
    refusal = bot.catalogue.t("en", "round.cannot_post")
    for sub, options in (("start", {"seconds": 20}), ("on", {"time": "09:00"})):
        ix = await replied(fake, await fake.slash(
            ALICE, "round" if sub == "start" else "daily", guild=GUILD, subcommand=sub,
            options=options))
        assert ix.original is not None and ix.original.ephemeral
        assert ix.original.content == refusal
    assert not await bot.engine.round_running("discord", str(CHANNEL))
    assert await bot.store.read(daily_sql.get_daily, "discord", str(CHANNEL)) is None
    assert ("POST", f"/channels/{CHANNEL}/messages") not in fake.requests

    fake.app_permissions = str(VIEW_CHANNEL | SEND_MESSAGES | EMBED_LINKS)  # enough
    ix = await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                              options={"seconds": 20}))
    assert ix.original is not None and not ix.original.ephemeral
    assert ix.original.content.startswith("Alice started a round")
    assert await bot.engine.round_running("discord", str(CHANNEL))
