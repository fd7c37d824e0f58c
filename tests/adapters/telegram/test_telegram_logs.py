"""The token never reaches a log line, even at DEBUG with every library talking."""

from __future__ import annotations

import logging

import pytest

from bot.app.logs import MASK
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, is_question
from tests.adapters.telegram.support import SECRET_PART, TOKEN, AnswerKey, BotFactory


async def test_token_absent_from_debug_logs(start_bot: BotFactory, api: FakeBotAPI,
                                            key: AnswerKey,
                                            caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with start_bot():
        learner = Learner(api, api.user(1001, "Alice"))
        since = learner.mark()
        await learner.send("/quiz parallelism")
        question = await learner.reply(since, is_question)
        await learner.press(question, key.right(question["text"]))
        await learner.reply(since, lambda m: is_question(m) and "2/8" in m["text"])
        # What a careless library or a failing request could log:
        logging.getLogger("telegram.ext.Updater").debug("GET %s/bot%s/getMe", api.base_url,
                                                        TOKEN)
        logging.getLogger("httpx").warning("HTTP Request: POST %s%s/sendMessage",
                                           api.base_url, TOKEN)
        try:
            raise ConnectionError(f"cannot reach {api.base_url}{TOKEN}/getUpdates")
        except ConnectionError:
            logging.getLogger("telegram.ext").warning("network trouble", exc_info=True)
    text = caplog.text
    assert "Calling Bot API endpoint `getUpdates`" in text  # debug logging really was on
    assert text.count(MASK) >= 3
    assert TOKEN not in text and SECRET_PART not in text
    for record in caplog.records:
        assert SECRET_PART not in record.getMessage()
    # The filters leave with the adapter: nothing lingers on the handlers.
    assert not any(f for h in logging.getLogger().handlers for f in h.filters
                   if type(f).__name__ == "RedactSecrets")
