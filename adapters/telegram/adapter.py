"""The Telegram adapter: builds python-telegram-bot around the engine, starts and stops it."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from telegram import Bot, LinkPreviewOptions, Update
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.ext import Application, BaseRateLimiter, Defaults

from adapters.base.startup import until_up
from adapters.telegram import views, webhook
from adapters.telegram.dashboard import TelegramDashboard
from adapters.telegram.deeplinks import DeepLinks
from adapters.telegram.handlers import Handlers, PTBApplication
from adapters.telegram.outbox import Outbox
from adapters.telegram.polling import PollWatch
from adapters.telegram.processor import PerUserUpdateProcessor
from adapters.telegram.ratelimit import GroupPostRateLimiter
from adapters.telegram.request import AiohttpRequest, whole_json
from adapters.telegram.round_commands import TelegramRounds
from adapters.telegram.round_posts import RoundPosts
from bot.app import logs
from bot.app.compose import App
from bot.app.web_server import WebServer
from bot.domain.errors import ConfigError
from bot.domain.stats_results import ReminderNote
from bot.features.reminders import Delivery, Sender, Sent
from bot.present.i18n import Catalogue
from bot.present.plan import Planner
from bot.store.rows import InboxRow

log = logging.getLogger(__name__)

# PTB 22 warns on every RetryAfter it builds unless time periods are opted into timedelta
# (the coming default); we never read them as ints.
PTB_TIMEDELTA = "PTB_TIMEDELTA"
POLL_TIMEOUT = 10  # seconds a getUpdates long poll may wait on Telegram's side



class PollRequest(AiohttpRequest):
    """The getUpdates connection (one, with PTB's default timeouts), watched: PTB's poll
    loop gives up for good on a rejected token (401/404), and says so only in a log line."""

    def __init__(self, on_rejected: Callable[[], None]) -> None:
        super().__init__(connection_pool_size=1)
        self.on_rejected = on_rejected

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        """As AiohttpRequest; a rejected token also calls `on_rejected`."""
        code, payload = await super().do_request(*args, **kwargs)
        if code in (HTTPStatus.UNAUTHORIZED, HTTPStatus.NOT_FOUND):
            self.on_rejected()
        return code, payload


class TelegramAdapter:
    """Runs the quiz on Telegram by long polling (default) or a webhook."""

    name = "telegram"

    def __init__(self, app: App, *, rate_limiter: BaseRateLimiter[Any] | None = None) -> None:
        self.app = app
        self.config = app.config.telegram
        self._rate_limiter = rate_limiter
        self._redactor = logs.RedactSecrets([app.config.telegram_token.reveal(),
                                             self.config.webhook.secret_token.reveal()])
        self._log_targets: list[logging.Filterer] = []
        self._stopped = asyncio.Event()
        self.polling = PollWatch(app.engine.clock)
        self.application: PTBApplication | None = None
        self.outbox = Outbox()
        self.rounds: TelegramRounds | None = None
        self.inbox: webhook.Inbox | None = None
        self._server: WebServer | None = None
        if self.config.mode == "webhook":  # the route goes on before any server starts
            hook = self.config.webhook
            self.inbox = webhook.Inbox(app.store, hook.secret_token.reveal(),
                                       capacity=self.config.concurrent_updates,
                                       clock=app.engine.clock, scheduler=app.scheduler)
            self._server = app.web.server(hook.listen, hook.port, key="telegram.webhook.port")
            self.inbox.mount(self._server, hook.url_path)
        self.dashboard: TelegramDashboard | None = None

    def build(self) -> PTBApplication:
        """The PTB application with our handlers; nothing is contacted yet."""
        token = self.app.config.telegram_token.reveal()
        if not token:
            raise ConfigError("TELEGRAM_BOT_TOKEN is not set")
        concurrent = self.config.concurrent_updates
        builder = Application.builder()
        if self.config.mode == "webhook":
            builder = builder.updater(None)  # updates come in through our server's inbox
        else:
            builder = builder.get_updates_request(PollRequest(self._stopped.set))
        application = (
            builder
            .token(token)
            .base_url(self.config.api_base_url)
            .base_file_url(webhook.file_url(self.config.api_base_url))
            .defaults(Defaults(parse_mode=ParseMode.HTML,
                               link_preview_options=LinkPreviewOptions(is_disabled=True)))
            .rate_limiter(self._rate_limiter or GroupPostRateLimiter(max_retries=3))
            .concurrent_updates(PerUserUpdateProcessor(concurrent))
            # One connection per update in flight, and patience when they are all busy.
            .request(AiohttpRequest(max(concurrent, 8), pool_timeout=10.0))
            .build()
        )
        def bot() -> Bot:
            return application.bot

        posts, links = RoundPosts(self.app, bot), DeepLinks(self.app, bot)
        plan = Planner(self.app.catalogue, views.HTML, shared_chats=True, rounds=posts.plan,
                       private_url=links.who_link)
        rounds = self.rounds = TelegramRounds(self.app, plan, posts, bot)
        dashboard = self.dashboard = TelegramDashboard(
            self.app.catalogue, self.app.config.web.public_url, bot)
        Handlers(self.app, plan, self.outbox, rounds, links, dashboard,
                 self.inbox.may_reply if self.inbox is not None else None).register(application)
        return application

    async def start(self) -> None:
        """Check the token (getMe), publish the command menus, start receiving updates."""
        self._log_targets = logs.install(self._redactor)
        os.environ.setdefault(PTB_TIMEDELTA, "true")
        application = self.build()
        try:
            await _initialize(application, self.config.api_base_url,
                              self.app.config.startup_timeout, self._redactor.scrub)
            await publish_commands(application, self.app.catalogue)
            await application.start()
            if self.inbox is not None:
                await self._start_webhook(application)
            else:
                updater = application.updater
                assert updater is not None
                await updater.start_polling(
                    timeout=POLL_TIMEOUT, drop_pending_updates=False, bootstrap_retries=3,
                    allowed_updates=list(webhook.ALLOWED_UPDATES), error_callback=self.polling)
        except BaseException:
            if self.inbox is not None:
                await self.inbox.stop()
            await _close(application, self.outbox)
            logs.uninstall(self._redactor, self._log_targets)
            raise
        self.application = application
        if self.rounds is not None:  # after start: the first claim may post at once
            self.app.round_jobs.serve(self.name, self.rounds.posts.show)
        if self.dashboard is not None:  # the group view asks getChatMember through us
            self.app.memberships.provide("telegram", self.dashboard.role)
        bot = application.bot
        log.info("telegram: @%s running (%s)", bot.username, self.config.mode)

    async def _start_webhook(self, application: PTBApplication) -> None:
        """Listen, process the inbox, and (unless several workers share it) setWebhook."""
        assert self.inbox is not None and self._server is not None
        hook = self.config.webhook
        await self._server.start()

        async def process(row: InboxRow) -> None:
            try:
                update = Update.de_json(whole_json(json.loads(row.body), row.body.encode()),
                                         application.bot)
            except Exception:  # JSON with an update_id, but not an update PTB can read
                log.warning("telegram: update %d is not a Telegram update; dropped",
                            row.update_id)
                return
            await application.update_processor.process_update(
                update, application.process_update(update))
            if update.effective_chat is not None:  # done once its replies are out, too
                await self.outbox.settled(update.effective_chat.id)

        self.inbox.start(process)
        if hook.register:
            await webhook.register(application.bot, hook)
        elif problem := await webhook.registration_problem(application.bot, hook):
            log.warning("telegram: %s", problem)
        log.info("telegram: webhook listening on %s:%d/%s%s", hook.listen,
                 self._server.bound_port, hook.url_path,
                 "" if hook.register else " (not registering it: "
                 "telegram.webhook.register is false)")

    def connected(self) -> bool:
        """True while PTB's application runs and its updates come in (polling, and no other
        process polls the token; or webhook)."""
        application = self.application
        if application is None or not application.running or self._stopped.is_set():
            return False
        if self._server is not None:
            return self._server.running
        return (application.updater is not None and application.updater.running
                and not self.polling.conflicting())

    def reminder_sender(self) -> Sender:
        """How reminders reach Telegram users: one message with Review now."""
        plan = Planner(self.app.catalogue, views.HTML, shared_chats=False)

        async def send(note: ReminderNote) -> Sent:
            application = self.application
            if application is None:
                return Sent(Delivery.RETRY, 60.0)
            card = plan.reminder(note)
            return await deliver_reminder(application.bot, int(note.chat_id or note.user_id),
                                          views.text_of(card), views.keyboard_of(card))

        return send

    async def wait_stopped(self) -> None:
        """Return when the adapter stopped on its own (polling ended, e.g. a revoked
        token) or was stopped; in webhook mode only the latter."""
        await self._stopped.wait()

    async def stop(self) -> None:
        """Stop receiving, let updates in flight finish, close connections."""
        application, self.application = self.application, None
        self._stopped.set()
        self.app.memberships.withdraw("telegram")
        if application is None:
            return
        if self.rounds is not None:  # what it did not show stays due in the store
            await self.app.round_jobs.withdraw(self.name)
        try:
            if self.inbox is not None:  # what arrives from now on waits for any worker
                await self.inbox.stop()
            await _close(application, self.outbox)
        finally:
            logs.uninstall(self._redactor, self._log_targets)
        log.info("telegram: stopped")



async def _initialize(application: PTBApplication, base_url: str, give_up_after: float,
                      scrub: Callable[[str], str]) -> None:
    """getMe through PTB, retried while the Bot API cannot be reached (for `give_up_after`
    seconds); a rejected token becomes a ConfigError that does not quote it."""
    try:
        await until_up(f"the Telegram Bot API at {scrub(base_url)}", application.initialize,
                       transient=(NetworkError,), give_up_after=give_up_after, scrub=scrub,
                       hint="check telegram.api_base_url and the network")
    except InvalidToken:
        # PTB's own message quotes the token; a traceback on stderr would leak it.
        raise ConfigError(f"TELEGRAM_BOT_TOKEN was rejected by the Bot API at {base_url}"
                          ) from None


async def _close(application: PTBApplication, outbox: Outbox) -> None:
    updater = application.updater
    if updater is not None and updater.running:
        try:
            await updater.stop()
        except TelegramError as exc:  # the polling loop had died, e.g. on a revoked token
            log.warning("telegram: polling had already stopped: %s", exc)
    try:
        if application.running:
            await application.stop()  # waits for updates being processed
        await outbox.drain()  # then for the replies they handed to the outbox
    finally:
        await application.shutdown()
        # After a failed getMe the application never counted as initialised, so its
        # shutdown skips the bot; close the bot's HTTP connections ourselves (a no-op else).
        await application.bot.shutdown()


async def publish_commands(application: PTBApplication, cat: Catalogue) -> None:
    """The command menu in the default language, and per language_code for the others."""
    for lang in cat.languages:
        code = None if lang == cat.default else lang
        try:
            await application.bot.set_my_commands(views.bot_commands(cat, lang),
                                                  language_code=code)
        except TelegramError as exc:  # a menu is nice to have, not a reason to stay down
            log.warning("telegram: setMyCommands(%s) failed: %s", lang, exc)


async def deliver_reminder(bot: Any, chat_id: int, text: str, markup: Any) -> Sent:
    """Send one reminder; a blocked bot (403) or a vanished chat stops that learner's
    reminders, a rate limit or network failure tries again later."""
    try:
        await bot.send_message(chat_id, text, reply_markup=markup)
    except Forbidden:
        return Sent(Delivery.BLOCKED)
    except RetryAfter as exc:
        after = exc.retry_after
        return Sent(Delivery.RETRY, after if isinstance(after, int | float)
                    else after.total_seconds())
    except BadRequest as exc:
        if "chat not found" in exc.message.lower():
            return Sent(Delivery.BLOCKED)
        raise
    except (TimedOut, NetworkError) as exc:
        log.warning("telegram: reminder to %s failed: %s", chat_id, exc)
        return Sent(Delivery.RETRY, 60.0)
    return Sent(Delivery.SENT)
