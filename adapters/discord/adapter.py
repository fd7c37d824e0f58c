"""The Discord adapter: slash commands and buttons on discord.py, over the shared engine."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import aiohttp
import discord

from adapters.discord.client import Endpoints, QuizClient, build_client
from adapters.discord.startup import check_token
from adapters.discord.views import MARKDOWN, message_of
from bot.app import logs
from bot.app.compose import App
from bot.domain.errors import ConfigError, StartupFailed
from bot.domain.stats_results import ReminderNote
from bot.domain.tasks import spawn
from bot.features.reminders import Delivery, Sender, Sent
from bot.present.plan import Planner

__all__ = ["DiscordAdapter"]

log = logging.getLogger(__name__)

STOP_TIMEOUT = 10.0


class DiscordAdapter:
    """Runs a discord.py client as an owned background task; `quizbot run` starts and stops it."""

    name = "discord"

    def __init__(self, app: App, *, ready_timeout: float | None = None) -> None:
        self.app = app
        # Seconds for login, command sync and the gateway's READY (startup_timeout).
        self.ready_timeout = ready_timeout or app.config.startup_timeout
        self.client: QuizClient | None = None
        self._task: asyncio.Task[Any] | None = None
        self._endpoints = Endpoints()
        self._redactor: logs.RedactSecrets | None = None
        self._log_targets: list[logging.Filterer] = []

    async def start(self) -> None:
        """Log in, sync commands, connect; return once the gateway says READY, else raise."""
        token = self.app.config.discord_token.reveal()
        if not token:
            raise ConfigError("DISCORD_BOT_TOKEN is not set")
        self._install_redaction(token)
        assert self._redactor is not None
        try:
            await check_token(self.app.config.discord.api_base_url, token,
                              give_up_after=self.app.config.startup_timeout,
                              scrub=self._redactor.scrub)
        except BaseException:
            self._remove_redaction()
            raise
        self._endpoints.point_rest(self.app.config.discord.api_base_url)
        self.client = client = build_client(self.app, self._endpoints)
        self._task = spawn(client.start(token), name="discord-client")
        ready = asyncio.ensure_future(client.connected.wait())
        done, _ = await asyncio.wait({ready, self._task}, timeout=self.ready_timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        if ready in done:
            log.info("connected to Discord as %s", client.user)
            return
        ready.cancel()
        failure = self._task.exception() \
            if self._task in done and not self._task.cancelled() else None
        await self.stop()
        if failure is not None:
            raise StartupFailed(f"the Discord client stopped before READY: "
                                f"{logs.RedactSecrets([token]).scrub(repr(failure))}") from None
        raise StartupFailed(f"no READY from the Discord gateway in {self.ready_timeout:g} s; "
                            "check discord.gateway_url and the network, or raise "
                            "startup_timeout")

    async def stop(self) -> None:
        """Close the connection and wait for the client task to end."""
        client, task = self.client, self._task
        self.client = self._task = None
        try:
            if client is not None:
                await self.app.round_jobs.withdraw(self.name)  # unshown: stays due
                await client.rounds.rewards.stop()
            if client is not None:
                await client.close()
            if task is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(task), STOP_TIMEOUT)
                except TimeoutError:
                    log.warning("the Discord client did not stop in %s s; cancelling", STOP_TIMEOUT)
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                except Exception:
                    pass  # already logged by bot.tasks.spawn
        finally:
            self._endpoints.restore()
            self._remove_redaction()

    def connected(self) -> bool:
        """True while the gateway session is ready and the client is not closed."""
        client = self.client
        return client is not None and client.is_ready() and not client.is_closed()

    def reminder_sender(self) -> Sender:
        """How reminders reach Discord users: a DM with Review now."""
        plan = Planner(self.app.catalogue, MARKDOWN, shared_chats=False)

        async def send(note: ReminderNote) -> Sent:
            client = self.client
            if client is None or not client.is_ready():
                return Sent(Delivery.RETRY, 60.0)
            try:
                # open the DM (cached after the first) and send: no GET /users/{id} first,
                # which cost a third call a reminder under Discord's global rate limit
                dm = await client.create_dm(discord.Object(int(note.user_id)))
                await dm.send(**message_of(plan.reminder(note)))
            except discord.Forbidden:  # 50007: DMs closed, or no server in common
                return Sent(Delivery.BLOCKED)
            except discord.NotFound:
                return Sent(Delivery.BLOCKED)
            except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
                # Discord failing, or the network to it (a cut connection is no
                # HTTPException): try again in a minute, as on Telegram
                log.warning("discord: reminder to %s failed: %s", note.user_id,
                            exc or type(exc).__name__)
                return Sent(Delivery.RETRY, 60.0)
            return Sent(Delivery.SENT)

        return send

    async def wait_stopped(self) -> None:
        """Return when the client task ends by itself (revoked token, fatal gateway close)."""
        if self._task is not None:
            await asyncio.wait({self._task})

    def _install_redaction(self, token: str) -> None:
        """Mask the token wherever discord.py or the root handlers log (defence in depth:
        `quizbot run` already redacts its own handler)."""
        self._redactor = logs.RedactSecrets([token])
        self._log_targets = logs.install(self._redactor)

    def _remove_redaction(self) -> None:
        if self._redactor is not None:
            logs.uninstall(self._redactor, self._log_targets)
            self._redactor, self._log_targets = None, []
