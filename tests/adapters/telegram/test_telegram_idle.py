"""An idle bot on Telegram writes nothing: polling the (fake) Bot API or taking webhook
POSTs, with the scheduler running what `quizbot run` gives it (reminders, housekeeping, the
questions of the day, the rounds' posts, the webhook inbox) and nothing due, a minute passes
without one write transaction."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp

from bot.app.compose import serve_jobs
from bot.store.commands import inbox_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, is_question
from tests.adapters.telegram.support import WEBHOOK_SECRET, BotFactory, Running, free_port
from tests.idle import idle_minute

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


async def test_an_idle_polling_bot_makes_no_write_transaction(bot: Running,
                                                              api: FakeBotAPI) -> None:
    learner = Learner(api, api.user(1001, "Alice"))
    since = learner.mark()
    at = time.strftime("%H:%M", time.gmtime(bot.app.engine.clock() + 12 * 3600))
    await learner.send(f"/remind {at} +00:00")  # work exists, none of it due for hours
    await learner.reply(since)
    await serve_jobs(bot.app, {"telegram": bot.adapter.reminder_sender()})
    assert await idle_minute(bot.app) == []  # a minute of idling: reads only
    assert bot.adapter.connected()  # and polling all along


async def test_an_idle_webhook_bot_leaves_its_inbox_alone(start_bot: BotFactory,
                                                          api: FakeBotAPI) -> None:
    """In webhook mode the inbox has no loop of its own: once its updates are done, an idle
    minute makes no write at all and no read or write of the inbox's own; the scheduler's
    one read (about twice a minute) also asks when an inbox lease next runs out."""
    port = free_port()
    hook = {"listen": "127.0.0.1", "port": port, "url_path": "tg",
            "public_url": "https://bot.example.test/tg", "secret_token": WEBHOOK_SECRET}
    learner = Learner(api, api.user(1001, "Alice"))
    async with (start_bot(mode="webhook", webhook=hook) as running,
                aiohttp.ClientSession() as http):
        await serve_jobs(running.app, {"telegram": running.adapter.reminder_sender()})
        since = learner.mark()
        async with http.post(f"http://127.0.0.1:{port}/tg",
                             json={"update_id": 1,
                                   **api.message(learner.user, "/quiz parallelism")},
                             headers={SECRET_HEADER: WEBHOOK_SECRET}) as response:
            assert response.status == 200
        await learner.reply(since, is_question)
        inbox = running.adapter.inbox
        assert inbox is not None
        while inbox._in_flight:  # its done mark written
            await asyncio.wait(list(inbox._in_flight.values()))
        store = running.app.store
        calls: list[str] = []
        read, write = store.read, store.write

        def counted(door: Any, name: str) -> Any:
            async def run(fn: Any, *args: Any, **kwargs: Any) -> Any:
                follows = [getattr(f, "func", f) for a in args if isinstance(a, list)
                           for f in a]
                if fn.__module__ == inbox_sql.__name__:
                    calls.append(f"inbox {name}")
                elif inbox_sql.inbox_next in follows:
                    calls.append(f"scheduler {name}")
                return await door(fn, *args, **kwargs)
            return run

        store.read, store.write = counted(read, "read"), counted(write, "write")  # type: ignore[method-assign]
        try:
            # Counted in the idle minute only, after the start's housekeeping (its daily
            # prune of done updates is no read or write of the inbox's own).
            assert await idle_minute(running.app, then=calls.clear) == []  # no writes
        finally:
            store.read, store.write = read, write  # type: ignore[method-assign]
        assert not [c for c in calls if c.startswith("inbox")], calls  # none of its own
        assert 1 <= calls.count("scheduler read") <= 6, calls  # the scheduler's rechecks
        assert not [t.get_name() for t in asyncio.all_tasks()
                    if t.get_name().startswith("telegram-")]  # nothing of it waits either
        assert running.adapter.connected()
