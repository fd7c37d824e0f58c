"""The discord.py client: intents, endpoints, dynamic buttons, command sync, readiness."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

from adapters.discord.commands import QuizTree, build_commands, sync_commands
from adapters.discord.handlers import Flows
from adapters.discord.replies import actor_of, custom_id_of, note
from adapters.discord.round_commands import DiscordRounds
from adapters.discord.server_events import ServerEvents
from adapters.discord.views import DYNAMIC_ITEMS
from bot.app.compose import App
from bot.app.config import DISCORD_API
from bot.domain.payloads import ANY_RE, NUMBER_RE, RoundPayload, decode
from bot.features.chats import channel_title

log = logging.getLogger(__name__)


class Endpoints:
    """Points discord.py at `discord.api_base_url` / `discord.gateway_url`, and back.

    discord.py reads its REST base from the class attribute `http.Route.BASE` (every
    request, including interaction callbacks and follow-ups, which go through the webhook
    adapter, not the client's HTTPClient) and its gateway from the class attribute
    `DiscordWebSocket.DEFAULT_GATEWAY`. Neither can be set per client, so this is
    process-wide: one Discord adapter per process, which is what `quizbot run` does. The
    previous values come back on `restore()`, so tests can start adapter after adapter.
    These two attributes are the only library internals quizbot sets; discord.py has no
    public way to point at another host (tests/adapters/discord/test_lifecycle.py fails if
    it renames them).
    """

    def __init__(self) -> None:
        self._saved: tuple[str, yarl.URL] | None = None

    def point_rest(self, api_base_url: str) -> None:
        """Send every REST call to `api_base_url` (which includes the version, /api/v10);
        Discord's own address (`discord.api_base_url` unset) leaves discord.py untouched."""
        if api_base_url.rstrip("/") == DISCORD_API:
            return
        if self._saved is None:
            self._saved = (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)
        Route.BASE = api_base_url.rstrip("/")

    def point_gateway(self, url: str) -> None:
        """Connect (and reconnect after an invalidated session) to the gateway at `url`."""
        if self._saved is None:
            self._saved = (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)

    def restore(self) -> None:
        """Put discord.py's own endpoints back."""
        if self._saved is not None:
            Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = self._saved
            self._saved = None


def intents() -> discord.Intents:
    """Guilds only: slash commands and buttons need no privileged intent."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    return wanted


class QuizClient(discord.Client):
    """A client that carries the handlers, registers the buttons and syncs the commands."""

    def __init__(self, app: App, endpoints: Endpoints, **options: Any) -> None:
        super().__init__(
            intents=intents(),
            allowed_mentions=discord.AllowedMentions.none(),
            member_cache_flags=discord.MemberCacheFlags.none(),
            chunk_guilds_at_startup=False,
            max_messages=None,  # buttons read the database, not a message cache
            **options,
        )
        self.app = app
        self.flows = Flows(app)
        self.rounds = DiscordRounds(app, self)
        self.servers = ServerEvents(app)  # added to a server, or taken out of one
        self.endpoints = endpoints
        self.connected = asyncio.Event()  # set on READY (every shard's, when sharded)
        self.tree = QuizTree(self)
        for command in build_commands(app.catalogue):
            self.tree.add_command(command)

    async def setup_hook(self) -> None:
        """After login, before the gateway: buttons, gateway address, commands."""
        # Registered by template, so buttons on messages sent before a restart still work.
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        await self._resolve_gateway()
        await sync_commands(self.tree, self.app.config.discord.guild_ids)
        self.app.round_jobs.serve("discord", self.rounds.posts.show)  # REST: needs no gateway

    async def _resolve_gateway(self) -> int | None:
        """Point discord.py at the configured (or the REST proxy's) gateway; return the
        shard count GET /gateway/bot recommended, if it was asked."""
        cfg = self.app.config.discord
        url, shards = cfg.gateway_url, None
        if url is None and cfg.api_base_url != DISCORD_API:
            # A REST proxy (or a test double) names its own gateway in GET /gateway/bot;
            # discord.py only asks that endpoint when it auto-shards.
            shards, url, _ = await self.http.get_bot_gateway()
        if url:
            log.info("gateway: %s", url)
            self.endpoints.point_gateway(url)
        return shards

    async def on_connect(self) -> None:
        self.connected.set()

    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.servers.joined(guild)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self.servers.removed(guild)

    def dispatch(self, event: str, /, *args: Any, **kwargs: Any) -> None:
        """No event after `close()`: a command still finishing when the adapter stops (its
        reply sent, SIGTERM in between) has the tree dispatch `app_command_completion` to a
        client whose loop `close()` took away, which raised in that command's task and left
        a handler coroutine that never ran (warned about on exit)."""
        if not self.is_closed():
            super().dispatch(event, *args, **kwargs)

    async def on_app_command_completion(self, interaction: discord.Interaction[Any],
                                        command: object) -> None:
        """After a command in a server: a learner whose reminders went off because Discord
        would not deliver them (DMs closed) hears why and how to turn them back on, privately
        and once (a server is the one place left to reach them)."""
        if interaction.guild_id is None:
            return
        try:
            lang = await self.app.engine.reminders_stopped(actor_of(interaction))
            if lang is not None:
                await note(interaction, self.app.catalogue, lang, "remind.stopped_dm")
        except Exception:
            log.exception("could not tell user %s their reminders are off", interaction.user.id)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Every interaction: its server's name is kept, and its channel's (where rounds and
        the daily question run) as "Server · #channel" (pages show names, not ids); then
        components no button template matches: ours (old or forged) or someone else's."""
        guild, channel = interaction.guild, interaction.channel
        if guild is not None and self.app.chats is not None:
            await self.app.chats.note("discord", str(guild.id), guild.name)
            if channel is not None and (name := getattr(channel, "name", None)):
                await self.app.chats.note("discord", str(channel.id),
                                          channel_title(guild.name, name))
        custom_id = custom_id_of(interaction)
        if interaction.type is discord.InteractionType.modal_submit:
            if NUMBER_RE.fullmatch(custom_id):  # "Type it"'s modal: a typed answer
                await self.flows.typed(interaction, custom_id)
            return
        if interaction.type is not discord.InteractionType.component:
            return
        if not ANY_RE.fullmatch(custom_id):
            await self.flows.unknown_button(interaction, custom_id)
        elif custom_id not in custom_ids_on(interaction.message):
            # discord.py runs a template's button only when the pressed message carries
            # that custom_id. A round's letter the reveal took off (a client still showing
            # the open question) goes to the engine, which binds it to its round's own
            # message and says the question has closed, as on Telegram; anything else is
            # data copied from elsewhere: refused politely
            if isinstance(decode(custom_id), RoundPayload):
                await self.flows.press(interaction, custom_id)
            else:
                await self.flows.misplaced(interaction)


def custom_ids_on(message: discord.Message | None) -> set[str]:
    """Every button custom_id on a message."""
    found: set[str] = set()
    for row in message.components if message is not None else ():
        for child in getattr(row, "children", ()):
            if (custom_id := getattr(child, "custom_id", None)) is not None:
                found.add(custom_id)
    return found


class QuizShardedClient(QuizClient, discord.AutoShardedClient):
    """`discord.shards: auto` (or a number): every shard in this process."""

    def __init__(self, app: App, endpoints: Endpoints, **options: Any) -> None:
        super().__init__(app, endpoints, **options)
        self._shards_up: set[int] = set()

    async def _resolve_gateway(self) -> int | None:
        shards = await super()._resolve_gateway()
        if self.shard_count is None and self.app.config.discord.gateway_url:
            # With no shard count discord.py takes the gateway URL from /gateway/bot, which
            # would bypass the configured one; knowing the count makes it use ours.
            if shards is None:
                shards, _, _ = await self.http.get_bot_gateway()
            self.shard_count = shards
        return shards

    async def on_connect(self) -> None:
        pass  # readiness is per shard, below

    async def on_shard_connect(self, shard_id: int) -> None:
        self._shards_up.add(shard_id)
        expected = len(self.shard_ids) if self.shard_ids else (self.shard_count or 1)
        if len(self._shards_up) >= expected:
            self.connected.set()


def build_client(app: App, endpoints: Endpoints) -> QuizClient:
    """A single-connection client, or an auto-sharded one per `discord.shards`."""
    # The bot has no voice; without this discord.py warns that voice libraries are missing.
    discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False
    shards = app.config.discord.shards
    if shards is None:
        return QuizClient(app, endpoints)
    if shards == "auto":
        return QuizShardedClient(app, endpoints)
    shard_ids = app.config.discord.shard_ids
    if shard_ids is not None:  # this process runs only these; others run the rest
        return QuizShardedClient(app, endpoints, shard_count=int(shards),
                                 shard_ids=list(shard_ids))
    return QuizShardedClient(app, endpoints, shard_count=int(shards))
