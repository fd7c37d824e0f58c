"""bot.app.web: one server per address, routes before start, a clear line for a busy port."""

from __future__ import annotations

import socket
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from bot.app.config import load_config
from bot.app.metrics import Health, Metrics, mount
from bot.app.web import Web
from bot.domain.errors import ConfigError


async def hello(_: web.Request) -> web.Response:
    return web.Response(text="hello")


async def group(request: web.Request) -> web.Response:
    return web.json_response({"id": request.match_info["id"]})


async def fetch(port: int, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, \
            http.get(f"http://127.0.0.1:{port}{path}") as response:
        return response.status, await response.text()


def taken_port() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


async def test_one_server_per_address_serves_every_route() -> None:
    probe = taken_port()
    port = probe.getsockname()[1]
    probe.close()
    web_ = Web("127.0.0.1", port)
    assert web_.main is not None
    # the metrics key naming the same address gets the same server
    shared = web_.server("127.0.0.1", port, key="metrics.port")
    assert shared is web_.main
    web_.main.add_get("/app", hello)
    web_.main.add_get("/api/groups/{id}", group)
    mount(shared, Metrics(), Health(lambda: _ok(), [], []))
    await web_.start()
    try:
        assert await fetch(port, "/app") == (200, "hello")
        assert await fetch(port, "/api/groups/-100") == (200, '{"id": "-100"}')
        assert await fetch(port, "/healthz") == (200, "database: ok\n")
        status, body = await fetch(port, "/metrics")
        assert status == 200 and "quizbot_answers_total" in body
        assert (await fetch(port, "/nope"))[0] == 404
        with pytest.raises(RuntimeError, match="/late added after the server"):
            web_.main.add_get("/late", hello)
    finally:
        await web_.close()
    assert not web_.main.running


async def _ok() -> None:
    return None


async def test_a_busy_port_names_the_key() -> None:
    busy = taken_port()
    try:
        server = Web().server("127.0.0.1", busy.getsockname()[1], key="web.port")
        server.add_get("/app", hello)
        with pytest.raises(ConfigError, match=r"^web\.port: cannot listen on 127\.0\.0\.1:.*"
                                              r"address already in use; another program \(or "
                                              r"another quizbot\) has that port: stop it or "
                                              r"choose another web\.port$"):
            await server.start()
        assert not server.running
    finally:
        busy.close()


async def test_a_server_without_routes_is_not_started() -> None:
    web_ = Web("127.0.0.1", 0)
    await web_.start()
    assert web_.main is not None and not web_.main.running
    await web_.close()


def test_web_keys(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("web:\n  port: 8080\n  public_url: https://quiz.example.org/\n")
    config = load_config(path, env={})
    assert (config.web.port, config.web.listen, config.web.public_url) == (
        8080, "127.0.0.1", "https://quiz.example.org")
    assert load_config(None, env={}).web.port is None
    path.write_text("web:\n  port: 0\n")
    with pytest.raises(ConfigError, match=r"web\.port must be between 1 and 65535"):
        load_config(path, env={})
    path.write_text("web:\n  public_url: ftp://x\n")
    with pytest.raises(ConfigError, match=r"web\.public_url must be a https or http URL"):
        load_config(path, env={})
