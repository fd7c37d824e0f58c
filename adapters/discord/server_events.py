"""A server's life as the gateway tells the bot: joined (one welcome in its system channel,
when the bot may post there) and left or removed (its rounds end at once, its questions of
the day go off: before, a round ran on until its next post was refused)."""

from __future__ import annotations

import logging

import discord

from adapters.discord.views import MARKDOWN
from bot.app.compose import App
from bot.domain.results import Actor

log = logging.getLogger(__name__)

PLATFORM = "discord"


class ServerEvents:
    """What the bot does when it is added to a server or taken out of one."""

    def __init__(self, app: App) -> None:
        self.engine, self.cat = app.engine, app.catalogue
        self.seconds = app.config.rounds.default_seconds  # what a bare /round start gives

    async def removed(self, guild: discord.Guild) -> None:
        """Out of the server (kicked, banned, or the server deleted): every round running
        in its channels is stored as ended now, with nothing more posted, and its questions
        of the day go off. Its hosts are not told: a DM needs a server in common."""
        stopped = await self.engine.server_gone(PLATFORM, str(guild.id))
        log.info("discord: out of server %s (%s); %d channel(s) with a round or a daily "
                 "stopped", guild.id, guild.name, len(stopped))

    async def joined(self, guild: discord.Guild) -> None:
        """Added to a server: one welcome saying how to start a round, in the server's
        system channel when the bot may post there (none, or not allowed: nothing), in the
        language its admins chose if the bot was there before, else the bot's default."""
        channel, me = guild.system_channel, guild.me
        if channel is None or me is None or not channel.permissions_for(me).send_messages:
            log.info("discord: joined server %s (%s); no system channel to greet it in",
                     guild.id, guild.name)
            return
        where = Actor(PLATFORM, str(me.id), str(guild.id), me.display_name, None)
        lang = (await self.engine.group_choice(where))[1] or self.engine.default_lang
        quiz = await self.engine.first_quiz(where, lang)
        text = self.cat.t(lang, "group.hello_server", title=quiz.title, seconds=self.seconds)
        try:
            await channel.send(MARKDOWN.escape(text))
        except discord.HTTPException as exc:
            log.info("discord: could not greet server %s in its system channel (HTTP %s)",
                     guild.id, exc.status)
