"""Keep the bot token out of every log line.

python-telegram-bot puts the token in every request URL; httpx logs those URLs at INFO and
exception messages may quote them. A `logging.Filter` rewrites any record mentioning it.
"""

from __future__ import annotations

import logging

NOISY_LOGGERS = ("httpx", "httpcore")
GUARDED_LOGGERS = ("telegram", "telegram.ext", "httpx", "httpcore")
MASK = "<token>"


class TokenRedactor(logging.Filter):
    """Replaces the token (and its secret half) in a record's message and traceback."""

    def __init__(self, *secrets: str) -> None:
        super().__init__()
        # The part after "123:" is the secret; mask it even where the bot id is split off.
        parts = {s for secret in secrets if secret for s in (secret, secret.partition(":")[2])}
        self._secrets = sorted((s for s in parts if len(s) >= 8), key=len, reverse=True)

    def _scrub(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place; never drops it."""
        if not self._secrets:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: leave it to the handler to report
            message = str(record.msg)
        clean = self._scrub(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[1] is not None:
            text = record.exc_text or logging.Formatter().formatException(record.exc_info)
            record.exc_text = self._scrub(text)
        elif record.exc_text:
            record.exc_text = self._scrub(record.exc_text)
        if record.stack_info:
            record.stack_info = self._scrub(record.stack_info)
        return True


def install(redactor: TokenRedactor) -> list[logging.Filterer]:
    """Attach the redactor to the root handlers and the library loggers; return them.

    Logger filters only see records logged on that very logger, handler filters see every
    record that reaches the handler, so both are needed.
    """
    for name in NOISY_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET or logger.level < logging.WARNING:
            logger.setLevel(logging.WARNING)
    targets: list[logging.Filterer] = [logging.getLogger(n) for n in GUARDED_LOGGERS]
    targets += logging.getLogger().handlers
    for target in targets:
        target.addFilter(redactor)
    return targets


def uninstall(redactor: TokenRedactor, targets: list[logging.Filterer]) -> None:
    """Detach what `install` attached."""
    for target in targets:
        target.removeFilter(redactor)
