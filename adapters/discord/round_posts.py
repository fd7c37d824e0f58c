"""A round's posts on Discord: each question a channel message, edited into its reveal.

Channel messages (bot token) have no 15-minute interaction-token lifetime to outlive.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import discord

from adapters.discord.role_rewards import DiscordRewards
from adapters.discord.views import MARKDOWN, embed_of, view_of
from bot.app.compose import App
from bot.domain.platforms import DISCORD
from bot.domain.results import Actor
from bot.domain.round_results import PostingStopped, RoundEvent, RoundQuestion, RoundReveal
from bot.present.i18n import Catalogue, is_rtl, isolate, person
from bot.present.round_plan import RoundPlanner

log = logging.getLogger(__name__)

PLATFORM = "discord"
NAMED = {"round": "A round", "daily": "The question of the day"}
AGAIN = {"round": "/round start", "daily": "/daily on HH:MM"}


def closes_at(cat: Catalogue) -> Callable[[RoundQuestion], str]:
    """"⏳ Closes in 25 seconds. Answers stay private until the reveal.", in the round's
    language: Discord renders `<t:…:R>` live in each reader's clock; in a right-to-left
    line it is isolated whole, so its markup is not split."""
    def line(q: RoundQuestion) -> str:
        when = f"<t:{int(q.deadline)}:R>"
        return cat.t(q.lang, "round.closes_at", when=isolate(when) if is_rtl(q.lang) else when)
    return line


class RoundPosts:
    """Carries a round's events out into its channel: the sink the scheduler shows them through."""

    def __init__(self, app: App, client: discord.Client, rewards: DiscordRewards) -> None:
        self.client, self.rewards = client, rewards
        self.engine, self.cat, self.chats = app.engine, app.catalogue, app.chats
        self.plan = RoundPlanner(app.catalogue, MARKDOWN, closes_at(app.catalogue),
                                 limit=DISCORD.card_limit, shared_chats=False)

    async def _after(self, event: RoundEvent) -> None:
        """After a round's podium is out: the members who earned the quiz's reward, in a
        task of its own (a thousand grants must not hold the post job's lease); the lobby
        says the round is over and its join buttons come off (one edit; left as it is when
        that fails: pressed, the buttons say the round is over)."""
        if isinstance(event, RoundReveal) and event.final and event.daily is None:
            self.rewards.grant_later(event)
        if isinstance(event, RoundReveal) and event.lobby_ref is not None:
            channel = self.client.get_partial_messageable(int(event.chat_id))
            try:
                await channel.get_partial_message(int(event.lobby_ref)).edit(
                    content=self.plan.lobby_over(event), view=None)
            except discord.HTTPException as exc:
                log.info("round %s: the lobby's buttons stay (HTTP %s): %s", event.round_id,
                         exc.status, exc.text)

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
                    await self._after(event)
                    return None
                except discord.NotFound:
                    log.info("round %s: the question message is gone; posting the reveal",
                             event.round_id)
            if view is None:
                message = await channel.send(embed=embed)
            else:
                message = await channel.send(embed=embed, view=view)
            await self._after(event)
            return str(message.id)
        except discord.HTTPException as exc:
            if exc.status >= 500 or exc.status == 429:  # worth another try: the scheduler's
                raise
            # e.g. 50013 Missing Permissions in the channel: never sendable, done
            log.warning("round %s: Discord refused a message in channel %s (HTTP %s): %s",
                        event.round_id, event.chat_id, exc.status, exc.text)
            if exc.status in (403, 404):  # no access, or no channel: no daily posts either
                reason = "forbidden" if exc.status == 403 else "gone"
                await self.tell(await self.engine.chat_gone(PLATFORM, event.chat_id,
                                                            reason=reason))
            return None

    async def tell(self, stopped: PostingStopped) -> None:
        """Whoever started the round, or turned the daily on, that ended because Discord no
        longer lets the bot post in its channel: why, and what to do, in their language. A
        direct message (no interaction is open to answer privately); when that is refused
        too, a warning in the log saying the same."""
        hosts = ((stopped.round_host, "round"), (stopped.daily_host, "daily"))
        if not any(host for host, _ in hosts):
            return
        title = (await self.chats.titles(PLATFORM, [stopped.chat_id])).get(stopped.chat_id) \
            if self.chats is not None else None
        suffix = "lost_access" if stopped.reason == "forbidden" else "lost_channel"
        for host, what in hosts:
            if host is None:
                continue
            lang = await self.engine.language(Actor(PLATFORM, host))
            channel = (person(lang, title, MARKDOWN.inert) if title
                       else isolate(f"<#{stopped.chat_id}>") if is_rtl(lang)
                       else f"<#{stopped.chat_id}>")
            text = MARKDOWN.escape(self.cat.t(lang, f"{what}.{suffix}", channel=channel))
            try:
                dm = await self.client.create_dm(discord.Object(int(host)))
                await dm.send(text)
            except discord.HTTPException as exc:
                log.warning("%s in channel %s (%s) ended: Discord no longer lets the bot post "
                            "there (%s), and we could not tell user %s, who started it, by "
                            "direct message (HTTP %s, code %s). To start it again: give the "
                            "bot View Channel, Send Messages and Embed Links in that channel, "
                            "then %s there", NAMED[what], stopped.chat_id,
                            title or "name unknown", stopped.reason, host, exc.status,
                            exc.code, AGAIN[what])
