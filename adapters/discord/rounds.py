"""Rounds on Discord: `/round start|stop|skip`, the round's buttons, the driver's sink.

A round's questions are channel messages (bot token, no 15-minute interaction-token
lifetime to outlive), each edited into its reveal; the command's own interaction only gets
the public "round started" answer. A press gets an ephemeral acknowledgement.
"""

from __future__ import annotations

import logging
import re
from typing import Any, cast

import discord

from adapters.discord.replies import actor_of, note, send, timely
from adapters.discord.rewards import DiscordRewards
from adapters.discord.views import COLOUR, MARKDOWN, _frozen, message_of, where_of
from bot.app.compose import App
from bot.domain import payloads as payload
from bot.domain.payloads import RoundPayload, TeamPayload, WhoPayload
from bot.domain.platforms import DISCORD
from bot.domain.results import Misplaced
from bot.domain.round_results import (
    Joined,
    LockedIn,
    PressRefused,
    RoundEvent,
    RoundQuestion,
    RoundReveal,
    WhoAnswered,
)
from bot.domain.round_rules import DEFAULT_SCORING
from bot.features.round_driver import RoundDriver
from bot.features.rounds import Rounds
from bot.present.plan import Button, Card, round_ack
from bot.present.round_plan import RoundPlanner

log = logging.getLogger(__name__)

PLATFORM = "discord"
STYLES = {"primary": discord.ButtonStyle.primary, "secondary": discord.ButtonStyle.secondary,
          "success": discord.ButtonStyle.success, "danger": discord.ButtonStyle.danger}


def closes_at(q: RoundQuestion) -> str:
    """Discord renders `<t:…:R>` live in each reader's clock ("in 25 seconds")."""
    return f"⏳ <t:{int(q.deadline)}:R>"


class _RoundChatButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                       template=payload.ROUND_RE):
    """What every button on a round's public message does: hand its payload to
    `DiscordRounds.press` (anyone in the channel may press; the store decides)."""

    style = discord.ButtonStyle.primary

    def __init__(self, custom_id: str, *, label: str,
                 style: discord.ButtonStyle | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=style or self.style,
                                           custom_id=custom_id))
        pressed = payload.decode(custom_id)
        assert isinstance(pressed, RoundPayload | WhoPayload | TeamPayload)  # the templates'
        self.pressed = pressed

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str],
                             ) -> _RoundChatButton:
        return cls(match.group(0), label=getattr(item, "label", None) or "?")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        rounds = cast(DiscordRounds, interaction.client.rounds)
        await rounds.press(interaction, self.pressed)


class RoundButton(_RoundChatButton, template=payload.ROUND_RE):
    """A round's lettered button."""


class WhoButton(_RoundChatButton, template=payload.WHO_RE):
    """A reveal's "Who answered?": the full list, ephemeral, paged."""

    style = discord.ButtonStyle.secondary


class TeamButton(_RoundChatButton, template=payload.TEAM_RE):
    """A team (or untimed) round's join button, on the "round started" answer."""


BUTTONS = {"w1:": WhoButton, "t1:": TeamButton}  # by payload prefix; else a letter


def embed_of(card: Card) -> discord.Embed:
    embed = discord.Embed(title=card.title or None, description=card.body, colour=COLOUR)
    if card.footer:
        embed.set_footer(text=card.footer)
    return embed


def view_of(card: Card) -> discord.ui.View | None:
    buttons: list[Button] = [b for row in card.rows for b in row if not b.disabled]
    if not buttons:
        return None
    return _frozen(*(BUTTONS.get(b.payload[:3], RoundButton)(
        b.payload, label=b.label, style=STYLES[b.style]) for b in buttons))


class DiscordRounds:
    """The round commands and buttons of one client, and its driver."""

    def __init__(self, app: App, client: discord.Client) -> None:
        self.rounds: Rounds = app.rounds
        self.engine, self.cat, self.client = app.engine, app.catalogue, client
        self.dailies = app.engine.dailies
        self.rewards = DiscordRewards(app, client)
        self.plan = RoundPlanner(app.catalogue, MARKDOWN, closes_at, limit=DISCORD.card_limit)
        self.driver = RoundDriver(self.rounds, PLATFORM, self.show)

    # --- commands ----------------------------------------------------------------------------

    async def start(self, interaction: discord.Interaction[Any], quiz: str | None,
                    seconds: int | None, questions: int | None, *, teams: int = 0,
                    scoring: str = DEFAULT_SCORING, untimed: bool = False) -> None:
        """/round start [quiz] [seconds] [questions] [teams] [scoring] [untimed]: a public
        answer (with the join buttons of a team or untimed round), then the questions."""
        actor = actor_of(interaction)
        channel = str(interaction.channel_id) if interaction.guild_id else None
        work = self.rounds.start(actor, channel, quiz or None, seconds=seconds,
                                 questions=questions, scoring=scoring, teams=teams,
                                 untimed=untimed)
        started = await timely(interaction, work, ephemeral=False)
        (card,) = self.plan.started(started).send
        view = view_of(card)
        if view is None:
            await send(interaction, ephemeral=False, content=card.body)
        else:
            await send(interaction, ephemeral=False, content=card.body, view=view)

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
        dailies = self.dailies
        work = (dailies.switch_on(actor, channel, time, offset or None, quiz or None,
                                  may_manage=admin) if on
                else dailies.switch_off(actor, channel, may_manage=admin))
        done = await timely(interaction, work, ephemeral=False)
        (card,) = self.plan.daily_set(done).send
        await send(interaction, ephemeral=False, content=card.body)

    async def stop(self, interaction: discord.Interaction[Any]) -> None:
        """/round stop: the host or a member who may manage messages."""
        actor = actor_of(interaction)
        channel = str(interaction.channel_id) if interaction.guild_id else None
        reveal = await timely(interaction, self.rounds.stop(
            actor, channel, may_manage=self._may_manage(interaction)))
        self.driver.submit(reveal)
        await note(interaction, self.cat, await self.engine.language(actor), "round.stopped")

    async def skip(self, interaction: discord.Interaction[Any]) -> None:
        """/round skip: reveal the open question now."""
        actor = actor_of(interaction)
        channel = str(interaction.channel_id) if interaction.guild_id else None
        await timely(interaction, self.rounds.skip(actor, channel,
                                                   may_manage=self._may_manage(interaction)))
        await note(interaction, self.cat, await self.engine.language(actor), "round.skipped")

    async def press(self, interaction: discord.Interaction[Any],
                    pressed: RoundPayload | WhoPayload | TeamPayload) -> None:
        """A lettered button: lock in, answered privately. "Who answered?": the list, only
        for the presser."""
        flows = interaction.client.flows
        try:
            actor = actor_of(interaction)
            outcome = await timely(interaction, self.engine.press(actor, pressed,
                                                                  where_of(interaction)))
            if isinstance(outcome, WhoAnswered):
                await send(interaction, ephemeral=True,
                           **message_of(self.plan.who(outcome, actor.user_id)))
                return
            if isinstance(outcome, LockedIn | PressRefused | Joined):
                text = round_ack(self.cat, outcome)
            elif isinstance(outcome, Misplaced):
                text = self.cat.t(outcome.lang, "round.misplaced")
            else:  # rounds are off in this process
                text = self.cat.t(await self.engine.language(actor_of(interaction)),
                                  "error.unknown_button")
            await send(interaction, ephemeral=True, content=MARKDOWN.escape(text))
        except Exception as exc:
            await flows.report(interaction, exc)

    # --- the driver's sink -------------------------------------------------------------------

    async def _rewards(self, event: RoundEvent) -> None:
        """After a round's podium is out: the members who earned the quiz's reward, in a
        task of its own (a thousand grants must not hold the post job's lease)."""
        if isinstance(event, RoundReveal) and event.final and event.daily is None:
            self.rewards.grant_later(event)

    async def show(self, event: RoundEvent) -> str | None:
        """Post a question as a channel message, or edit it into its reveal."""
        channel = self.client.get_partial_messageable(int(event.chat_id))
        card = (self.plan.question(event) if isinstance(event, RoundQuestion)
                else self.plan.reveal(event))
        embed, view = embed_of(card), view_of(card)
        try:
            if not isinstance(event, RoundQuestion) and event.message_ref is not None:
                try:
                    # the letters go; a cut reveal gets its "Who answered?"
                    await channel.get_partial_message(int(event.message_ref)).edit(
                        embed=embed, view=view)
                    await self._rewards(event)
                    return None
                except discord.NotFound:
                    log.info("round %s: the question message is gone; posting the reveal",
                             event.round_id)
            if view is None:
                message = await channel.send(embed=embed)
            else:
                message = await channel.send(embed=embed, view=view)
            await self._rewards(event)
            return str(message.id)
        except discord.HTTPException as exc:
            if exc.status >= 500 or exc.status == 429:  # worth another try: the driver's
                raise
            # e.g. 50013 Missing Permissions in the channel: never sendable, done
            log.warning("round %s: Discord refused a message in channel %s (HTTP %s): %s",
                        event.round_id, event.chat_id, exc.status, exc.text)
            if exc.status in (403, 404):  # no access, or no channel: no daily posts either
                await self.dailies.chat_gone(PLATFORM, event.chat_id)
            return None
