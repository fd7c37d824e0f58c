"""Webhook mode: Telegram's POSTs on our own server (`bot.app.web`), through the inbox.

A POST is checked in the order that costs least: the secret header (403, body unread), the
declared size (413 over 1 MiB, body unread), then the body: invalid UTF-8, malformed JSON or
no integer `update_id` is 400. The update is then stored by its id (`bot.store.commands.inbox_sql`)
before the 200 goes back, and processed from the store: the receiving worker at once, and
any worker again once a lease runs out (one that was SIGKILLed after its 200). An update
delivered twice is stored once and processed once. Its reply is sent once: the update is
marked done just before the reply's first Bot API call (`may_reply`, the row count of one
guarded UPDATE), so a worker killed after replying leaves nothing to take over, and two
workers that both hold it (a lease that ran out under a slow one) reply once. The price: a
reply whose request was on the wire when its worker died is not sent again (the learner's
answer is committed; /quiz shows where they are). `setWebhook` is sent by `quizbot run`
(`telegram.webhook.register`) or once by `quizbot telegram set-webhook` for many workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from telegram import Bot, Update

from bot.app.config import Config, WebhookConfig
from bot.app.web import MAX_BODY, WebServer
from bot.domain.errors import ConfigError
from bot.domain.tasks import spawn
from bot.store.commands import inbox_sql
from bot.store.protocol import Store
from bot.store.rows import InboxRow

log = logging.getLogger(__name__)

ALLOWED_UPDATES = (Update.MESSAGE, Update.CALLBACK_QUERY)
MAX_CONNECTIONS = 40  # what PTB's Updater.start_webhook asks for
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
MAX_UPDATE = MAX_BODY  # 1 MiB: Telegram's updates are a few KB
LEASE = 10.0  # seconds an update stays with the worker processing it (renewed meanwhile)
POLL_EVERY = 1.0  # how often a worker renews its leases and looks for ones that ran out
MAX_ATTEMPTS = 5  # claims of one update before it is given up (logged by id)
# Done rows are kept this long so a late repeat of the same update id still counts once
# (Telegram keeps an undelivered update for at most 24 hours), then pruned.
KEEP_DONE = 2 * 86400.0
PRUNE_EVERY = 3600.0
PLATFORM = "telegram"

Process = Callable[[InboxRow], Awaitable[None]]
Clock = Callable[[], float]


class Inbox:
    """Takes webhook POSTs into the store; processes them from there with leases."""

    def __init__(self, store: Store, secret: str, *, capacity: int,
                 clock: Clock, poll_every: float = POLL_EVERY,
                 lease: float = LEASE) -> None:
        self.store, self._secret = store, secret.encode()
        self.capacity, self.clock = capacity, clock
        self.poll_every, self.lease = poll_every, lease
        self._process: Process | None = None
        self._in_flight: dict[int, asyncio.Task[None]] = {}
        self._loop: asyncio.Task[None] | None = None

    def mount(self, server: WebServer, url_path: str) -> None:
        """POST /url_path on `server` is the webhook."""
        server.add_post(f"/{url_path}", self.receive)

    async def receive(self, request: web.Request) -> web.Response:
        """One POST from Telegram: 200 once the update is stored (or was stored before)."""
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not self._secret or not hmac.compare_digest(given, self._secret):
            return _refuse(403, "wrong secret token")
        length = request.content_length
        if length is not None and length > MAX_UPDATE:
            return _refuse(413, "update too large")
        try:
            raw = await request.read()  # at most MAX_BODY: aiohttp's client_max_size
        except web.HTTPRequestEntityTooLarge:  # chunked, with no length to check first
            return _refuse(413, "update too large")
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):  # [[[[... nests too deep
            return web.Response(status=400, text="not a JSON update\n")
        update_id = data.get("update_id") if isinstance(data, dict) else None
        if not isinstance(update_id, int) or isinstance(update_id, bool):
            return web.Response(status=400, text="no update_id\n")
        now = self.clock()
        running = self._process is not None
        try:
            # Claimed by us when we process it now; claimable by any worker at once if not.
            fresh = await self.store.write(inbox_sql.inbox_put,
                                           PLATFORM, update_id, raw.decode("utf-8"), now,
                                           now + self.lease if running else now)
        except Exception:  # not stored: no 200, so Telegram sends it again
            log.exception("telegram: update %d could not be stored", update_id)
            return web.Response(status=503, text="try again\n")
        if fresh and running:
            self._start(InboxRow(update_id, raw.decode("utf-8"), 1))
        elif not fresh:
            log.debug("telegram: update %d delivered again; already stored", update_id)
        return web.Response(text="")

    async def may_reply(self, update_id: int) -> bool:
        """Mark the update done now, before its reply goes out; False when another worker
        already did (and replied): then this one sends nothing."""
        return await self.store.write(inbox_sql.inbox_done, PLATFORM, update_id, self.clock())

    def start(self, process: Process) -> None:
        """Process what arrives with `process`, and what other workers left behind."""
        self._process = process
        if self._loop is None:
            self._loop = spawn(self._run(), name="telegram-inbox")

    async def stop(self) -> None:
        """Stop claiming; let updates in flight finish (a cancelled one is retried later,
        by any worker, once its lease runs out)."""
        self._process = None
        loop, self._loop = self._loop, None
        if loop is not None:
            loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await loop
        if self._in_flight:
            await asyncio.gather(*self._in_flight.values(), return_exceptions=True)

    def _start(self, row: InboxRow) -> None:
        if row.update_id not in self._in_flight:
            self._in_flight[row.update_id] = spawn(self._handle(row),
                                                   name=f"telegram-update-{row.update_id}")

    async def _handle(self, row: InboxRow) -> None:
        process = self._process
        try:
            if process is None:
                return  # stopping: the lease runs out and someone claims it again
            await process(row)
            await self.store.write(inbox_sql.inbox_done, PLATFORM, row.update_id, self.clock())
        except Exception:  # left undone: claimed again after its lease (MAX_ATTEMPTS)
            log.exception("telegram: update %d failed (attempt %d)", row.update_id,
                          row.attempts)
        finally:
            self._in_flight.pop(row.update_id, None)

    async def tick(self) -> int:
        """Renew our leases, claim what others left (up to capacity); how many claimed."""
        now = self.clock()
        if self._in_flight:
            await self.store.write(inbox_sql.inbox_renew,
                                   PLATFORM, list(self._in_flight), now + self.lease)
        room = self.capacity - len(self._in_flight)
        if room <= 0 or self._process is None:
            return 0
        due = await self.store.read(inbox_sql.inbox_next, PLATFORM)  # a read: idle, no write
        if due is None or due >= now:
            return 0
        rows = await self.store.write(inbox_sql.inbox_claim, PLATFORM, now, now + self.lease, room)
        for row in rows:
            if row.attempts > MAX_ATTEMPTS:
                log.error("telegram: update %d given up after %d attempts", row.update_id,
                          MAX_ATTEMPTS)
                await self.store.write(inbox_sql.inbox_done, PLATFORM, row.update_id, now)
                continue
            log.info("telegram: update %d taken over (attempt %d)", row.update_id,
                     row.attempts)
            self._start(row)
        return len(rows)

    async def _run(self) -> None:
        next_prune = 0.0
        while True:
            try:
                await self.tick()
                now = self.clock()
                if now >= next_prune:
                    pruned = await self.store.write(inbox_sql.inbox_prune,
                                                    PLATFORM, now - KEEP_DONE)
                    if pruned:
                        log.info("telegram: pruned %d processed updates", pruned)
                    next_prune = now + PRUNE_EVERY
            except Exception:  # the store may be briefly away; keep looking
                log.exception("telegram: inbox tick failed")
            await asyncio.sleep(self.poll_every)


def _refuse(status: int, why: str) -> web.Response:
    """A refusal sent without reading the body; the connection is closed after it (the
    server does not linger reading what is left, see bot.app.web)."""
    response = web.Response(status=status, text=why + "\n")
    response.force_close()
    return response


async def register(bot: Bot, hook: WebhookConfig) -> None:
    """setWebhook to the public URL with the secret; what `start_webhook` would send."""
    await bot.set_webhook(url=hook.public_url, secret_token=hook.secret_token.reveal(),
                          allowed_updates=list(ALLOWED_UPDATES), max_connections=MAX_CONNECTIONS,
                          drop_pending_updates=False)


def file_url(api_base_url: str) -> str:
    """The file download base matching an API base: .../bot -> .../file/bot."""
    base = api_base_url.rstrip("/")
    if base.endswith("/bot"):
        return f"{base[: -len('/bot')]}/file/bot"
    return f"{base}/file/bot"


async def set_webhook(config: Config) -> str:
    """`quizbot telegram set-webhook`: register the configured webhook once; return its URL."""
    hook = config.telegram.webhook
    if not config.telegram_token:
        raise ConfigError("TELEGRAM_BOT_TOKEN is not set")
    if not hook.public_url or not hook.secret_token:
        raise ConfigError("telegram.webhook.public_url and a secret token "
                          "(telegram.webhook.secret_token or TELEGRAM_WEBHOOK_SECRET) are "
                          "required to register a webhook")
    base = config.telegram.api_base_url
    bot = Bot(config.telegram_token.reveal(), base_url=base, base_file_url=file_url(base))
    async with bot:
        await register(bot, hook)
    return hook.public_url
