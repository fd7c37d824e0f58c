"""One aiohttp application on one address (`WebServer`), and what keeps it up under abuse.

A server holds under abuse: a connection that sends no complete request within
IDLE_SECONDS (or stays idle that long between requests) is closed; at most
`max_connections` are open at once (a quarter of the open-file limit, at most
MAX_CONNECTIONS), further ones are answered 503 and closed at once, so a flood of idle
sockets can never use up the process's file descriptors. A malformed request is one
WARNING line naming its peer and what was wrong, never its bytes and never a traceback.

Its own module so that a process with no server (`quizbot play`, `list`, the operations)
never imports aiohttp: `bot.app.web.Web` imports it when a server is first asked for.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import resource
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from bot.domain.errors import ConfigError

log = logging.getLogger("bot.app.web")  # the name its log lines always had

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# What aiohttp reads through request.read()/json() at most; a handler that must refuse a
# big body without reading it checks request.content_length itself.
MAX_BODY = 1 << 20
SHUTDOWN_GRACE = 5.0  # seconds requests in flight get when a server stops
IDLE_SECONDS = 15.0  # a connection without a complete request this long is closed
MAX_CONNECTIONS = 512  # open connections per server at most (see `connection_cap`)
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nConnection: close\r\n"
        b"Content-Length: 0\r\n\r\n")


def connection_cap() -> int:
    """Open connections a server takes: a quarter of the open-file limit (the rest stays
    for the database, the chat platforms and other servers), at most MAX_CONNECTIONS."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, soft // 4))


def printable(text: str, limit: int = 200) -> str:
    """`text` for a log line: control characters escaped (no forged lines), cut to `limit`."""
    out = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:limit])
    return out + ("…" if len(text) > limit else "")


class _RequestLog(logging.Logger):
    """aiohttp's per-connection logger: a request it could not parse is one line naming the
    peer and the error's kind (WARNING; DEBUG for a first line that is not HTTP at all, which
    scanners send all day), never the request's bytes or a traceback. Any other failure
    keeps its traceback."""

    def exception(self, msg: object, *args: object, exc_info: Any = True,
                  **kwargs: Any) -> None:
        """aiohttp's handle_error: the error comes as exc_info."""
        if not self._malformed(logging.WARNING, args, exc_info):
            super().exception(msg, *args, exc_info=exc_info, **kwargs)

    def debug(self, msg: object, *args: object, **kwargs: Any) -> None:
        """aiohttp logs a bad method on a connection's first request here."""
        if not self._malformed(logging.DEBUG, args, kwargs.get("exc_info")):
            super().debug(msg, *args, **kwargs)

    def _malformed(self, level: int, args: tuple[object, ...], exc: object) -> bool:
        if not isinstance(exc, HttpProcessingError):
            return False
        peer = printable(str(args[0])) if args else "?"
        self.log(level, "web: malformed request from %s refused (%d %s)", peer, exc.code,
                 type(exc).__name__)
        return True


def _request_log() -> logging.Logger:
    made = _RequestLog("aiohttp.server")
    made.parent = logging.getLogger("aiohttp")  # its records reach the root's handlers
    return made


class _Refused(asyncio.Protocol):
    """A connection past the cap: told 503 and closed before it costs anything more."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if isinstance(transport, asyncio.WriteTransport):
            transport.write(BUSY)
        transport.close()


class _Capped:
    """The protocol factory the listening socket uses: aiohttp's while fewer than `cap`
    connections are open, else `_Refused` (logged once a minute at most)."""

    def __init__(self, server: web.Server, cap: int, address: str) -> None:
        self._server, self.cap, self._address = server, cap, address
        self.refused = 0
        self._logged_at = -1e9

    def __call__(self) -> asyncio.BaseProtocol:
        if len(self._server.connections) < self.cap:
            return self._server()
        self.refused += 1
        now = time.monotonic()
        if now - self._logged_at >= 60:
            self._logged_at = now
            log.warning("web: %d connections open on %s, the most it takes; refusing new "
                        "ones (%d so far)", self.cap, self._address, self.refused)
        return _Refused()


class _CappedSite(web.TCPSite):
    """TCPSite whose connections go through `_Capped`."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, cap: int) -> None:
        super().__init__(runner, host, port)
        self.cap = cap
        self.factory: _Capped | None = None

    async def start(self) -> None:
        await web.BaseSite.start(self)  # registers the site with its runner
        server = self._runner.server
        assert server is not None
        self.factory = _Capped(server, self.cap, f"{self._host}:{self._port}")
        self._server = await asyncio.get_running_loop().create_server(
            self.factory, self._host, self._port, backlog=self._backlog)


class WebServer:
    """One aiohttp application listening on one address."""

    def __init__(self, listen: str, port: int, *, key: str, max_connections: int | None = None,
                 idle_seconds: float = IDLE_SECONDS) -> None:
        # `key` names the config key the address came from, for a clear bind error.
        self.listen, self.port, self.key = listen, port, key
        self.max_connections = max_connections or connection_cap()
        self.idle_seconds = idle_seconds
        self._app = web.Application(client_max_size=MAX_BODY)
        self._runner: web.AppRunner | None = None
        self._site: _CappedSite | None = None

    @property
    def address(self) -> str:
        """host:port as configured (port 0 stays 0 until started; see `bound_port`)."""
        return f"{self.listen}:{self.port}"

    @property
    def running(self) -> bool:
        """True between `start` and `stop`."""
        return self._runner is not None

    @property
    def bound_port(self) -> int:
        """The port actually listened on (useful when configured as 0)."""
        addresses = self._runner.addresses if self._runner is not None else []
        return int(addresses[0][1]) if addresses else self.port

    def add_route(self, method: str, path: str, handler: Handler) -> None:
        """Serve `method path` (aiohttp path syntax, e.g. `/api/groups/{id}`) by `handler`."""
        if self._runner is not None:
            raise RuntimeError(f"web: {method} {path} added after the server on "
                               f"{self.address} started; add routes before it starts")
        self._app.router.add_route(method, path, handler)

    def add_get(self, path: str, handler: Handler) -> None:
        """GET (and HEAD) `path`."""
        if self._runner is not None:
            raise RuntimeError(f"web: GET {path} added after the server on "
                               f"{self.address} started; add routes before it starts")
        self._app.router.add_get(path, handler)

    def add_post(self, path: str, handler: Handler) -> None:
        """POST `path`."""
        self.add_route("POST", path, handler)

    async def start(self) -> None:
        """Listen (idempotent); a port in use is a ConfigError naming the key."""
        if self._runner is not None:
            return
        # lingering_time=0: a body a handler refused unread (a webhook POST without the
        # secret, 20 MB declared) is not then read and dropped for 10 s to keep the
        # connection: the connection is closed after the answer instead.
        runner = web.AppRunner(self._app, access_log=None, handle_signals=False,
                               shutdown_timeout=SHUTDOWN_GRACE, lingering_time=0,
                               keepalive_timeout=self.idle_seconds, logger=_request_log())
        await runner.setup()
        site = _CappedSite(runner, self.listen, self.port, self.max_connections)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            busy = ("; another program (or another quizbot) has that port: stop it or "
                    f"choose another {self.key}") if exc.errno == errno.EADDRINUSE else ""
            raise ConfigError(f"{self.key}: cannot listen on {self.address}: "
                              f"{exc.strerror or exc}{busy}") from None
        self._runner, self._site = runner, site
        log.info("web: listening on http://%s:%d (%s)", self.listen, self.bound_port,
                 ", ".join(sorted(self.paths())) or "no routes")

    @property
    def connections(self) -> int:
        """Connections open now (tests and the benchmark)."""
        server = self._runner.server if self._runner is not None else None
        return len(server.connections) if server is not None else 0

    @property
    def refused(self) -> int:
        """Connections refused past the cap since the start."""
        factory = self._site.factory if self._site is not None else None
        return factory.refused if factory is not None else 0

    def paths(self) -> set[str]:
        """The paths served (for the start log line and tests)."""
        return {r.canonical for r in self._app.router.resources()}

    async def stop(self) -> None:
        """Stop listening; requests in flight get SHUTDOWN_GRACE seconds."""
        runner, self._runner, self._site = self._runner, None, None
        if runner is not None:
            await runner.cleanup()
