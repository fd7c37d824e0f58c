"""Logging set up once at start: tokens redacted from every record, httpx URLs silenced."""

from __future__ import annotations

import logging
import sys

from bot.config import Config

REDACTED = "[REDACTED]"


class RedactSecrets(logging.Filter):
    """Replace every configured secret in a record's message (and args) with [REDACTED]."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        clean = _redact(message, self.secrets)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_text:
            record.exc_text = _redact(record.exc_text, self.secrets)
        return True


def _redact(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return text


def setup_logging(config: Config) -> None:
    """Log to stderr at the configured level; redact tokens; keep httpx from logging URLs."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets([
        config.telegram_token.reveal(), config.discord_token.reveal(),
        config.telegram.webhook.secret_token.reveal()]))
    handler.set_name("quizbot")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "quizbot"]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(config.log_level)
    # httpx logs every request URL at INFO, and Telegram URLs contain the bot token.
    for noisy in ("httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.getLogger("aiosqlite").setLevel(logging.WARNING)
