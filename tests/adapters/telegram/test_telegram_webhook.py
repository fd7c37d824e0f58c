"""Webhook mode: PTB's own server on 127.0.0.1 rejects a wrong secret before the engine."""

from __future__ import annotations

import aiohttp

from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, is_question
from tests.adapters.telegram.support import WEBHOOK_SECRET, BotFactory, free_port

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
        assert not api.calls_of("getUpdates")  # no polling in webhook mode

        since = learner.mark()
        update = {"update_id": 1, **api.message(learner.user, "/quiz")}
        for headers in ({SECRET_HEADER: "guess"}, {}):
            async with http.post(url, json=update, headers=headers) as response:
                assert response.status == 403
        async with http.post(url, json={"update_id": 2, **api.message(learner.user, "/stats")},
                             headers={SECRET_HEADER: WEBHOOK_SECRET + "x"}) as response:
            assert response.status == 403
        assert await running.app.store.active_session("telegram", "1001", "parallelism") is None
        assert learner.sent(since) == []

        async with http.post(url, json=update,
                             headers={SECRET_HEADER: WEBHOOK_SECRET}) as response:
            assert response.status == 200
        question = await learner.reply(since, is_question)
        assert "Question 1/8" in question["text"]
        # Had a rejected update slipped into the queue it would have run before this one.
        assert [c.result["text"] for c in learner.sent(since)] == [question["text"]]
        assert await running.app.store.active_session("telegram", "1001", "parallelism")
