"""The two discord.py internals quizbot sets to reach another host (a proxy, the fake
Discord): set only when configured, put back on restore, and still there in discord.py."""

from __future__ import annotations

import inspect

import pytest
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

from adapters.discord.client import Endpoints
from bot.app.config import DISCORD_API


def test_discord_py_still_reads_its_endpoints_from_these_attributes():
    # If discord.py renames either, pointing it elsewhere would silently do nothing.
    assert isinstance(inspect.getattr_static(Route, "BASE", None), str)
    assert isinstance(inspect.getattr_static(DiscordWebSocket, "DEFAULT_GATEWAY", None),
                      yarl.URL)
    # ...and builds each request's URL from it
    assert Route("GET", "/users/@me").url.startswith(Route.BASE)


def test_unset_keys_leave_discord_py_untouched(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(Route, "BASE", "sentinel-rest")
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL("wss://sentinel"))
    endpoints = Endpoints()
    endpoints.point_rest(DISCORD_API)  # discord.api_base_url not set: Discord's own
    endpoints.restore()
    assert (Route.BASE, str(DiscordWebSocket.DEFAULT_GATEWAY)) == ("sentinel-rest",
                                                                   "wss://sentinel")


def test_configured_endpoints_are_set_and_restored(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(Route, "BASE", "sentinel-rest")
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL("wss://sentinel"))
    endpoints = Endpoints()
    endpoints.point_rest("http://127.0.0.1:9/api/v10/")
    endpoints.point_gateway("ws://127.0.0.1:9/gateway")
    assert Route.BASE == "http://127.0.0.1:9/api/v10"
    assert str(DiscordWebSocket.DEFAULT_GATEWAY) == "ws://127.0.0.1:9/gateway"
    endpoints.restore()
    assert (Route.BASE, str(DiscordWebSocket.DEFAULT_GATEWAY)) == ("sentinel-rest",
                                                                   "wss://sentinel")
