"""PTB's network layer on aiohttp: the Bot API calls of every tap, at a third of httpx's CPU.

python-telegram-bot talks HTTP through a `BaseRequest` (its public extension point); its
default, `HTTPXRequest`, spends most of a tap's CPU in httpx and httpcore (the pool re-checks
every idle connection on each request; form encoding goes through urllib's quoting). aiohttp
is already ours (the webhook and web server; under discord.py) and parses HTTP in C.
Timeouts and errors mean what they mean in `HTTPXRequest`: `TimedOut` when one runs out,
`NetworkError` for any other failure to get an answer.
"""

from __future__ import annotations

from typing import Any

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

ODVFloat = Any  # PTB's ODVInput[float]: a float, None (no limit) or a DefaultValue marker
DefaultValue = type(BaseRequest.DEFAULT_NONE)  # "not given": use this request's own default


class AiohttpRequest(BaseRequest):
    """A `BaseRequest` on one aiohttp session of `connection_pool_size` connections."""

    def __init__(self, connection_pool_size: int = 1, *, read_timeout: float | None = 5.0,
                 connect_timeout: float | None = 5.0, pool_timeout: float | None = 1.0,
                 write_timeout: float | None = 5.0) -> None:
        self._pool_size = connection_pool_size
        self._read = read_timeout
        self._connect = connect_timeout
        self._pool = pool_timeout
        self._write = write_timeout  # aiohttp has no write timeout: a slow send reads as read
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        """The read timeout used when a call does not name one."""
        return self._read

    async def initialize(self) -> None:
        """Open the session (on the running loop)."""
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._pool_size, limit_per_host=0),
                headers={"User-Agent": self.USER_AGENT}, skip_auto_headers=("Accept-Encoding",))

    async def shutdown(self) -> None:
        """Close the session and its connections."""
        if self._session is not None and not self._session.closed:
            await self._session.close()

    async def do_request(self, url: str, method: str, request_data: RequestData | None = None,
                         read_timeout: ODVFloat = BaseRequest.DEFAULT_NONE,
                         write_timeout: ODVFloat = BaseRequest.DEFAULT_NONE,
                         connect_timeout: ODVFloat = BaseRequest.DEFAULT_NONE,
                         pool_timeout: ODVFloat = BaseRequest.DEFAULT_NONE) -> tuple[int, bytes]:
        """One HTTP request; (status, body)."""
        session = self._session
        if session is None or session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        read = self._read if isinstance(read_timeout, DefaultValue) else read_timeout
        connect = self._connect if isinstance(connect_timeout, DefaultValue) else connect_timeout
        pool = self._pool if isinstance(pool_timeout, DefaultValue) else pool_timeout
        # aiohttp's `connect` covers waiting for a free connection and opening one.
        timeout = aiohttp.ClientTimeout(
            connect=None if pool is None or connect is None else pool + connect,
            sock_connect=connect, sock_read=read)
        body, headers = _body(request_data)
        try:
            async with session.request(method, url, data=body, headers=headers,
                                       timeout=timeout) as response:
                return response.status, await response.read()
        except TimeoutError as exc:  # aiohttp's timeouts are TimeoutErrors too
            raise TimedOut from exc
        except (aiohttp.ClientError, OSError) as exc:
            raise NetworkError(f"aiohttp.{type(exc).__name__}: {exc}") from exc


FORM = {"Content-Type": "application/x-www-form-urlencoded"}
# Each byte as `urllib.parse.quote_plus` writes it: letters, digits and "_.-~" as they are,
# space as "+", the rest as %XX. A table walked in C: urllib's own loop was a fifth of a tap.
_QUOTED = [chr(b) if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "_.-~")
           else "+" if b == 0x20 else f"%{b:02X}" for b in range(256)]


def form_urlencoded(fields: dict[str, str]) -> bytes:
    """`urllib.parse.urlencode(fields)` (what PTB's own HTTP layer sends), faster."""
    return "&".join(f"{_quote(k)}={_quote(v)}" for k, v in fields.items()).encode("ascii")


def _quote(text: str) -> str:
    return "".join(map(_QUOTED.__getitem__, text.encode("utf-8")))


def _body(request_data: RequestData | None) -> tuple[bytes | aiohttp.FormData | None,
                                                     dict[str, str] | None]:
    """The body PTB's own layer would send (url-encoded fields, or multipart with the
    files) and its content type when aiohttp would not set it."""
    if request_data is None:
        return None, None
    fields = request_data.json_parameters
    if not request_data.contains_files:
        return form_urlencoded(fields), FORM
    form = aiohttp.FormData(fields)
    for name, (filename, content, mimetype) in request_data.multipart_data.items():
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form, None
