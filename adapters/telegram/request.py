"""PTB's network layer on aiohttp: the Bot API calls of every tap, at a third of httpx's CPU.

python-telegram-bot talks HTTP through a `BaseRequest` (its public extension point); its
default, `HTTPXRequest`, spends most of a tap's CPU in httpx and httpcore (the pool re-checks
every idle connection on each request; form encoding goes through urllib's quoting). aiohttp
is already ours (the webhook and web server; under discord.py) and parses HTTP in C. Bodies
are JSON (the Bot API takes JSON as it takes forms), encoded in one C call.
Timeouts and errors mean what they mean in `HTTPXRequest`: `TimedOut` when one runs out,
`NetworkError` for any other failure to get an answer.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp
from telegram.error import BadRequest, NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

from bot.domain.results import whole_text

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

    @staticmethod
    def parse_json_payload(payload: bytes) -> dict[str, Any]:
        """PTB's parse, then `whole_json`."""
        return whole_json(BaseRequest.parse_json_payload(payload), payload)  # type: ignore[no-any-return]

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


def maybe_delivered(exc: Exception) -> bool:
    """True for a call that failed after it may have reached Telegram: no answer in time
    (the read ran out) or the connection lost mid-call, so what it asked may be done.
    False when it never left (no connection could be had) or Telegram answered with an
    error (a 5xx or BadRequest: nothing done)."""
    if not isinstance(exc, NetworkError) or isinstance(exc, BadRequest):
        return False
    cause = exc.__cause__  # what `do_request` raised it from; None: Telegram's own answer
    if isinstance(cause, aiohttp.ConnectionTimeoutError | aiohttp.ClientConnectorError):
        return False
    return isinstance(cause, TimeoutError | aiohttp.ClientError | OSError)


def whole_json(data: Any, source: bytes) -> Any:
    """`data`, parsed from `source`, with every unpaired UTF-16 surrogate (a `\\ud83d`
    escape with no partner, from a client that cut an emoji) in a name, title or text made
    U+FFFD: a str holding one cannot be stored or sent back as UTF-8. Only a source with
    such an escape is looked at again (the Bot API sends UTF-8, not escapes)."""
    if b"\\ud" not in source and b"\\uD" not in source:
        return data
    return json.loads(whole_text(json.dumps(data, ensure_ascii=False)))


JSON = {"Content-Type": "application/json"}  # the Bot API reads JSON bodies as it reads forms


def json_body(parameters: dict[str, Any]) -> bytes:
    """PTB's parameters as one JSON object: nested values (a keyboard) stay objects, text
    stays UTF-8. One C-encoded `json.dumps` instead of PTB's per-field JSON strings quoted
    into a form (a tenth of a send's CPU)."""
    return json.dumps(parameters, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _body(request_data: RequestData | None) -> tuple[bytes | aiohttp.FormData | None,
                                                     dict[str, str] | None]:
    """The body: a JSON object, or multipart (PTB's own format) when there are files, and
    its content type when aiohttp would not set it."""
    if request_data is None:
        return None, None
    if not request_data.contains_files:
        return json_body(request_data.parameters), JSON
    form = aiohttp.FormData(request_data.json_parameters)
    for name, (filename, content, mimetype) in request_data.multipart_data.items():
        form.add_field(name, content, filename=filename, content_type=mimetype)
    return form, None
