"""Rounds on Discord: `/round start|stop|skip` and `/daily`.

The command's own interaction only gets the public "round started" answer; the questions
are `round_posts.RoundPosts`. A press on a round's button goes the way of every press
(`Flows.press`) and gets an ephemeral acknowledgement.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from adapters.discord.replies import actor_of, note, send, timely
from adapters.discord.role_rewards import DiscordRewards
from adapters.discord.round_posts import RoundPosts
from adapters.discord.views import view_of
from bot.app.compose import App
from bot.domain.round_rules import DEFAULT_SCORING
from bot.features.naming import quiz_named

log = logging.getLogger(__name__)


def can_post(interaction: discord.Interaction[Any]) -> bool:
    """Whether the bot may post a round's embeds in the interaction's channel. A slash
    command's answer goes through the interaction webhook, which channel permissions do
    not stop, so "round started" would show while every question Discord refuses (403)."""
    mine = interaction.app_permissions
    send = (mine.send_messages_in_threads if isinstance(interaction.channel, discord.Thread)
            else mine.send_messages)
    return mine.administrator or (mine.view_channel and send and mine.embed_links)


class DiscordRounds:
    """The round commands of one client; `posts` shows the rounds."""

    def __init__(self, app: App, client: discord.Client) -> None:
        self.engine, self.cat, self.client = app.engine, app.catalogue, client
        self.rewards = DiscordRewards(app, client)
        posts = RoundPosts(app, client, self.rewards)
        self.plan = posts.plan
        self.posts = posts

    # --- commands ----------------------------------------------------------------------------

    async def start(self, interaction: discord.Interaction[Any], quiz: str | None,
                    seconds: int | None, questions: int | None, *, teams: int = 0,
                    scoring: str = DEFAULT_SCORING, untimed: bool = False) -> None:
        """/round start [quiz] [seconds] [questions] [teams] [scoring] [untimed]: a public
        answer (with the join buttons of a team or untimed round), then the questions."""
        actor = actor_of(interaction)
        channel = str(interaction.channel_id) if interaction.guild_id else None
        if channel is not None and not can_post(interaction):
            await note(interaction, self.cat, await self.engine.language(actor),
                       "round.cannot_post")
            return
        quiz = quiz_named(self.engine, self.cat.languages, quiz) if quiz else None
        work = self.engine.start_round(actor, channel, quiz, seconds=seconds,
                                       questions=questions, scoring=scoring, teams=teams,
                                       untimed=untimed)
        started = await timely(interaction, work, ephemeral=False)
        (card,) = self.plan.started(started).send
        view = view_of(card)
        if view is None:
            await send(interaction, ephemeral=False, content=card.body)
        elif (ref := await posted(interaction, content=card.body, view=view)) is not None \
                and card.lobby is not None:  # its join buttons come off when the round ends
            await self.engine.lobby_posted(card.lobby, ref)

    def _may_manage(self, interaction: discord.Interaction[Any]) -> bool:
        permissions = interaction.permissions
        return bool(permissions.manage_messages or permissions.administrator)

    async def daily(self, interaction: discord.Interaction[Any], on: bool, time: str = "",
                    offset: str | None = None, quiz: str | None = None) -> None:
        """/daily on time [offset] [quiz] | /daily off: server admins (Manage Server)."""
        actor = actor_of(interaction)
        channel = str(interaction.channel_id) if interaction.guild_id else None
        permissions = interaction.permissions
        admin = bool(permissions.manage_guild or permissions.administrator)
        engine = self.engine
        if on and admin and channel is not None and not can_post(interaction):
            await note(interaction, self.cat, await engine.language(actor), "round.cannot_post")
            return
        quiz = quiz_named(engine, self.cat.languages, quiz) if quiz else None
        work = (engine.daily_on(actor, channel, time, offset or None, quiz,
                                may_manage=admin) if on
                else engine.daily_off(actor, channel, may_manage=admin))
        done = await timely(interaction, work, ephemeral=False)
        (card,) = self.plan.daily_set(done).send
        await send(interaction, ephemeral=False, content=card.body)

    async def daily_status(self, interaction: discord.Interaction[Any]) -> None:
        """/daily status: anyone, privately; when it went off by itself, why and what to do."""
        actor = actor_of(interaction)
        channel = str(interaction.channel_id) if interaction.guild_id else None
        done = await timely(interaction, self.engine.daily_status(actor, channel))
        (card,) = self.plan.daily_set(done).send
        await send(interaction, ephemeral=True, content=card.body)

    async def stop(self, interaction: discord.Interaction[Any]) -> None:
        """/round stop: the host or a member who may manage messages."""
        await self._manage(interaction, self.engine.stop_round, "round.stopped")

    async def skip(self, interaction: discord.Interaction[Any]) -> None:
        """/round skip: reveal the open question now."""
        await self._manage(interaction, self.engine.skip_round, "round.skipped")

    async def _manage(self, interaction: discord.Interaction[Any],
                      act: Callable[..., Awaitable[object]], done_key: str) -> None:
        """Stop or skip the channel's round (the engine decides who may), then say so."""
        actor = actor_of(interaction)
        channel = str(interaction.channel_id) if interaction.guild_id else None
        async def done() -> str:  # the act and the reader's language, inside the 3 seconds
            await act(actor, channel, may_manage=self._may_manage(interaction))
            return await self.engine.language(actor)

        await note(interaction, self.cat, await timely(interaction, done()), done_key)


async def posted(interaction: discord.Interaction[Any], **message: Any) -> str | None:
    """A public message answering the interaction, and its id (None: Discord gave none)."""
    if interaction.response.is_done():
        sent = await interaction.followup.send(wait=True, **message)
        return str(sent.id)
    answered = await interaction.response.send_message(**message)
    resource = answered.resource
    return str(resource.id) if isinstance(resource, discord.InteractionMessage) else None
