"""PostgreSQL going away under a running bot (restarted, the network cut) and coming back,
through a TCP relay the test cuts and restores (the network edge; the shared server itself is
never stopped). Every request used to fail with a bare ConnectionRefusedError, logged as a bug
with its traceback once per learner's request and once per scheduler turn; now each is
refused as StoreUnreachable ('try again in a minute'), the log says it once per outage, and
the pool carries on when the server answers again."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from urllib.parse import urlsplit, urlunsplit

import pytest

from bot.domain.errors import StoreUnreachable
from bot.features.jobs import Scheduler
from bot.store import open_url
from bot.store.commands import sessions_sql


class Relay:
    """127.0.0.1:<port> relayed to the server; `cut` drops every connection and refuses new
    ones (as a server that went down), `restore` listens again on the same port."""

    def __init__(self, host: str, port: int) -> None:
        self.target, self.port = (host, port), 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def restore(self) -> None:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        assert self._server is not None
        self._server.close()
        for writer in list(self._writers):
            writer.transport.abort()
        await self._server.wait_closed()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self._writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._writers -= {writer, up_writer}


def via(url: str, port: int) -> str:
    parts = urlsplit(url)
    auth = parts.netloc.rpartition("@")[0]
    return urlunsplit(parts._replace(netloc=f"{auth}@127.0.0.1:{port}"))


async def test_a_server_that_goes_away_is_told_once_and_used_again_when_back(
        migrated_postgres_url: str, caplog: pytest.LogCaptureFixture) -> None:
    target = urlsplit(migrated_postgres_url)
    relay = Relay(target.hostname or "127.0.0.1", target.port or 5432)
    await relay.restore()
    store = await open_url(via(migrated_postgres_url, relay.port), pool_size=2)
    try:
        await store.write(sessions_sql.set_language, "t", "1", "ur", time.time())
        await relay.cut()  # the server restarts
        caplog.clear()
        for _ in range(3):
            with pytest.raises(StoreUnreachable):
                await store.write(sessions_sql.set_language, "t", "2", "ur", time.time())
            with pytest.raises(StoreUnreachable):
                await store.read(sessions_sql.user, "t", "1")
        turns = asyncio.Queue[float]()

        async def counted(wakeup: asyncio.Event, seconds: float) -> None:
            turns.put_nowait(seconds)
            await asyncio.sleep(0)  # the next turn at once: no waiting in a test

        scheduler = Scheduler(store, clock=time.time, wait=counted)
        scheduler.start()  # the bot's job loop, looking for due work while the server is away
        for _ in range(3):
            await asyncio.wait_for(turns.get(), 10)
        await scheduler.stop()
        # (asyncpg's pool says, backing off from 1 s to 60 s, that it cannot reconnect)
        said = [r.getMessage() for r in caplog.records
                if r.levelno >= logging.WARNING and r.name.startswith("bot.")]
        assert len(said) == 1 and "does not answer" in said[0], said
        assert "devpass" not in said[0] and "secret" not in said[0]  # the URL is redacted
        await relay.restore()  # back
        await store.write(sessions_sql.set_language, "t", "2", "en", time.time())
        assert await store.read(sessions_sql.user, "t", "1") is not None
        assert "answers again" in [r.getMessage() for r in caplog.records
                                   if r.name == "bot.store.postgres"][-1]
    finally:
        await store.close()
        with contextlib.suppress(AssertionError):
            await relay.cut()
