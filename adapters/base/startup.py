"""Start-up against a platform that may be down: retry with backoff, one warning line per
try, then one clear error. A platform that says no (a rejected token) is not retried."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.domain.errors import StartupFailed

log = logging.getLogger(__name__)

T = TypeVar("T")
FIRST_DELAY = 0.5
MAX_DELAY = 8.0
MAX_REASON = 200  # characters of an error's message kept in a warning line
# A reply quoted whole in a library's error (PTB: "Parsing the server response b'...'
# failed"): a proxy's or web server's HTML page, many lines of it on every try.
QUOTED_BYTES = re.compile(r"(?<!\w)b'(?:[^'\\]|\\.)*'" + r'|(?<!\w)b"(?:[^"\\]|\\.)*"')


def describe(exc: BaseException) -> str:
    """A one-line reason: the exception's name and the first line of its message, a quoted
    reply cut to its size, the whole at most MAX_REASON characters."""
    text = str(exc).strip().splitlines()
    if not text:
        return type(exc).__name__
    first = QUOTED_BYTES.sub(lambda m: f"<{len(m.group())} characters>", text[0])
    if len(first) > MAX_REASON:
        first = first[:MAX_REASON - 1] + "…"
    return f"{type(exc).__name__}: {first}"


async def until_up(what: str, attempt: Callable[[], Awaitable[T]], *,
                   transient: tuple[type[BaseException], ...], give_up_after: float,
                   scrub: Callable[[str], str] = str, hint: str = "") -> T:
    """`attempt()` until it returns; on a `transient` error wait (0.5 s, doubling to 8 s)
    and try again, for at most `give_up_after` seconds (an attempt that hangs is cut off
    there too); then StartupFailed naming `what`."""
    deadline = time.monotonic() + give_up_after
    delay, tries = FIRST_DELAY, 0
    retry: tuple[type[BaseException], ...] = (*transient, TimeoutError)
    while True:
        tries += 1
        try:
            async with asyncio.timeout(max(deadline - time.monotonic(), FIRST_DELAY)):
                return await attempt()
        except retry as exc:
            reason = scrub(describe(exc))
            left = deadline - time.monotonic()
            if left <= 0:
                raise StartupFailed(
                    f"{what} could not be reached in {give_up_after:g} s ({tries} tries, last: "
                    f"{reason}); {hint or 'check the address and the network'}, or raise "
                    "startup_timeout") from None
            wait = min(delay, left)
            log.warning("%s unreachable (%s); try %d failed, retrying in %.1f s", what, reason,
                        tries, wait)
            await asyncio.sleep(wait)
            delay = min(delay * 2, MAX_DELAY)
