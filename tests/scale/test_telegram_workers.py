"""Three `quizbot run` webhook workers on one PostgreSQL behind a round-robin "proxy": each
learner's consecutive taps land on different processes, some taps twice at once; one
worker is SIGKILLed mid-quiz. Every acknowledged answer is kept, none counts twice."""

from __future__ import annotations

import asyncio
import itertools
import sys
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest

from bot.domain.quiz import default_content_dir, load_quizzes
from bot.store import open_url
from bot.store.commands import sessions_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, buttons, is_question
from tests.adapters.telegram.support import TOKEN, WEBHOOK_SECRET, AnswerKey, free_port
from tests.scale.workers import ROOT, Worker, workers, write_yaml

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
PUBLIC_URL = "https://bot.example.test/tg"
LEARNERS, QUESTIONS, KILL_AFTER = 6, 8, 14
DUPLICATE = "You already answered"


class Proxy:
    """What nginx does in deploy/nginx.conf: round robin, next upstream on error."""

    def __init__(self, api: FakeBotAPI, ports: list[int], procs: list[Worker]) -> None:
        self.api, self.ports, self.procs = api, ports, procs
        self._turn = itertools.count()
        self._ids = itertools.count(1)
        self.http = aiohttp.ClientSession()
        self.delivered: list[int] = [0] * len(ports)

    def alive(self, i: int) -> bool:
        return self.procs[i].alive

    async def deliver(self, update: dict[str, Any], copies: int = 1) -> list[int]:
        """POST the update to the next `copies` live workers at once; who got it."""
        update = {"update_id": next(self._ids), **update}
        if "callback_query" in update:
            self.api.callback_update[update["callback_query"]["id"]] = update["update_id"]
        start = next(self._turn)
        order = [(start + k) % len(self.ports) for k in range(len(self.ports))]
        got = await asyncio.gather(*(self._post(update, order[k:] + order[:k])
                                     for k in range(copies)))
        return list(got)

    async def _post(self, update: dict[str, Any], order: list[int]) -> int:
        failures = []
        for i in order:
            if not self.alive(i):
                continue
            try:
                async with self.http.post(f"http://127.0.0.1:{self.ports[i]}/tg", json=update,
                                          headers={SECRET_HEADER: WEBHOOK_SECRET}) as resp:
                    if resp.status == 200:
                        self.delivered[i] += 1
                        return i
                    failures.append(f"worker {i}: HTTP {resp.status}")
            except aiohttp.ClientError as exc:  # it just died: the next upstream
                failures.append(f"worker {i}: {exc!r}")
        raise AssertionError(f"no worker took the update: {failures}")


def question_number(message: dict[str, Any]) -> int:
    return int(message["text"].split("/")[0].split()[-1])


class Player:
    """A learner: right on even questions, wrong on odd ones; re-taps after a dead worker."""

    def __init__(self, api: FakeBotAPI, proxy: Proxy, key: AnswerKey, uid: int) -> None:
        self.api, self.proxy, self.key = api, proxy, key
        self.learner = Learner(api, api.user(uid, f"L{uid}"))
        self.acked: dict[int, bool] = {}  # position -> correct, as the toast said

    async def send(self, text: str) -> dict[str, Any]:
        since = self.learner.mark()
        await self.proxy.deliver(self.api.message(self.learner.user, text, self.learner.chat))
        return await self.learner.reply(since, is_question, timeout=20)

    async def play(self) -> None:
        question = await self.send("/quiz parallelism")
        retap, data = False, ""
        while True:
            number = question_number(question)
            since = self.learner.mark()
            current = self.api.messages[(self.learner.chat_id, question["message_id"])]
            if not retap:
                text = question["text"]
                label = self.key.right(text) if number % 2 else self.key.wrong(text)
                data = next(b["callback_data"] for row in buttons(current) for b in row
                            if b["text"] == label)
            # a retap is the same tap redelivered (the dead worker may have taken the
            # buttons off already, which it only does after storing the answer)
            update = self.api.callback(self.learner.user, current, data)
            qid = update["callback_query"]["id"]
            targets = await self.proxy.deliver(update, copies=2 if number % 3 == 0 else 1)

            def progress(since: int = since, number: int = number) -> dict[str, Any] | None:
                for call in self.learner.sent(since, methods=("sendMessage",)):
                    m = call.result
                    if (is_question(m) and f"Question {number + 1}/" in m["text"]) or \
                            m["text"].startswith("Finished"):
                        return dict(self.api.messages[(self.learner.chat_id, m["message_id"])])
                return None

            toast = await self.api.wait_for(
                lambda qid=qid, t=targets: self._toast(qid) or (
                    not all(self.proxy.alive(i) for i in t) and "dead"), timeout=20,
                what=f"the toast for question {number}")
            if toast != "dead" and DUPLICATE not in toast:
                self.acked[number - 1] = "Correct" in toast
            if toast != "dead" and DUPLICATE in toast and retap:
                if number == QUESTIONS:
                    return  # the dead worker had stored the last answer
                question, retap = await self.send("/quiz parallelism"), False  # resume where we are
                continue
            step = await self.api.wait_for(
                lambda t=targets, p=progress: p() or (
                    not all(self.proxy.alive(i) for i in t) and "dead"), timeout=20,
                what=f"what follows question {number}")
            if step == "dead":
                retap = True  # the same button again, through a live worker
                continue
            if step["text"].startswith("Finished"):
                return
            question, retap = step, False

    def _toast(self, qid: str) -> str | None:
        for call in self.api.calls:
            if call.method == "answerCallbackQuery" and call.ok and \
                    call.params.get("callback_query_id") == qid:
                return str(call.params.get("text", ""))
        return None


@pytest.fixture
async def api() -> Any:
    async with FakeBotAPI(TOKEN) as fake:
        yield fake


async def test_three_webhook_workers_one_killed(tmp_path: Path, api: FakeBotAPI,
                                                postgres_url: str, process_content: Path
                                                ) -> None:
    key = AnswerKey(load_quizzes([default_content_dir()])["parallelism"])
    ports = [free_port() for _ in range(3)]

    def config(i: int) -> Path:
        return write_yaml(tmp_path / f"worker{i}.yaml", {
            "storage": {"url": postgres_url, "pool_size": 4},
            "telegram": {"api_base_url": api.base_url, "mode": "webhook", "webhook": {
                "listen": "127.0.0.1", "port": ports[i], "url_path": "tg",
                "public_url": PUBLIC_URL, "secret_token": WEBHOOK_SECRET, "register": False}},
            "discord": {"enabled": False}, "content": {"dir": str(process_content)},
            "log_level": "INFO"})

    env = {"TELEGRAM_BOT_TOKEN": TOKEN}
    setup = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli", "telegram", "set-webhook", "--config",
        str(config(0)), env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **env},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await asyncio.wait_for(setup.communicate(), 30)
    assert setup.returncode == 0, out
    assert [c.params["url"] for c in api.calls_of("setWebhook")] == [PUBLIC_URL]

    async with workers(3, config, env, ready="webhook listening") as procs:
        assert len(api.calls_of("setWebhook")) == 1  # the workers registered nothing
        proxy = Proxy(api, ports, procs)
        players = [Player(api, proxy, key, 2001 + i) for i in range(LEARNERS)]
        games = [asyncio.create_task(p.play()) for p in players]

        await api.wait_for(lambda: sum(len(p.acked) for p in players) >= KILL_AFTER,
                           timeout=60, what="taps before the kill")
        await procs[1].kill()
        await api._notify()  # wake learners waiting on the dead worker
        async with asyncio.timeout(120):
            await asyncio.gather(*games)
        assert not procs[1].alive and proxy.delivered[1] > 0
        for w in (procs[0], procs[2]):
            assert await w.stop() == 0
        await proxy.http.close()

    store = await open_url(postgres_url)
    conn = await asyncpg.connect(postgres_url)
    try:
        for p in players:
            user = str(p.learner.user["id"])
            assert await store.read(sessions_sql.attempts,
                                    "telegram", user, "parallelism") == (1, 4, 4)
            session = await store.read(sessions_sql.last_finished, "telegram", user, "parallelism")
            assert session is not None
            stored = await store.read(sessions_sql.answers, session.id)
            assert [a.position for a in stored] == list(range(QUESTIONS))
            assert [a.correct for a in stored] == [True, False] * 4  # right on odd numbers
            assert all(stored[pos].correct == ok for pos, ok in p.acked.items())
            assert await conn.fetchval("SELECT COUNT(*) FROM sessions WHERE user_id = $1",
                                       user) == 1
        assert await conn.fetchval("SELECT COUNT(*) FROM answers") == LEARNERS * QUESTIONS
    finally:
        await conn.close()
        await store.close()
    for w in procs:
        assert TOKEN.split(":")[1] not in "\n".join(w.lines)
