"""Start, stop, restart (in process and by killing `quizbot run`), endpoints and shards."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
import warnings
from pathlib import Path

import pytest
from discord.gateway import DiscordWebSocket
from discord.http import Route

from adapters.discord import DiscordAdapter
from bot.app.compose import open_app
from bot.app.config import load_config
from bot.domain.errors import StartupFailed

from .conftest import (
    ALICE,
    GUILD,
    PLAY,
    answer,
    replied,
    right_id,
    running,
    running_adapter,
    write_config,
)
from .fake_discord import FakeDiscord, Message

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_REST, DEFAULT_GATEWAY = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY


async def first_question(fake: FakeDiscord) -> Message:
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options=PLAY))
    assert ix.original is not None
    return ix.original


async def test_buttons_work_after_a_restart_in_process(tmp_path: Path, fake: FakeDiscord,
                                                       ) -> None:
    path = write_config(tmp_path, fake)
    async with running(path):
        assert fake.connections[0]["compress"] == "zlib-stream"
        assert fake.connections[0]["v"] == "10"
        assert fake.identifies[0]["intents"] == 1  # guilds only, nothing privileged
        question = await first_question(fake)
        ix = await answer(fake, ALICE, question, right_id(question))
        question = ix.followups[0]
    assert (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY) == (DEFAULT_REST, DEFAULT_GATEWAY)
    await fake.wait_for(lambda: fake.connected == 0, what="the old connection to close")

    async with running(path):  # a new client, engine and store on the same file
        ix = await answer(fake, ALICE, question, right_id(question))
        assert ix.callback is not None and ix.callback.type == 7
        assert ix.followups[0].embeds[0]["title"].startswith("Question 3/8")
    assert len(fake.identifies) == 2


async def test_buttons_work_after_the_process_was_killed(tmp_path: Path, fake: FakeDiscord,
                                                         process_content: Path) -> None:
    path = write_config(tmp_path, fake, content=process_content)
    env = {**os.environ, "DISCORD_BOT_TOKEN": fake.token, "TELEGRAM_BOT_TOKEN": ""}
    procs: list[asyncio.subprocess.Process] = []

    async def launch(run: int) -> asyncio.subprocess.Process:
        with (tmp_path / f"run{run}.log").open("wb") as log:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "adapters.cli", "run", "--config", str(path),
                cwd=ROOT, env=env, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL, stderr=log)
        procs.append(proc)
        await fake.wait_for(lambda: fake.connected == 1 or proc.returncode is not None,
                            timeout=30, what="quizbot run to connect")
        assert proc.returncode is None, (tmp_path / f"run{run}.log").read_text()
        return proc

    try:
        proc = await launch(1)
        question = await first_question(fake)
        ix = await answer(fake, ALICE, question, right_id(question))
        question = ix.followups[0]
        proc.kill()  # SIGKILL: no goodbye, no cleanup
        await proc.wait()
        await fake.wait_for(lambda: fake.connected == 0, what="the dead bot's socket to close")

        proc = await launch(2)
        ix = await answer(fake, ALICE, question, right_id(question))
        assert ix.callback is not None and ix.callback.type == 7
        assert ix.followups[0].embeds[0]["title"].startswith("Question 3/8")
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), 20) == 0
        assert fake.token not in (tmp_path / "run2.log").read_text()
    finally:
        for p in procs:
            if p.returncode is None:
                p.kill()
                await p.wait()


@pytest.mark.parametrize("shards", ["auto", 2])
async def test_configured_gateway_and_shards(tmp_path: Path, fake: FakeDiscord,
                                             shards: str | int) -> None:
    path = write_config(tmp_path, fake, gateway_url=fake.gateway_url, shards=shards,
                        guild_ids=[])
    async with running(path):
        assert list(fake.commands) == [None]  # no guild_ids: registered globally
        count = 1 if shards == "auto" else 2
        assert sorted(d["shard"][0] for d in fake.identifies) == list(range(count))
        assert all(d["shard"][1] == count for d in fake.identifies)
        question = await first_question(fake)  # in the guild's shard
        await answer(fake, ALICE, question, right_id(question))
        ix = await replied(fake, await fake.slash(ALICE, "leaderboard"))  # a DM: shard 0
        assert ix.original is not None and "Global leaderboard" in ix.original.content


async def test_a_bad_token_fails_start_cleanly(tmp_path: Path, fake: FakeDiscord) -> None:
    config = load_config(write_config(tmp_path, fake), env={"DISCORD_BOT_TOKEN": "wrong"})
    async with open_app(config) as app:
        adapter = DiscordAdapter(app, ready_timeout=10.0)
        with pytest.raises(StartupFailed, match="DISCORD_BOT_TOKEN was rejected"):
            await adapter.start()
    assert (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY) == (DEFAULT_REST, DEFAULT_GATEWAY)
    assert fake.identifies == []


async def test_a_command_that_finishes_after_the_stop_starts_no_handler(
        config_path: Path, fake: FakeDiscord) -> None:
    # A command whose reply was sent when SIGTERM stopped the adapter finishes afterwards, and
    # discord.py's tree then dispatches app_command_completion to the closed client: that
    # raised in the command's task (close() takes the client's loop away) and left a handler
    # coroutine that never ran, warned about at exit (and, in the suite, in a later test).
    async with running_adapter(config_path) as (_, adapter):
        client = adapter.client
        assert client is not None
    assert client.is_closed()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        client.dispatch("app_command_completion", None, None)
        gc.collect()
    assert [str(w.message) for w in seen if "never awaited" in str(w.message)] == []
