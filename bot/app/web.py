"""One small HTTP server (aiohttp) that features and adapters put their routes on.

`Web` holds one `WebServer` per address. `web.listen`/`web.port` name the main one; the
Telegram webhook (`telegram.webhook.listen`/`.port`) and `/healthz` + `/metrics`
(`metrics.listen`/`.port`) ask `Web.server(...)` for their address and so share the main
server when they name the same address, or get one of their own.

Routes are added before a server starts (aiohttp freezes its router then): a feature adds
its routes while the app is built (`open_app`), an adapter in its `start` before it starts
the server it needs. The composition root starts whatever is left and, when the app
closes, stops every server. No access log: request lines may carry signed links.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from bot.domain.errors import ConfigError

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# What aiohttp reads through request.read()/json() at most; a handler that must refuse a
# big body without reading it checks request.content_length itself.
MAX_BODY = 1 << 20
SHUTDOWN_GRACE = 5.0  # seconds requests in flight get when a server stops


class WebServer:
    """One aiohttp application listening on one address."""

    def __init__(self, listen: str, port: int, *, key: str) -> None:
        # `key` names the config key the address came from, for a clear bind error.
        self.listen, self.port, self.key = listen, port, key
        self._app = web.Application(client_max_size=MAX_BODY)
        self._runner: web.AppRunner | None = None

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
                               shutdown_timeout=SHUTDOWN_GRACE, lingering_time=0)
        await runner.setup()
        site = web.TCPSite(runner, self.listen, self.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise ConfigError(f"{self.key}: cannot listen on {self.address}: "
                              f"{exc.strerror or exc}") from None
        self._runner = runner
        log.info("web: listening on http://%s:%d (%s)", self.listen, self.bound_port,
                 ", ".join(sorted(self.paths())) or "no routes")

    def paths(self) -> set[str]:
        """The paths served (for the start log line and tests)."""
        return {r.canonical for r in self._app.router.resources()}

    async def stop(self) -> None:
        """Stop listening; requests in flight get SHUTDOWN_GRACE seconds."""
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()


class Web:
    """Every HTTP server of the process, one per address; the composition root owns it."""

    def __init__(self, listen: str = "127.0.0.1", port: int | None = None) -> None:
        self._servers: dict[tuple[str, int], WebServer] = {}
        self.main: WebServer | None = None  # the `web.port` server, None when it is off
        if port is not None:
            self.main = self.server(listen, port, key="web.port")

    def server(self, listen: str, port: int, *, key: str) -> WebServer:
        """The server on listen:port, made on first ask; the same object for the same
        address, so features naming one address share one listening socket."""
        if port == 0:  # an ephemeral port is never shared (tests)
            made = WebServer(listen, 0, key=key)
            self._servers[(listen, -len(self._servers) - 1)] = made
            return made
        found = self._servers.get((listen, port))
        if found is None:
            found = self._servers[(listen, port)] = WebServer(listen, port, key=key)
        return found

    def servers(self) -> list[WebServer]:
        """Every server asked for so far."""
        return list(self._servers.values())

    async def start(self) -> None:
        """Start every server not started yet (those that have routes)."""
        for server in self.servers():
            if server.paths():
                await server.start()

    async def close(self) -> None:
        """Stop every server."""
        for server in reversed(self.servers()):
            await server.stop()
