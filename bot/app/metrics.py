"""Prometheus metrics and the /healthz + /metrics HTTP endpoint (off unless metrics.port).

Each `Metrics` owns a private `CollectorRegistry` (never prometheus-client's global one), so
two apps in one process, or one test after another, never share counters. The two routes go
on a `bot.app.web` server: metrics.listen:port, the main web server when it is the same
address.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Protocol

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram
from prometheus_client.exposition import generate_latest

from bot.domain.observer import Observer as Observer  # the engine's side of the hook

if TYPE_CHECKING:  # aiohttp loads only where a server runs (bot.app.web)
    from aiohttp import web

    from bot.app.web_server import WebServer

log = logging.getLogger(__name__)

# Taps are acknowledged in milliseconds (README "Performance"); Telegram gives up after ~15 s.
ACK_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0)
COMMIT_BUCKETS = (0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
DB_TIMEOUT = 2.0  # seconds /healthz waits for the database before calling it down


class Metrics:
    """Every quizbot metric, on a registry of its own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.answers = Counter("quizbot_answers", "Answers recorded (first deliveries only)",
                               ["platform", "correct"], registry=r)
        self.sessions_started = Counter("quizbot_sessions_started",
                                        "Quiz and review sessions started", ["platform"],
                                        registry=r)
        self.sessions_finished = Counter("quizbot_sessions_finished",
                                         "Sessions whose last question was answered",
                                         ["platform"], registry=r)
        self.api_errors = Counter("quizbot_platform_api_errors",
                                  "Failed calls to the Telegram or Discord API, by kind",
                                  ["platform", "kind"], registry=r)
        self.ack_seconds = Histogram("quizbot_tap_ack_seconds",
                                     "From a tap reaching the handler to its acknowledgement",
                                     ["platform"], buckets=ACK_BUCKETS, registry=r)
        self.web_limited = Counter("quizbot_web_rate_limited",
                                   "Dashboard API requests refused with 429, by the limit "
                                   "that refused them", ["limit"], registry=r)
        self._limited = {k: self.web_limited.labels(k) for k in ("address", "learner")}
        self.commit_seconds = Histogram("quizbot_db_commit_seconds",
                                        "Duration of one group commit (batch of writes)",
                                        buckets=COMMIT_BUCKETS, registry=r)

    def answer_recorded(self, platform: str, correct: bool) -> None:
        """One new answer was committed."""
        self.answers.labels(platform, "true" if correct else "false").inc()

    def session_started(self, platform: str) -> None:
        """A quiz or review session was created."""
        self.sessions_started.labels(platform).inc()

    def session_finished(self, platform: str) -> None:
        """A session's last answer was committed."""
        self.sessions_finished.labels(platform).inc()

    def api_error(self, platform: str, kind: str) -> None:
        """A platform API call failed; `kind` is short and bounded (e.g. forbidden)."""
        self.api_errors.labels(platform, kind).inc()

    def observe_ack(self, platform: str, seconds: float) -> None:
        """A tap was acknowledged `seconds` after its handler began."""
        self.ack_seconds.labels(platform).observe(seconds)

    def rate_limited(self, limit: str) -> None:
        """A dashboard API request was refused by the "address" or "learner" limit."""
        self._limited[limit].inc()

    def observe_commit(self, seconds: float) -> None:
        """A database commit took `seconds`."""
        self.commit_seconds.observe(seconds)

    def exposition(self) -> bytes:
        """Everything, in the Prometheus text format."""
        return generate_latest(self.registry)


class Connected(Protocol):
    name: str

    def connected(self) -> bool: ...


class Health:
    """Healthy when the database answers and every expected adapter is connected."""

    def __init__(self, ping_db: Callable[[], Awaitable[object]], expected: Sequence[str],
                 adapters: Sequence[Connected]) -> None:
        # `adapters` is the live list `quizbot run` appends to as each one starts.
        self.ping_db, self.expected, self.adapters = ping_db, tuple(expected), adapters

    async def check(self) -> tuple[bool, list[str]]:
        """(healthy, one line per component)."""
        lines, healthy = [], True
        try:
            await asyncio.wait_for(self.ping_db(), DB_TIMEOUT)
            lines.append("database: ok")
        except Exception as exc:  # any failure to answer is "down"
            healthy = False
            lines.append(f"database: down ({type(exc).__name__})")
        running = {a.name: a for a in self.adapters}
        for name in self.expected:
            adapter = running.get(name)
            up = adapter is not None and adapter.connected()
            healthy = healthy and up
            lines.append(f"{name}: {'connected' if up else 'not connected'}")
        return healthy, lines


def mount(server: WebServer, metrics: Metrics, health: Health) -> None:
    """Serve GET /healthz and GET /metrics on `server`."""
    from aiohttp import web

    async def metrics_page(_: web.Request) -> web.Response:
        response = web.Response(body=metrics.exposition())
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response

    async def healthz(_: web.Request) -> web.Response:
        healthy, lines = await health.check()
        return web.Response(text="\n".join(lines) + "\n", status=200 if healthy else 503)

    server.add_get("/metrics", metrics_page)
    server.add_get("/healthz", healthz)


@asynccontextmanager
async def serve(metrics: Metrics, health: Health, host: str, port: int
                ) -> AsyncIterator[WebServer]:
    """Serve GET /healthz and GET /metrics on a server of their own until the block exits."""
    from bot.app.web_server import WebServer

    server = WebServer(host, port, key="metrics.port")
    mount(server, metrics, health)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
