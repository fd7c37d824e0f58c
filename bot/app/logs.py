"""Logging: set up once at start; secrets redacted from every record; httpx URLs silenced.

`log_format: json` writes one JSON object per line: time, level, logger, message, the
platform (from the `platform` extra, else from the logger's name) and whichever ids the
call passed as extras (`extra={"chat_id": ...}`). Nothing else of the record is copied, so
a message text a learner typed can only appear if a log call put it in its message, which
none does; secrets are masked before formatting, as in text logs.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
import sys
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

from bot.app.config import Config
from bot.domain.platforms import PLATFORMS, chat_apps

MASK = "<token>"
LONG_SECRET = 8  # characters from which a secret is masked even inside longer words
# httpx logs every request URL at INFO, and Telegram URLs contain the bot token.
NOISY_LOGGERS = ("httpx", "httpcore")
# Logger filters see only records logged on that very logger; handler filters see every
# record that reaches the handler, so `install` attaches to both.
def guarded_loggers() -> tuple[str, ...]:
    """Loggers whose own records may carry a token: each platform library's, and httpx's."""
    return (*(name for p in chat_apps() for name in p.guarded_loggers), *NOISY_LOGGERS)


# Secrets no config holds: Discord's per-interaction tokens, in gateway payloads that
# discord.py logs at DEBUG ('token': '...') and in the interaction and webhook URLs its HTTP
# client logs (/interactions/<id>/<token>/callback, /webhooks/<app id>/<token>/...).
PATTERNS = (
    re.compile(r"""(['"]token['"]\s*:\s*['"])[^'"]+"""),
    re.compile(r"(/interactions/\d+/)[^/\s?'\"]+"),
    re.compile(r"(/webhooks/\d+/)[^/\s?'\"]+"),
)


def url_password(url: str) -> str:
    """The password in a URL such as postgresql://user:password@host/db, else ''."""
    try:
        return urlsplit(url).password or ""
    except ValueError:
        return ""


class RedactSecrets(logging.Filter):
    """Replace each secret, and each Discord interaction token, in a record's message,
    traceback and stack with <token>."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        # A Telegram token is "<bot id>:<secret>": mask the secret half on its own as well.
        parts = {p for s in secrets if s for p in (s, s.partition(":")[2]) if p}
        self.secrets = sorted((p for p in parts if len(p) >= LONG_SECRET), key=len,
                              reverse=True)
        # A short secret (a webhook secret may be 1 character) is masked wherever it stands
        # alone, not inside longer words, or every log line would be full of masks.
        short = sorted((p for p in parts if len(p) < LONG_SECRET), key=len, reverse=True)
        self._short = re.compile("|".join(
            rf"(?<![A-Za-z0-9_\-]){re.escape(p)}(?![A-Za-z0-9_\-])" for p in short)
            ) if short else None

    def scrub(self, text: str) -> str:
        """`text` with every secret masked."""
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        if self._short is not None:
            text = self._short.sub(MASK, text)
        for pattern in PATTERNS:
            text = pattern.sub(rf"\g<1>{MASK}", text)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place; never drop it."""
        if record.name.split(".")[0] in LIBRARIES:
            if record.args:
                record.args = ids_only_args(record.args)
            unparsable_in_one_line(record)
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: the handler will report it
            message = str(record.msg)
        clean = self.scrub(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None:
            text = record.exc_text or logging.Formatter().formatException(record.exc_info)
            record.exc_text = self.scrub(text)
        elif record.exc_text:
            record.exc_text = self.scrub(record.exc_text)
        if record.stack_info:
            record.stack_info = self.scrub(record.stack_info)
        return True


# The chat libraries log whole payloads at DEBUG (PTB: every update and every API call's
# parameters and result; discord.py: gateway events and request bodies): message texts,
# display names, group titles. Their structured arguments are cut down to their ids.
LIBRARIES = frozenset({"telegram", "discord"})
MAX_IDS = 12
KINDS = frozenset({"t", "op", "type"})  # a payload's kind (discord's event name) is kept
KIND = re.compile(r"[A-Za-z0-9_]{1,40}")


def unparsable_in_one_line(record: logging.LogRecord) -> None:
    """A library's record of a reply it could not parse as JSON (PTB: 'Can not load invalid
    JSON data', a proxy's or web server's error page at a wrong api_base_url) keeps the
    parse error on its line and drops the traceback, printed on every start-up try."""
    error = record.exc_info[1] if record.exc_info else None
    if isinstance(error, json.JSONDecodeError):
        record.msg, record.args = f"{record.getMessage()} ({error})", None
        record.exc_info, record.exc_text = None, None


def ids_only_args(args: tuple[object, ...] | Mapping[str, object]) -> tuple[object, ...]:
    """A log call's arguments with every payload (dict, list, library object, JSON text)
    replaced by the ids in it; plain scalars stay."""
    values = args.values() if isinstance(args, Mapping) else args
    return tuple(_ids_only(value) for value in values)


class _Ids(str):
    """A payload already cut down (the filter may run twice: on a logger and a handler)."""

    __slots__ = ()


def _ids_only(value: object) -> object:
    if value is None or isinstance(value, bool | int | float | _Ids):
        return value
    if isinstance(value, str):
        if not value.lstrip().startswith(("{", "[")):
            if "\n" in value.strip():  # a page or a message's text, never a name or a URL
                return _Ids(f"<{len(value)} characters>")
            return value  # a name, a URL (its tokens are masked below), a status
        try:
            value = json.loads(value)
        except ValueError:
            return _Ids(f"<{len(str(value))} characters>")
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):  # a python-telegram-bot object (Update, Message, ...)
        value = to_dict()
    if isinstance(value, Mapping | list | tuple):
        found: list[str] = []
        if isinstance(value, Mapping):  # its kind first, before ids cut the list short
            found += [f"{k}={value[k]}" for k in sorted(KINDS & set(value))
                      if isinstance(value[k], int | str) and KIND.fullmatch(str(value[k]))]
            value = {k: v for k, v in value.items() if k not in KINDS}
        _collect_ids(value, "", found)
        more = ", ..." if len(found) > MAX_IDS else ""
        return _Ids("{" + ", ".join(found[:MAX_IDS]) + more + "}")
    return _Ids(f"<{type(value).__name__}>")


def _collect_ids(value: object, path: str, found: list[str]) -> None:
    if len(found) > MAX_IDS:
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = f"{path}.{key}" if path else str(key)
            if key in KINDS and isinstance(item, int | str) and KIND.fullmatch(str(item)):
                found.append(f"{name}={item}")  # what the payload is (INTERACTION_CREATE)
            elif (key == "id" or str(key).endswith("_id")) and isinstance(item, int | str) \
                    and not isinstance(item, bool):
                found.append(f"{name}={item}" if isinstance(item, int) or str(item).lstrip(
                    "-").isdigit() else f"{name}=<{len(str(item))} chars>")
            else:
                _collect_ids(item, name, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _collect_ids(item, path, found)


def install(redactor: RedactSecrets) -> list[logging.Filterer]:
    """Attach `redactor` to the root handlers and the platform libraries' loggers."""
    quiet_noisy_loggers()
    targets: list[logging.Filterer] = [logging.getLogger(n) for n in guarded_loggers()]
    targets += logging.getLogger().handlers
    for target in targets:
        target.addFilter(redactor)
    return targets


def uninstall(redactor: RedactSecrets, targets: list[logging.Filterer]) -> None:
    """Detach what `install` attached."""
    for target in targets:
        target.removeFilter(redactor)


def quiet_noisy_loggers() -> None:
    """Keep httpx/httpcore below INFO, where they would log URLs with the token."""
    for name in NOISY_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level < logging.WARNING:
            logger.setLevel(logging.WARNING)


ID_FIELDS = ("user_id", "chat_id", "session_id", "update_id", "guild_id", "interaction_id")


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as compact JSON (newlines inside values are escaped by json)."""
        out: dict[str, object] = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC)
            .isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        platform = getattr(record, "platform", None) or _platform_of(record.name)
        if platform:
            out["platform"] = platform
        for name in ID_FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                out[name] = value
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            out["exc"] = record.exc_text
        return json.dumps(out, ensure_ascii=False, default=str)


def _platform_of(logger: str) -> str | None:
    for platform in PLATFORMS.values():  # registered platforms' logger name prefixes
        if any(logger == prefix or logger.startswith(prefix + ".") for prefix in platform.loggers):
            return platform.name
    return None


def setup_logging(config: Config, *, quiet: bool = False) -> None:
    """Log to stderr at the configured level, every configured secret redacted.

    `quiet` (the terminal game) shows nothing below WARNING, whatever log_level says: the
    learner's screen is for the quiz, not for migrations being applied.
    """
    handler = logging.StreamHandler(sys.stderr)
    if config.log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets([
        *(token.reveal() for token in config.tokens.values()),
        config.telegram.webhook.secret_token.reveal(), config.storage_password.reveal()]))
    handler.set_name("quizbot")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "quizbot"]:
        root.removeHandler(old)
    root.addHandler(handler)
    level = logging.getLevelName(config.log_level)
    root.setLevel(max(level, logging.WARNING) if quiet else level)
    quiet_noisy_loggers()
    logging.getLogger("aiosqlite").setLevel(logging.WARNING)
    # Pillow logs each PNG chunk it reads at DEBUG (every shipped picture at start, every
    # chart): nothing to debug the bot with, and it buries what is
    logging.getLogger("PIL").setLevel(logging.INFO)
