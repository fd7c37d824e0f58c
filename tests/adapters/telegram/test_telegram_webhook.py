"""Webhook mode on our server: the secret before the body, 413 unread, 400 for junk, and
every update through the inbox (stored once by id, processed once)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from adapters.telegram.webhook import Inbox, set_webhook
from bot.app.config import Config, load_config
from bot.domain.errors import ConfigError, StartupFailed
from bot.features.jobs import Scheduler
from bot.store.commands import inbox_sql, sessions_sql
from bot.store.rows import InboxRow
from bot.store.sqlite import SQLiteStore
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, is_question
from tests.adapters.telegram.support import TOKEN, WEBHOOK_SECRET, BotFactory, free_port
from tests.clock import FakeClock

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


async def test_webhook_checks_the_secret_token(start_bot: BotFactory, api: FakeBotAPI) -> None:
    port = free_port()
    webhook = {"listen": "127.0.0.1", "port": port, "url_path": "tg-hook",
               "public_url": "https://bot.example.test/tg-hook",
               "secret_token": WEBHOOK_SECRET}
    learner = Learner(api, api.user(1001, "Alice"))
    url = f"http://127.0.0.1:{port}/tg-hook"
    async with (start_bot(mode="webhook", webhook=webhook) as running,
                aiohttp.ClientSession() as http):
        set_hook = api.calls_of("setWebhook")[-1].params
        assert set_hook["url"] == "https://bot.example.test/tg-hook"
        assert set_hook["secret_token"] == WEBHOOK_SECRET
        # the bot removed from a group ends its round at once (test_telegram_round_edges)
        assert api.wanted(api.bot_status(api.group_chat(-1001), learner.user, "member", "left"))
        assert not api.calls_of("getUpdates")  # no polling in webhook mode

        since = learner.mark()
        update = {"update_id": 1, **api.message(learner.user, "/quiz parallelism")}
        for headers in ({SECRET_HEADER: "guess"}, {}):
            async with http.post(url, json=update, headers=headers) as response:
                assert response.status == 403
        async with http.post(url, json={"update_id": 2, **api.message(learner.user, "/stats")},
                             headers={SECRET_HEADER: WEBHOOK_SECRET + "x"}) as response:
            assert response.status == 403
        assert await running.app.store.read(sessions_sql.active_session,
                                            "telegram", "1001", "parallelism") is None
        assert learner.sent(since) == []

        async with http.post(url, json=update,
                             headers={SECRET_HEADER: WEBHOOK_SECRET}) as response:
            assert response.status == 200
        question = await learner.reply(since, is_question)
        assert "Question 1/8" in question["text"]
        # Had a rejected update slipped into the queue it would have run before this one.
        assert [c.result["text"] for c in learner.sent(since)] == [question["text"]]
        assert await running.app.store.read(sessions_sql.active_session,
                                            "telegram", "1001", "parallelism")


def hook_settings(port: int) -> dict[str, Any]:
    return {"listen": "127.0.0.1", "port": port, "url_path": "tg-hook",
            "public_url": "https://bot.example.test/tg-hook", "secret_token": WEBHOOK_SECRET}


async def raw_post(port: int, headers: dict[str, str], body: bytes) -> tuple[int, bytes]:
    """POST with exactly these headers and only `body` sent (however long the declared
    Content-Length); the status and what came back before the server closed."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        head = "".join(f"{k}: {v}\r\n" for k, v in {"Host": "x", **headers}.items())
        writer.write(f"POST /tg-hook HTTP/1.1\r\n{head}\r\n".encode() + body)
        await writer.drain()
        reply = await asyncio.wait_for(reader.read(65536), 5)
        rest = await asyncio.wait_for(reader.read(), 5)  # closed by the server, not us
        return int(reply.split(b" ", 2)[1]), reply + rest
    finally:
        writer.close()


async def test_big_and_unauthenticated_bodies_are_refused_unread(start_bot: BotFactory) -> None:
    port = free_port()
    twenty_mb = str(20 * 1024 * 1024)
    async with start_bot(mode="webhook", webhook=hook_settings(port)) as running:
        # 20 MB declared, 1 KB sent: an answer before the rest is proof it was never read
        status, _ = await raw_post(port, {"Content-Length": twenty_mb}, b"x" * 1024)
        assert status == 403
        status, _ = await raw_post(port, {"Content-Length": twenty_mb,
                                          SECRET_HEADER: WEBHOOK_SECRET}, b"{" * 1024)
        assert status == 413
        assert await running.app.store.write(inbox_sql.inbox_claim,
                                             "telegram", 1e12, 1e12, 10) == []


async def test_a_chunked_body_over_a_mebibyte_gets_413(start_bot: BotFactory) -> None:
    port = free_port()

    async def chunks() -> Any:
        for _ in range(40):
            yield b" " * 65536  # 2.5 MiB of JSON whitespace, no length declared

    async with (start_bot(mode="webhook", webhook=hook_settings(port)),
                aiohttp.ClientSession() as http,
                http.post(f"http://127.0.0.1:{port}/tg-hook", data=chunks(),
                          headers={SECRET_HEADER: WEBHOOK_SECRET}) as response):
        assert response.status == 413


async def test_malformed_updates_get_400(start_bot: BotFactory, api: FakeBotAPI) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/tg-hook"
    headers = {SECRET_HEADER: WEBHOOK_SECRET, "Content-Type": "application/json"}
    bodies = [b'{"update_id": 1, "message": ', b'{"update_id": 1, "x": "\xff\xfe"}',
              b"[1, 2]", b'{"message": {}}', b'{"update_id": "7"}', b'{"update_id": true}',
              b'{"update_id": 3, "x": ' + b"[" * 200_000 + b"]" * 200_000 + b"}",
              b'{"update_id": 3, "x": "a\x00b"}']
    async with (start_bot(mode="webhook", webhook=hook_settings(port)) as running,
                aiohttp.ClientSession() as http):
        for body in bodies:
            async with http.post(url, data=body, headers=headers) as response:
                assert response.status == 400, body
        assert await running.app.store.write(inbox_sql.inbox_claim,
                                             "telegram", 1e12, 1e12, 10) == []
        learner = Learner(api, api.user(1001, "Alice"))
        since = learner.mark()
        async with http.post(url, json={"update_id": 9,
                                        **api.message(learner.user, "/quiz parallelism")},
                             headers={SECRET_HEADER: WEBHOOK_SECRET}) as response:
            assert response.status == 200  # the server is still fine
        await learner.reply(since, is_question)


async def test_an_update_delivered_twice_is_processed_once(start_bot: BotFactory,
                                                           api: FakeBotAPI) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/tg-hook"
    learner = Learner(api, api.user(1001, "Alice"))
    async with (start_bot(mode="webhook", webhook=hook_settings(port)) as running,
                aiohttp.ClientSession() as http):
        since = learner.mark()
        update = {"update_id": 41, **api.message(learner.user, "/quiz parallelism")}
        statuses = []
        for _ in range(2):
            async with http.post(url, json=update,
                                 headers={SECRET_HEADER: WEBHOOK_SECRET}) as response:
                statuses.append(response.status)
        assert statuses == [200, 200]
        await learner.reply(since, is_question)
        since2 = learner.mark()
        async with http.post(url, json={"update_id": 42, **api.message(learner.user, "/help")},
                             headers={SECRET_HEADER: WEBHOOK_SECRET}) as response:
            assert response.status == 200
        await learner.reply(since2, lambda m: "/quiz" in m["text"])  # /help answered
        # one question for the two deliveries of /quiz; both updates marked done (a stop
        # lets what is in flight finish)
        assert sum(is_question(c.result) for c in learner.sent(since)) == 1
        await running.adapter.stop()
        assert await running.app.store.write(inbox_sql.inbox_claim,
                                             "telegram", 1e12, 1e12, 10) == []
        assert not await running.app.store.write(inbox_sql.inbox_put,
                                                 "telegram", 41, "{}", 0.0, 0.0)


async def test_the_scheduler_hands_over_what_a_lost_worker_left(tmp_path: Path) -> None:
    """No loop of the inbox's own: the scheduler reads when the lease of an update another
    worker holds runs out, sleeps until then, and claims it (a write) only then."""
    store = await SQLiteStore.open(tmp_path / "inbox.db")
    clock = FakeClock(1000.0)
    scheduler = Scheduler(store, clock=clock)
    inbox = Inbox(store, WEBHOOK_SECRET, capacity=4, clock=clock, scheduler=scheduler)
    processed: list[int] = []

    async def process(row: InboxRow) -> None:
        processed.append(row.update_id)

    try:
        # a worker that died holds update 9 until 1005; update 8 was done
        await store.write(inbox_sql.inbox_put, "telegram", 9, '{"update_id": 9}', 990.0, 1005.0)
        await store.write(inbox_sql.inbox_put, "telegram", 8, '{"update_id": 8}', 980.0, 990.0)
        await store.write(inbox_sql.inbox_done, "telegram", 8, 985.0)
        commits: list[float] = []
        store.on_commit = commits.append
        inbox.start(process)
        assert await scheduler.next_due() == 1005.0  # read with the jobs, by the one read
        await scheduler.tick()
        assert processed == [] and commits == []  # still held: nothing claimed, no write
        clock.advance(6.0)
        await scheduler.tick()  # its lease ran out: taken over, processed, marked done
        await inbox.stop()  # lets what is in flight finish
        assert processed == [9] and commits
        assert await scheduler.next_due() is None  # nothing undone: nothing to wake for
        assert await store.write(inbox_sql.inbox_claim, "telegram", 1e12, 1e12, 10) == []
    finally:
        await store.close()


async def test_a_busy_worker_finds_a_dead_one_s_update_before_its_recheck(
        tmp_path: Path) -> None:
    """An update coming in wakes the scheduler (once a lease), so a worker taking traffic
    finds what a dead worker left as soon as its lease ran out, not at the 30 s recheck."""
    store = await SQLiteStore.open(tmp_path / "inbox.db")
    clock = FakeClock(1000.0)

    asleep = asyncio.Event()

    async def no_recheck(wakeup: asyncio.Event, seconds: float) -> None:
        asleep.set()
        await wakeup.wait()  # only a wakeup ends the wait: the recheck is far away
        asleep.clear()

    scheduler = Scheduler(store, clock=clock, wait=no_recheck)
    inbox = Inbox(store, WEBHOOK_SECRET, capacity=4, clock=clock, scheduler=scheduler)
    processed: asyncio.Queue[int] = asyncio.Queue()

    async def process(row: InboxRow) -> None:
        processed.put_nowait(row.update_id)

    app = web.Application()
    app.router.add_post("/tg", inbox.receive)
    try:
        # a worker that died holds update 1 until 1010
        await store.write(inbox_sql.inbox_put, "telegram", 1, '{"update_id": 1}', 999.0, 1010.0)
        inbox.start(process)
        scheduler.start()
        async with TestClient(TestServer(app, host="127.0.0.1")) as client:
            await asyncio.wait_for(asleep.wait(), 10)  # it looked: held until 1010
            clock.advance(11.0)
            response = await client.post("/tg", json={"update_id": 2},
                                         headers={SECRET_HEADER: WEBHOOK_SECRET})
            assert response.status == 200
            got = {await asyncio.wait_for(processed.get(), 10) for _ in range(2)}
            assert got == {1, 2}  # its own, and the dead worker's, taken over
    finally:
        await inbox.stop()
        await scheduler.stop()
        await store.close()


async def test_a_long_update_keeps_its_lease(tmp_path: Path) -> None:
    """An update running longer than a third of its lease has it renewed, so no other
    worker takes it over; a quick one costs no renewal."""
    store = await SQLiteStore.open(tmp_path / "inbox.db")
    clock = FakeClock(1000.0)
    naps: asyncio.Queue[float] = asyncio.Queue()
    woken = asyncio.Event()

    async def wait(emptied: asyncio.Event, seconds: float) -> None:  # simulated time
        naps.put_nowait(seconds)
        await woken.wait()
        woken.clear()

    scheduler = Scheduler(store, clock=clock)
    inbox = Inbox(store, WEBHOOK_SECRET, capacity=4, clock=clock, scheduler=scheduler,
                  lease=9.0, wait=wait)
    release = asyncio.Event()

    async def process(row: InboxRow) -> None:
        await release.wait()

    try:
        await store.write(inbox_sql.inbox_put, "telegram", 5, '{"update_id": 5}', 990.0, 995.0)
        inbox.start(process)
        clock.advance(0.0)
        await scheduler.tick()  # taken over at 1000, leased until 1009
        assert await store.read(inbox_sql.inbox_next, "telegram") == 1009.0
        assert await asyncio.wait_for(naps.get(), 5) == 3.0
        clock.advance(3.0)
        woken.set()  # a third of the lease later: renewed to 1012
        assert await asyncio.wait_for(naps.get(), 5) == 3.0
        assert await store.read(inbox_sql.inbox_next, "telegram") == 1012.0
        assert await store.write(inbox_sql.inbox_claim, "telegram", 1010.0, 1020.0, 10) == []
        release.set()
        await inbox.stop()
        assert await store.read(inbox_sql.inbox_next, "telegram") is None
    finally:
        release.set()
        await store.close()


async def test_set_webhook_retries_an_unreachable_api_and_names_a_refused_url(
        tmp_path: Path, api: FakeBotAPI) -> None:
    def config(base: str, timeout: float = 30) -> Config:
        path = tmp_path / "config.yaml"
        path.write_text(yaml.safe_dump({"storage": {"url": f"sqlite:///{tmp_path / 'q.db'}"},
                                        "startup_timeout": timeout, "telegram": {
            "api_base_url": base, "mode": "webhook",
            "webhook": {"public_url": "https://bot.example.test/tg", "register": False}}}))
        return load_config(path, env={"TELEGRAM_BOT_TOKEN": TOKEN,
                                      "TELEGRAM_WEBHOOK_SECRET": WEBHOOK_SECRET})

    # Compose's one-off set-webhook may start before the network is up: retried, then
    # one line (it was a NetworkError traceback at once).
    with pytest.raises(StartupFailed, match=r"could not be reached in 1 s \([2-9] tries"):
        await set_webhook(config(f"http://127.0.0.1:{free_port()}/bot", timeout=1))
    api.inject("setWebhook", 400, "Bad Request: bad webhook: HTTPS url must be provided")
    with pytest.raises(ConfigError, match=r"Telegram refused setWebhook for https://bot\.example"
                                          r"\.test/tg \(Bad webhook: https url must be "
                                          r"provided\); check telegram\.webhook\.public_url"):
        await set_webhook(config(api.base_url))
    assert await set_webhook(config(api.base_url)) == "https://bot.example.test/tg"
    assert api.webhook_secret == WEBHOOK_SECRET


def test_a_webhook_secret_telegram_would_refuse_is_refused_at_load(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("telegram:\n  mode: webhook\n  webhook:\n    public_url: https://x.test/t\n")
    for secret, why in (("my secret!", "has a character outside those"),
                        ("a" * 257, "has 257 characters")):
        with pytest.raises(ConfigError) as refused:
            load_config(path, env={"TELEGRAM_WEBHOOK_SECRET": secret})
        assert str(refused.value) == (
            f"{path}: TELEGRAM_WEBHOOK_SECRET must be 1-256 characters of A-Z a-z 0-9 _ - "
            f"(Telegram refuses others), and it {why}; make one with `openssl rand -hex 32`")
    path.write_text("telegram:\n  webhook:\n    secret_token: 'my secret!'\n")  # any mode
    with pytest.raises(ConfigError, match=r"telegram\.webhook\.secret_token must be 1-256"):
        load_config(path, env={})
    path.write_text("telegram:\n  mode: webhook\n  webhook:\n    public_url: https://x.test/t\n")
    secret = "a" * 256  # the longest Telegram takes
    config = load_config(path, env={"TELEGRAM_WEBHOOK_SECRET": secret})
    assert config.telegram.webhook.secret_token.reveal() == secret


async def test_a_worker_that_does_not_register_says_when_the_registration_is_stale(
        start_bot: BotFactory, api: FakeBotAPI, caplog: pytest.LogCaptureFixture) -> None:
    """Telegram keeps the update kinds the last setWebhook asked for: workers upgraded from a
    quizbot without my_chat_member (`register: false`) never get it until set-webhook runs
    again, and nothing said so."""
    hook = {**hook_settings(free_port()), "register": False}
    fix = "run quizbot telegram set-webhook --config PATH once"
    warnings = lambda: [r.getMessage() for r in caplog.records  # noqa: E731
                        if r.levelno == logging.WARNING and r.name.startswith("adapters")]

    async with start_bot(mode="webhook", webhook=hook):  # nothing registered yet
        assert warnings() == [f"telegram: the webhook Telegram has for this bot is none, not "
                              f"telegram.webhook.public_url {hook['public_url']}, so no update "
                              f"reaches this worker: {fix}"]
    caplog.clear()
    api.webhook_url, api.allowed_updates = hook["public_url"], ["message", "callback_query"]
    async with start_bot(mode="webhook", webhook=hook):  # as the older quizbot left it
        assert warnings() == ["telegram: the webhook was registered by an older quizbot, "
                              "without my_chat_member updates (the bot removed or muted in a "
                              f"group ends its round): {fix}"]
    caplog.clear()
    api.allowed_updates = ["message", "callback_query", "my_chat_member"]
    async with start_bot(mode="webhook", webhook=hook):  # as set-webhook leaves it
        assert warnings() == []
    assert not api.calls_of("setWebhook")  # a worker never registers it itself
