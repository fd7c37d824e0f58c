"""Webhook mode: Telegram's POSTs on our own server (`bot.app.web`), through the inbox.

A POST is checked in the order that costs least: the secret header (403, body unread), the
declared size (413 over 1 MiB, body unread), then the body: invalid UTF-8, malformed JSON or
no integer `update_id` is 400. The update is then stored by its id (`bot.store.commands.inbox_sql`)
before the 200 goes back, and processed from the store: the receiving worker at once, and
any worker again once a lease runs out (one that was SIGKILLed after its 200), found by the
scheduler's one read of what is next due (`Scheduler.follow`): no loop of its own. An update
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
import functools
import hmac
import json
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from telegram import Bot, Update
from telegram.error import BadRequest, Forbidden, InvalidToken, NetworkError

from adapters.base.startup import until_up
from bot.app.config import Config, WebhookConfig
from bot.app.web_server import MAX_BODY, WebServer
from bot.domain.errors import ConfigError
from bot.domain.tasks import spawn
from bot.features.jobs import Nap, Scheduler, nap
from bot.store.commands import inbox_sql
from bot.store.protocol import Store
from bot.store.rows import InboxRow

log = logging.getLogger(__name__)

# The updates the bot asks for, polling and webhook alike (Telegram keeps the last list it
# was given): messages, presses, and the bot's own membership of a chat (added, removed,
# muted: `group_events`), which Telegram sends only when asked.
ALLOWED_UPDATES = (Update.MESSAGE, Update.CALLBACK_QUERY, Update.MY_CHAT_MEMBER)
MAX_CONNECTIONS = 40  # what PTB's Updater.start_webhook asks for
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
MAX_UPDATE = MAX_BODY  # 1 MiB: Telegram's updates are a few KB
LEASE = 10.0  # seconds an update stays with the worker processing it (renewed meanwhile)
MAX_ATTEMPTS = 5  # claims of one update before it is given up (logged by id)
PLATFORM = "telegram"
FOLLOW = "telegram inbox"  # its name among the scheduler's followed work

Process = Callable[[InboxRow], Awaitable[None]]
Clock = Callable[[], float]


class Inbox:
    """Takes webhook POSTs into the store and processes them at once; what other workers
    left (a lease that ran out) is claimed when the scheduler finds it due: at its recheck,
    or sooner while updates come in (they wake it once a lease). No loop of its own: an idle
    inbox reads and writes nothing (its due time is part of the scheduler's one read), and
    done updates are pruned by the daily housekeeping job."""

    def __init__(self, store: Store, secret: str, *, capacity: int, clock: Clock,
                 scheduler: Scheduler, lease: float = LEASE, wait: Nap = nap) -> None:
        self.store, self._secret = store, secret.encode()
        self.capacity, self.clock, self.scheduler = capacity, clock, scheduler
        self.lease, self.wait = lease, wait
        self._process: Process | None = None
        self._in_flight: dict[int, asyncio.Task[None]] = {}
        self._leased: dict[int, float] = {}  # update in flight -> when its lease was set
        self._done: set[int] = set()  # updates in flight marked done as their reply went
        self._keeper: asyncio.Task[None] | None = None
        self._emptied = asyncio.Event()  # the last update in flight ended: the keeper stops
        self._behind = False  # a claim left updates for want of room: look again on a slot
        self._look_at = 0.0  # when an update coming in next wakes the scheduler

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
            self._start(InboxRow(update_id, raw.decode("utf-8"), 1), now)
            if now >= self._look_at:  # busy: what a dead worker left is looked for each lease
                self._look_at = now + self.lease
                self.scheduler.wake()
        elif not fresh:
            log.debug("telegram: update %d delivered again; already stored", update_id)
        return web.Response(text="")

    async def may_reply(self, update_id: int) -> bool:
        """Mark the update done now, before its reply goes out; False when another worker
        already did (and replied): then this one sends nothing."""
        marked = await self.store.write(inbox_sql.inbox_done, PLATFORM, update_id,
                                        self.clock())
        if marked and update_id in self._in_flight:
            self._done.add(update_id)  # no second mark when its processing ends
        return marked

    def start(self, process: Process) -> None:
        """Process what arrives with `process`; the scheduler hands over what other workers
        left (it reads when that is next due, at once and then with its other work)."""
        self._process = process
        self.scheduler.follow(FOLLOW, functools.partial(inbox_sql.inbox_next, PLATFORM),
                              self.claim)

    async def stop(self) -> None:
        """Stop claiming; let updates in flight finish (a cancelled one is retried later,
        by any worker, once its lease runs out)."""
        self._process = None
        await self.scheduler.withdraw((), (FOLLOW,))
        if self._in_flight:
            await asyncio.gather(*self._in_flight.values(), return_exceptions=True)
        keeper, self._keeper = self._keeper, None
        if keeper is not None:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper

    async def claim(self, now: float) -> bool:
        """Claim what other workers left (up to capacity), called by the scheduler when
        the inbox's next lease has run out; False when there was nothing to take."""
        room = self.capacity - len(self._in_flight)
        if self._process is None or room <= 0:
            self._behind = self._process is not None
            return False
        rows = await self.store.write(inbox_sql.inbox_claim, PLATFORM, now, now + self.lease, room)
        self._behind = len(rows) >= room
        for row in rows:
            if row.attempts > MAX_ATTEMPTS:
                log.error("telegram: update %d given up after %d attempts", row.update_id,
                          MAX_ATTEMPTS)
                await self.store.write(inbox_sql.inbox_done, PLATFORM, row.update_id, now)
                continue
            log.info("telegram: update %d taken over (attempt %d)", row.update_id,
                     row.attempts)
            self._start(row, now)
        return bool(rows)

    def _start(self, row: InboxRow, leased_at: float) -> None:
        process = self._process
        if process is None or row.update_id in self._in_flight:
            return  # stopping: the lease runs out and someone claims it again
        self._leased[row.update_id] = leased_at
        self._in_flight[row.update_id] = spawn(self._handle(process, row),
                                               name=f"telegram-update-{row.update_id}")
        self._emptied.clear()
        if self._keeper is None:
            self._keeper = spawn(self._keep(), name="telegram-inbox-leases")

    async def _handle(self, process: Process, row: InboxRow) -> None:
        try:
            await process(row)
            if row.update_id not in self._done:  # an update that sent no reply
                await self.store.write(inbox_sql.inbox_done, PLATFORM, row.update_id,
                                       self.clock())
        except Exception:  # left undone: claimed again after its lease (MAX_ATTEMPTS)
            log.exception("telegram: update %d failed (attempt %d)", row.update_id,
                          row.attempts)
        finally:
            self._in_flight.pop(row.update_id, None)
            self._leased.pop(row.update_id, None)
            self._done.discard(row.update_id)
            if not self._in_flight:
                self._emptied.set()
            if self._behind:  # a slot is free for what a claim had to leave
                self._behind = False
                self.scheduler.wake()

    async def _keep(self) -> None:
        """While updates are in flight: every third of a lease, renew the leases of those
        running that long (most are done well before), so no worker takes them over."""
        every = self.lease / 3
        try:
            while self._in_flight:
                await self.wait(self._emptied, every)
                now = self.clock()
                old = [uid for uid, at in self._leased.items() if at <= now - every]
                if not old:
                    continue
                try:
                    await self.store.write(inbox_sql.inbox_renew, PLATFORM, old, now + self.lease)
                except Exception:  # the store may be briefly away: next time
                    log.exception("telegram: renewing %d leases failed", len(old))
                    continue
                self._leased.update((uid, now) for uid in old if uid in self._leased)
        finally:
            self._keeper = None


def _refuse(status: int, why: str) -> web.Response:
    """A refusal sent without reading the body; the connection is closed after it (the
    server does not linger reading what is left, see bot.app.web_server)."""
    response = web.Response(status=status, text=why + "\n")
    response.force_close()
    return response


async def register(bot: Bot, hook: WebhookConfig) -> None:
    """setWebhook to the public URL with the secret; what `start_webhook` would send. A
    refusal (a public_url Telegram cannot use) is a ConfigError saying which key to fix."""
    try:
        await bot.set_webhook(url=hook.public_url, secret_token=hook.secret_token.reveal(),
                              allowed_updates=list(ALLOWED_UPDATES),
                              max_connections=MAX_CONNECTIONS, drop_pending_updates=False)
    except (BadRequest, Forbidden) as exc:
        raise ConfigError(f"Telegram refused setWebhook for {hook.public_url} ({exc.message}); "
                          "check telegram.webhook.public_url: a public https address that "
                          "reaches this bot") from None


async def registration_problem(bot: Bot, hook: WebhookConfig) -> str | None:
    """What is wrong with the webhook Telegram holds for a worker that does not register it
    (`register: false`), or None: another URL, or the update kinds an older quizbot asked
    for (Telegram keeps the last list: without `my_chat_member` a round in a group the bot
    was removed from runs on). One getWebhookInfo; a failed call concludes nothing."""
    try:
        info = await bot.get_webhook_info()
    except (NetworkError, BadRequest, Forbidden) as exc:
        log.warning("telegram: could not read the webhook Telegram has (%s); not checked",
                    type(exc).__name__)
        return None
    fix = "run quizbot telegram set-webhook --config PATH once"
    if info.url != hook.public_url:
        return (f"the webhook Telegram has for this bot is {info.url or 'none'}, not "
                f"telegram.webhook.public_url {hook.public_url}, so no update reaches this "
                f"worker: {fix}")
    missing = [kind for kind in ALLOWED_UPDATES
               if info.allowed_updates and kind not in info.allowed_updates]
    if missing:
        return (f"the webhook was registered by an older quizbot, without {', '.join(missing)} "
                f"updates (the bot removed or muted in a group ends its round): {fix}")
    return None


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
        raise ConfigError("TELEGRAM_BOT_TOKEN is not set: export the token @BotFather "
                          "gave you, as for quizbot run, and run set-webhook again")
    if not hook.public_url or not hook.secret_token:
        raise ConfigError("telegram.webhook.public_url and a secret token "
                          "(telegram.webhook.secret_token or TELEGRAM_WEBHOOK_SECRET) are "
                          "required to register a webhook: set both as docs/configuration.md "
                          "shows (Telegram webhook mode)")
    base, token = config.telegram.api_base_url, config.telegram_token.reveal()
    bot = Bot(token, base_url=base, base_file_url=file_url(base))

    async def attempt() -> None:
        async with bot:  # getMe, then setWebhook; closed again after a failed try
            await register(bot, hook)

    try:  # a Bot API that cannot be reached is retried as `quizbot run` retries it
        await until_up(f"the Telegram Bot API at {base}", attempt, transient=(NetworkError,),
                       give_up_after=config.startup_timeout,
                       scrub=lambda text: text.replace(token, "<TELEGRAM_BOT_TOKEN>"),
                       hint="check telegram.api_base_url and the network")
    except InvalidToken:  # PTB's own message quotes the token
        raise ConfigError(f"TELEGRAM_BOT_TOKEN was rejected by the Bot API at {base}") from None
    return hook.public_url
