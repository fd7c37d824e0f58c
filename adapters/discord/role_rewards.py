"""Rewards on Discord: `/reward set quiz: role: score:` and `/reward remove quiz:` (server
admins), and granting the role when an attempt reaches the score.

The bot checks what it can do before it promises anything: Manage Roles (the interaction's
`app_permissions`), and the role below its own highest role (Discord refuses otherwise).
A grant reads the member afresh: a member who holds the role is left alone; one who had it
removed by hand gets it again only because this attempt earned it again. The member is told
privately (an ephemeral note after a solo quiz, a direct message after a round).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import discord

from adapters.discord.replies import actor_of, note, send, timely
from adapters.discord.views import MARKDOWN
from bot.app.compose import App
from bot.domain.errors import QuizError
from bot.domain.results import Actor
from bot.domain.round_results import RewardSet, RoundReveal
from bot.domain.tasks import spawn
from bot.features.naming import quiz_named
from bot.store.round_rows import RewardRow

log = logging.getLogger(__name__)

PLATFORM = "discord"


class DiscordRewards:
    """The /reward commands of one client, and the grants."""

    def __init__(self, app: App, client: discord.Client) -> None:
        self.engine = app.engine
        self.cat, self.client = app.catalogue, client
        self._grants: set[asyncio.Task[None]] = set()

    def grant_later(self, reveal: RoundReveal) -> None:
        """A round's podium is out: grant its rewards in a task of our own (a thousand
        grants must not hold the podium's post job)."""
        task = spawn(self.after_round(reveal, reveal.quiz_id),
                     name=f"round-{reveal.round_id}-rewards")
        self._grants.add(task)
        task.add_done_callback(self._grants.discard)

    async def stop(self) -> None:
        """Cancel grants still running (shutdown); their members earn it next time."""
        tasks, self._grants = list(self._grants), set()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    @staticmethod
    def _admin(interaction: discord.Interaction[Any]) -> bool:
        permissions = interaction.permissions
        return bool(permissions.manage_guild or permissions.administrator)

    async def _cannot_grant(self, interaction: discord.Interaction[Any],
                            role: discord.Role) -> str | None:
        """Why the bot could not grant `role` here (a catalogue key), or None."""
        if role.is_default() or role.managed:
            return "reward.role_unusable"
        if not (interaction.app_permissions.manage_roles
                or interaction.app_permissions.administrator):
            return "reward.no_manage_roles"
        guild = interaction.guild
        if guild is None:
            return "reward.no_manage_roles"
        # read afresh: the cached member may be stale or lack its roles
        me = await guild.fetch_member(self.client.user.id)  # type: ignore[union-attr]
        if role >= me.top_role:
            return "reward.role_above"
        return None

    async def set(self, interaction: discord.Interaction[Any], quiz: str, role: discord.Role,
                  score: int) -> None:
        """/reward set: tie `role` to reaching `score` on `quiz` in this server."""
        actor = actor_of(interaction)
        admin = self._admin(interaction)
        quiz = quiz_named(self.engine, self.cat.languages, quiz)

        async def checked() -> RewardSet | str:
            # the look at the bot's own member is a REST call: inside the 3 seconds too
            if admin and (problem := await self._cannot_grant(interaction, role)) is not None:
                return problem
            return await self.engine.set_reward(actor, quiz, str(role.id), role.name, score,
                                                admin=admin)

        done = await timely(interaction, checked())
        if isinstance(done, str):
            await note(interaction, self.cat, await self.engine.language(actor), done,
                       role=role.name)
            return
        await self._said(interaction, done)

    async def remove(self, interaction: discord.Interaction[Any], quiz: str) -> None:
        """/reward remove: no more role for `quiz` here."""
        actor = actor_of(interaction)
        done = await timely(interaction, self.engine.remove_reward(
            actor, quiz_named(self.engine, self.cat.languages, quiz),
            admin=self._admin(interaction)))
        await self._said(interaction, done)

    async def _said(self, interaction: discord.Interaction[Any], done: RewardSet) -> None:
        if done.removed:
            key = "reward.removed" if done.role_name else "reward.none"
        else:
            key = "reward.set"
        text = self.cat.t(done.lang, key, title=done.quiz_title, role=done.role_name,
                          score=done.score, total=done.total)
        await send(interaction, ephemeral=True, content=MARKDOWN.escape(text))

    # --- grants ----------------------------------------------------------------------------

    async def after_solo(self, interaction: discord.Interaction[Any], quiz_id: str,
                         quiz_title: str, score: int, lang: str) -> None:
        """A full solo attempt in a server ended: grant its reward, say so ephemerally."""
        if interaction.guild is None:
            return
        granted = await self._grant(interaction.guild, str(interaction.user.id), quiz_id, score)
        if granted is not None:
            await note(interaction, self.cat, lang, "reward.granted", role=granted[0].role_name,
                       title=quiz_title, score=score, server=interaction.guild.name)

    async def after_round(self, reveal: RoundReveal, quiz_id: str) -> None:
        """A round's podium: every member who reached a reward's score gets it (a DM)."""
        channel = self.client.get_channel(int(reveal.chat_id))
        guild = getattr(channel, "guild", None)
        if not reveal.final or guild is None:
            return
        reward = await self.engine.reward_of(PLATFORM, str(guild.id), quiz_id)
        if reward is None:
            return
        for s in reveal.standings:
            if s.score < reward.score:
                continue
            granted = await self._grant(guild, s.user_id, quiz_id, s.score)
            if granted is None:
                continue
            reward, member = granted
            # a direct message to one member: in their language, not the round's
            lang = await self.engine.language(Actor(PLATFORM, s.user_id))
            title = reveal.quiz_title if lang == reveal.lang else self._title(quiz_id, lang,
                                                                            reveal.quiz_title)
            text = self.cat.t(lang, "reward.granted", role=reward.role_name,
                              title=title, score=s.score, server=guild.name)
            try:
                await member.send(MARKDOWN.escape(text))
            except discord.HTTPException as exc:  # DMs closed: the role is still theirs
                log.info("reward: could not tell member %s (HTTP %s)", s.user_id, exc.status)

    def _title(self, quiz_id: str, lang: str, fallback: str) -> str:
        """The quiz's title in `lang` (`fallback` once the quiz is gone)."""
        try:
            return self.engine.quiz_info(lang, quiz_id).title
        except QuizError:
            return fallback

    async def _grant(self, guild: discord.Guild, user_id: str, quiz_id: str,
                     score: int) -> tuple[RewardRow, discord.Member] | None:
        """Grant the quiz's reward if this score earns it and the member lacks the role;
        the reward granted and the member, or None."""
        reward = await self.engine.reward_earned(PLATFORM, str(guild.id), quiz_id, user_id,
                                                 score)
        if reward is None:
            return None
        try:
            member = await guild.fetch_member(int(user_id))
            if member.get_role(int(reward.role_id)) is not None:
                return None  # holds it already
            await member.add_roles(discord.Object(int(reward.role_id)),
                                   reason=f"quizbot: {score} on {quiz_id}")
        except discord.HTTPException as exc:  # the role went, or permissions changed
            log.warning("reward: could not grant role %s to %s in server %s (HTTP %s): %s",
                        reward.role_id, user_id, guild.id, exc.status, exc.text)
            return None
        return reward, member
