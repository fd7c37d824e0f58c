"""One small HTTP server (aiohttp) that features and adapters put their routes on.

`Web` holds one `WebServer` per address. `web.listen`/`web.port` name the main one; the
Telegram webhook (`telegram.webhook.listen`/`.port`) and `/healthz` + `/metrics`
(`metrics.listen`/`.port`) ask `Web.server(...)` for their address and so share the main
server when they name the same address, or get one of their own.

Routes are added before a server starts (aiohttp freezes its router then): a feature adds
its routes while the app is built (`open_app`), an adapter in its `start` before it starts
the server it needs. The composition root starts whatever is left and, when the app
closes, stops every server. No access log: request lines may carry signed links.

Each server is a `bot.app.web_server.WebServer` (aiohttp, holding under abuse), imported
when the first one is asked for: a process that serves nothing never loads aiohttp.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.app.web_server import WebServer


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
        from bot.app.web_server import WebServer  # aiohttp: only once a server is wanted

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
