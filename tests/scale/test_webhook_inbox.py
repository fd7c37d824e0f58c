"""A webhook worker SIGKILLed right after its 200: the update it acknowledged is in the
inbox, and another worker answers it once its lease runs out, exactly once; and a worker
SIGKILLed after its reply went out (before it could mark the update done) leaves nothing
for another worker to answer again."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest

from adapters.telegram.webhook import LEASE
from bot.domain.quiz import default_content_dir, load_quizzes
from bot.features.jobs import RECHECK
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, buttons, is_question
from tests.adapters.telegram.support import TOKEN, WEBHOOK_SECRET, AnswerKey, free_port
from tests.scale.workers import workers, write_yaml

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# Another worker finds the update at its scheduler's next read (at most RECHECK seconds
# after the POST) and claims it once the lease has run out.
TAKEOVER = LEASE + RECHECK + 15.0


class HeldSends(FakeBotAPI):
    """A Bot API that, once armed, sends the next message to one chat (the learner has it)
    and then holds the answer to that sendMessage until released: its worker is stuck
    after its reply went out."""

    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.hold_chat: int | None = None
        self.holding = asyncio.Event()
        self.release = asyncio.Event()

    async def _api_sendMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        sent = await super()._api_sendMessage(params)
        if self.hold_chat is not None and int(params["chat_id"]) == self.hold_chat:
            self.hold_chat = None
            self.holding.set()
            await self.release.wait()
        return sent


@pytest.fixture
async def api() -> Any:
    async with HeldSends(TOKEN) as fake:
        yield fake
        fake.release.set()


async def post(http: aiohttp.ClientSession, port: int, update: dict[str, Any]) -> int:
    async with http.post(f"http://127.0.0.1:{port}/tg", json=update,
                         headers={SECRET_HEADER: WEBHOOK_SECRET}) as response:
        return response.status


async def test_a_killed_worker_replies_once_and_its_acknowledged_tap_is_answered_once(
        tmp_path: Path, api: HeldSends, postgres_url: str, process_content: Path) -> None:
    key = AnswerKey(load_quizzes([default_content_dir()])["parallelism"])
    ports = [free_port() for _ in range(3)]

    def config(i: int) -> Path:
        return write_yaml(tmp_path / f"worker{i}.yaml", {
            "storage": {"url": postgres_url, "pool_size": 3},
            "telegram": {"api_base_url": api.base_url, "mode": "webhook", "webhook": {
                "listen": "127.0.0.1", "port": ports[i], "url_path": "tg",
                "public_url": "https://bot.example.test/tg", "secret_token": WEBHOOK_SECRET,
                "register": False}},
            "discord": {"enabled": False}, "content": {"dir": str(process_content)},
            "log_level": "INFO"})

    learner = Learner(api, api.user(3001, "Kim"))
    async with (workers(3, config, {"TELEGRAM_BOT_TOKEN": TOKEN},
                        ready="webhook listening") as procs,
                aiohttp.ClientSession() as http):
        since = learner.mark()
        started = {"update_id": 1, **api.message(learner.user, "/quiz parallelism")}
        assert await post(http, ports[0], started) == 200
        question = await learner.reply(since, is_question, timeout=20)
        # worker 1 takes /help, sends its reply and is stuck before marking it done; the
        # learner's tap, which it also acknowledges, waits behind it (one user's updates
        # run in order)
        api.hold_chat = learner.chat_id
        assert await post(http, ports[1], {"update_id": 2, **api.message(learner.user,
                                                                         "/help")}) == 200
        await asyncio.wait_for(api.holding.wait(), 20)
        helps = [m for (chat, _), m in api.messages.items()
                 if chat == learner.chat_id and "/reset" in m.get("text", "")]
        assert len(helps) == 1  # out: the learner has it
        label = key.right(question["text"])
        data = next(b["callback_data"] for row in buttons(question) for b in row
                    if b["text"] == label)
        tap = {"update_id": 3, **api.callback(learner.user, question, data)}
        qid = tap["callback_query"]["id"]
        api.callback_update[qid] = 3
        since = learner.mark()
        assert await post(http, ports[1], tap) == 200
        await procs[1].kill()
        killed = time.monotonic()

        toast = await learner.toast(qid, timeout=TAKEOVER)
        nxt = await learner.reply(since, lambda m: is_question(m)
                                  and "Question 2/8" in m["text"], timeout=TAKEOVER)
        taken_over = time.monotonic() - killed
        assert "Correct" in str(toast.params.get("text")), toast.params
        for w in (procs[0], procs[2]):  # a clean stop: what is in flight finishes first
            assert await w.stop() == 0
        # the /help that went out before its worker died is not sent again (before: the
        # taker replied a second time, 1 learner in 200 saw two replies)
        assert [m for (chat, _), m in api.messages.items()
                if chat == learner.chat_id and "/reset" in m.get("text", "")] == helps
        # answered once: one toast for the tap, one next question
        acks = [c for c in api.calls_of("answerCallbackQuery")
                if c.params.get("callback_query_id") == qid and c.ok]
        assert len(acks) == 1
        assert [m for m in (c.result for c in learner.sent(since)) if is_question(m)] == [nxt]
        assert any("taken over" in line for w in (procs[0], procs[2]) for line in w.lines)
        print(f"tap answered {taken_over:.1f} s after its worker was killed")

    conn = await asyncpg.connect(postgres_url)
    try:
        assert await conn.fetchval("SELECT COUNT(*) FROM answers") == 1
        rows = await conn.fetch("SELECT update_id, done_at IS NOT NULL AS done, attempts "
                                "FROM inbox ORDER BY update_id")
        assert [(r["update_id"], r["done"]) for r in rows] == [(1, True), (2, True), (3, True)]
        # the replied /help was done as its reply went out; only the tap was taken over
        assert [r["attempts"] for r in rows][1:] == [1, 2]
    finally:
        await conn.close()
