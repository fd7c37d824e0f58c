"""Webhook mode for several workers: listen without registering; register once, apart.

PTB 22's `Updater.start_webhook` always calls setWebhook (with no `webhook_url` it makes one
up from listen:port), so N workers starting would each re-register, racing one another and
whoever runs `quizbot telegram set-webhook`. With `telegram.webhook.register: false` a worker
instead runs PTB's own webhook server (the same tornado app: JSON only, the secret token
checked, 403 otherwise) feeding the application's update queue, and never calls setWebhook.
`WebhookServer`/`WebhookAppClass` live in PTB's private `_utils`; pinned to PTB < 23.
"""

from __future__ import annotations

import asyncio
import logging

from telegram import Bot, Update
from telegram.ext._utils.webhookhandler import WebhookAppClass, WebhookServer

from adapters.telegram.handlers import PTBApplication
from bot.app.config import Config, WebhookConfig
from bot.domain.errors import ConfigError

log = logging.getLogger(__name__)

ALLOWED_UPDATES = (Update.MESSAGE, Update.CALLBACK_QUERY)
MAX_CONNECTIONS = 40  # what Updater.start_webhook asks for


async def listen_only(application: PTBApplication, hook: WebhookConfig) -> WebhookServer:
    """Serve the webhook on listen:port/url_path into the update queue; no setWebhook."""
    app = WebhookAppClass(f"/{hook.url_path}", application.bot, application.update_queue,
                          hook.secret_token.reveal() or None)
    server = WebhookServer(hook.listen, hook.port, app, None)
    ready = asyncio.Event()
    await server.serve_forever(ready=ready)
    await ready.wait()
    log.info("telegram: webhook listening on %s:%d/%s (not registering it: "
             "telegram.webhook.register is false)", hook.listen, hook.port, hook.url_path)
    return server


async def register(bot: Bot, hook: WebhookConfig) -> None:
    """setWebhook to the public URL with the secret; what `start_webhook` would send."""
    await bot.set_webhook(url=hook.public_url, secret_token=hook.secret_token.reveal(),
                          allowed_updates=list(ALLOWED_UPDATES), max_connections=MAX_CONNECTIONS,
                          drop_pending_updates=False)


async def set_webhook(config: Config) -> str:
    """`quizbot telegram set-webhook`: register the configured webhook once; return its URL."""
    hook = config.telegram.webhook
    if not config.telegram_token:
        raise ConfigError("TELEGRAM_BOT_TOKEN is not set")
    if not hook.public_url or not hook.secret_token:
        raise ConfigError("telegram.webhook.public_url and a secret token "
                          "(telegram.webhook.secret_token or TELEGRAM_WEBHOOK_SECRET) are "
                          "required to register a webhook")
    from adapters.telegram.adapter import file_url

    base = config.telegram.api_base_url
    bot = Bot(config.telegram_token.reveal(), base_url=base, base_file_url=file_url(base))
    async with bot:
        await register(bot, hook)
    return hook.public_url


__all__ = ["WebhookServer", "listen_only", "register", "set_webhook"]
