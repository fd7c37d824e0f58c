"""/dashboard on Discord: an ephemeral link signed for the user, exchanged for a session
that sees that server's group view (admin rows only with Manage Server)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import yaml
from aiohttp import ClientSession

from adapters.discord import DiscordAdapter
from bot.app.compose import open_app
from bot.app.config import load_config
from tests.adapters.telegram.dashboard_bot import PUBLIC_URL, free_port

from .conftest import ALICE, BOB, CHANNEL, GUILD, TOKEN, replied, write_config
from .fake_discord import FakeDiscord


async def test_dashboard_link_is_ephemeral_signed_and_bound_to_the_server(
        tmp_path: Path, fake: FakeDiscord) -> None:
    path = write_config(tmp_path, fake)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    port = free_port()
    data["web"] = {"port": port, "public_url": PUBLIC_URL}
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    config = load_config(path, env={"DISCORD_BOT_TOKEN": TOKEN})
    fake.permissions[BOB["id"]] = "0"  # no Manage Server
    async with open_app(config) as app:
        adapter = DiscordAdapter(app, ready_timeout=10.0)
        await app.web.start()
        await adapter.start()
        try:
            links = {}
            for who in (ALICE, BOB):
                ix = await replied(fake, await fake.slash(who, "dashboard", guild=GUILD))
                note = ix.original
                assert note is not None and note.ephemeral
                assert note.content == app.catalogue.t("en", "dashboard.link")
                [button] = note.buttons
                url = urlsplit(button["url"])
                assert f"{url.scheme}://{url.netloc}" == PUBLIC_URL and url.path == "/app"
                assert parse_qs(url.query) == {"group": [str(GUILD)]}
                assert url.fragment.startswith("link=")
                links[who["id"]] = url.fragment.removeprefix("link=")
            base = f"http://127.0.0.1:{port}"
            async with ClientSession() as http:
                views = {}
                for user_id, link in links.items():
                    async with http.post(f"{base}/api/session",
                                         headers={"Authorization": f"link {link}"}) as r:
                        assert r.status == 200
                        session = (await r.json())["session"]
                    auth = {"Authorization": f"session {session}"}
                    async with http.get(f"{base}/api/groups/{GUILD}", headers=auth) as r:
                        assert r.status == 200
                        views[user_id] = await r.json()
                    async with http.get(f"{base}/api/groups/{GUILD + 1}", headers=auth) as r:
                        assert r.status == 403
                assert views[ALICE["id"]]["admin"] is True
                assert views[BOB["id"]]["admin"] is False
                # The server's name, noted from the interactions, never its id.
                heading = views[BOB["id"]]["group"]["heading"]
                assert heading == f"Study group · guild {GUILD}"
                assert views[BOB["id"]]["group"]["title"] == f"guild {GUILD}"
                # and the channel's, where rounds and the daily question run
                assert await app.chats.titles("discord", [str(CHANNEL)]) == {
                    str(CHANNEL): f"guild {GUILD} · #quiz"}
                async with http.post(f"{base}/api/session",
                                     headers={"Authorization": "link " + links[BOB["id"]][:-2]}
                                     ) as r:
                    assert r.status == 401
        finally:
            await adapter.stop()
