"""An idle bot on Telegram writes nothing: polling the (fake) Bot API, with the scheduler
running what `quizbot run` gives it (reminders, housekeeping, the questions of the day,
the rounds' posts) and nothing due, a minute passes without one write transaction."""

from __future__ import annotations

import time

from bot.app.compose import serve_jobs
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner
from tests.adapters.telegram.support import Running
from tests.idle import idle_minute


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
