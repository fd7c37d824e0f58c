"""Telegram's failure modes: edits that change nothing or miss, blocked users, rate limits,
dropped connections, and our own bugs. No exception reaches the user; the engine stays right."""

from __future__ import annotations

import asyncio
import logging
import traceback
from pathlib import Path

import aiohttp
import pytest

from adapters.telegram import TelegramAdapter
from bot.app.compose import open_app
from bot.app.config import load_config
from bot.domain.errors import ConfigError
from bot.domain.results import Actor
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, buttons, is_question
from tests.adapters.telegram.support import TOKEN, AnswerKey, Running, write_config

ME = Actor("telegram", "1001")


def alice(api: FakeBotAPI) -> Learner:
    return Learner(api, api.user(1001, "Alice"))


async def test_edit_that_changes_nothing_is_ignored(bot: Running, api: FakeBotAPI) -> None:
    learner = alice(api)
    since = learner.mark()
    await learner.send("/start")
    welcome = await learner.reply(since)
    since = learner.mark()
    first = await learner.tap(welcome, "q1:lang:en")
    second = await learner.tap(welcome, "q1:lang:en")  # the same edit again
    await learner.toast(first)
    await learner.toast(second)
    until = await learner.barrier()
    assert [c.error for c in api.calls[since:until] if c.method == "editMessageText"] == [
        None, api.errors_of("editMessageText")[0].error]
    assert "message is not modified" in api.errors_of("editMessageText")[0].error
    assert learner.sent(since, until, methods=("sendMessage",)) == []  # no apology sent


async def test_vanished_question_message_gets_a_fresh_one(bot: Running, api: FakeBotAPI,
                                                          key: AnswerKey) -> None:
    learner = alice(api)
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    update = api.callback(learner.user, question, "")
    letter = key.right(question["text"])
    row = buttons(question)[0]
    update["callback_query"]["data"] = next(b["callback_data"] for b in row
                                            if b["text"] == letter)
    del api.messages[(learner.chat_id, question["message_id"])]  # deleted meanwhile
    since = learner.mark()
    await api.push_update(update)
    nxt = await learner.reply(since, is_question)
    assert "Question 2/8" in nxt["text"]
    assert "message to edit not found" in api.errors_of("editMessageText")[0].error
    fresh = [c.result["text"] for c in learner.sent(since, methods=("sendMessage",))]
    assert fresh[0].startswith("Question 1/8") and "✅ Correct!" in fresh[0]  # answered + why
    assert fresh[1].startswith("Question 2/8")


async def test_blocked_user_is_dropped_quietly_and_state_stays_right(
        bot: Running, api: FakeBotAPI, key: AnswerKey, caplog: pytest.LogCaptureFixture,
) -> None:
    learner = alice(api)
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    api.blocked.add(learner.chat_id)
    query = await learner.press(question, key.right(question["text"]))
    await learner.toast(query)  # answering a tap works even when messages cannot
    await api.wait_for(lambda: api.errors_of("editMessageText"))
    api.blocked.clear()
    await learner.barrier()
    assert any("blocked the bot" in r.getMessage() for r in caplog.records
               if r.levelno == logging.INFO)
    assert (await bot.app.engine.current(ME)).position == 1  # the answer counted
    since = learner.mark()
    await learner.send("/quiz parallelism")
    resumed = await learner.reply(since, is_question)
    assert "Question 2/8" in resumed["text"]


async def test_rate_limit_is_retried(bot: Running, api: FakeBotAPI) -> None:
    learner = alice(api)
    api.rate_limit("sendMessage", retry_after=1)
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    assert "Question 1/8" in question["text"]
    assert [c.error for c in api.calls[since:] if c.method == "sendMessage"][:2] == [
        "Too Many Requests: retry after 1", None]


async def test_rate_limit_beyond_retries_does_not_escape(
        bot: Running, api: FakeBotAPI, caplog: pytest.LogCaptureFixture) -> None:
    learner = alice(api)
    api.rate_limit("sendMessage", retry_after=1, times=4)  # AIORateLimiter retries 3 times
    since = learner.mark()
    await learner.send("/quiz parallelism")
    await learner.barrier()
    assert len(api.errors_of("sendMessage")) == 4
    assert any("reply to chat 1001 failed" in r.getMessage() for r in caplog.records)
    caplog.clear()  # PTB's limiter logs the last RetryAfter at ERROR itself
    await learner.send("/quiz parallelism")
    assert "Question 1/8" in (await learner.reply(since, is_question))["text"]


async def test_dropped_connection_does_not_escape(bot: Running, api: FakeBotAPI,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    learner = alice(api)
    api.inject("sendMessage", drop=True)
    since = learner.mark()
    await learner.send("/stats")
    until = await learner.barrier()
    assert learner.sent(since, until) == []
    assert any("reply to chat 1001 failed" in r.getMessage() for r in caplog.records)
    since = learner.mark()
    await learner.send("/stats")
    stats = await learner.reply(since)
    assert stats["text"].startswith("Your stats:")


async def test_unexpected_error_gets_an_apology_and_a_log(
        bot: Running, api: FakeBotAPI, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(bot.app.engine, "stats", broken)
    learner = alice(api)
    since = learner.mark()
    await learner.send("/stats")
    apology = await learner.reply(since)
    assert apology["text"] == bot.cat.t("en", "error.generic")
    failures = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert failures and "disk on fire" in failures[0].exc_text
    caplog.clear()


async def test_quiz_error_from_a_button_is_an_alert(bot: Running, api: FakeBotAPI) -> None:
    learner = alice(api)
    since = learner.mark()
    await learner.send("/start")
    welcome = await learner.reply(since)
    query = await learner.tap(welcome, "q1:review:parallelism")
    toast = await learner.toast(query)
    assert toast.params["text"] == bot.cat.t("en", "error.nothing_to_review")
    assert toast.params["show_alert"] is True


async def test_failure_after_the_toast_still_tells_the_user(
        bot: Running, api: FakeBotAPI, key: AnswerKey,
        caplog: pytest.LogCaptureFixture) -> None:
    learner = alice(api)
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    api.inject("editMessageText", 400, "Bad Request: can't parse entities: boom")
    since = learner.mark()
    query = await learner.press(question, key.right(question["text"]))
    assert (await learner.toast(query)).params["text"] == bot.cat.t("en", "answer.toast_correct")
    apology = await learner.reply(since)
    assert apology["text"] == bot.cat.t("en", "error.generic")
    assert [r for r in caplog.records if r.levelno == logging.ERROR]
    caplog.clear()
    assert (await bot.app.engine.current(ME)).position == 1  # the engine kept the answer


async def test_wrong_token_fails_fast_and_cleans_up(tmp_path: Path, api: FakeBotAPI) -> None:
    config = load_config(write_config(tmp_path, api),
                         env={"TELEGRAM_BOT_TOKEN": "999:AAWrongTokenWrongTokenWrong"})
    async with open_app(config) as app:
        adapter = TelegramAdapter(app)
        with pytest.raises(ConfigError, match="TELEGRAM_BOT_TOKEN was rejected") as failure:
            await adapter.start()
        await adapter.stop()  # harmless after a failed start
    shown = "".join(traceback.format_exception(failure.value))
    assert "WrongToken" not in shown  # PTB's InvalidToken quotes it; ours must not
    assert api.errors_of("getMe")[0].error == "Unauthorized"
    assert not any(type(f).__name__ == "RedactSecrets"
                   for h in logging.getLogger().handlers for f in h.filters)


async def test_revoked_token_stops_the_adapter(bot: Running, api: FakeBotAPI,
                                               caplog: pytest.LogCaptureFixture) -> None:
    waiter = asyncio.ensure_future(bot.adapter.wait_stopped())
    await asyncio.sleep(0)
    assert not waiter.done()  # running normally
    await api.revoke()
    await asyncio.wait_for(waiter, 10)  # PTB's poll loop gave up; `quizbot run` will exit
    caplog.clear()  # PTB logs the rejected token at ERROR ("Invalid token. Aborting")


async def test_a_second_process_polling_the_token_is_one_line_and_unhealthy(
        tmp_path: Path, api: FakeBotAPI, caplog: pytest.LogCaptureFixture) -> None:
    """Two `quizbot run` on one token: Telegram ends each one's getUpdates with 409 when the
    other polls. One WARNING saying what to do (not PTB's traceback every retry), and the
    adapter counts as not connected (/healthz 503) until the conflicts stop."""
    now = [1_000_000.0]
    config = load_config(write_config(tmp_path, api), env={"TELEGRAM_BOT_TOKEN": TOKEN})

    async def other_process_polls() -> None:
        async with aiohttp.ClientSession() as http, http.post(
                f"{api.base_url}{TOKEN}/getUpdates", json={"timeout": 0}) as response:
            assert response.status == 200

    async with open_app(config, clock=lambda: now[0]) as app:
        adapter = TelegramAdapter(app)
        await adapter.start()
        try:
            await api.wait_for(lambda: api.polls >= 1, what="the adapter's poll")
            assert adapter.connected()
            for _ in range(2):  # two conflicts in one episode: told once
                polls = api.polls  # the adapter's poll is waiting
                await other_process_polls()  # ends it with 409
                # PTB called back, waited its back-off, and the adapter polls again
                await api.wait_for(lambda p=polls: api.polls >= p + 2,
                                   what="the adapter polling again after its 409")
                assert not adapter.connected()
            now[0] += 61  # no 409 for a minute: the other process is gone
            assert adapter.connected()
        finally:
            await adapter.stop()
    told = [r for r in caplog.records if r.name.startswith("adapters.telegram")
            and "another process" in r.getMessage()]
    assert len(told) == 1 and told[0].levelno == logging.WARNING
    assert "stop the other quizbot run" in told[0].getMessage()
    assert not [r for r in caplog.records if r.exc_info and r.name.startswith("telegram")]

MUTED = "Bad Request: not enough rights to send text messages to the chat"


async def tried_in_a_group(api: FakeBotAPI, description: str, refusals: int) -> list[str]:
    """A member types /help in a group whose posts Telegram refuses with `description` until
    `refusals` sends were refused; then the group lets the bot post again and the member
    sends /help once more. Returns every text the bot tried to send there."""
    group = api.group_chat(-1007770001, "Muted readers")
    member = Learner(api, api.user(1001, "Alice"), group)
    api.inject("sendMessage", 400, description, times=1000)
    since = member.mark()
    await member.send("/help")
    await api.wait_for(lambda: len(api.errors_of("sendMessage")) >= refusals)
    api.heal()
    await member.barrier()
    return [str(c.params.get("text")) for c in api.calls[since:]
                    if c.method == "sendMessage" and c.params.get("chat_id") == group["id"]]


async def test_a_group_that_muted_the_bot_gets_no_apology_loop(
        bot: Running, api: FakeBotAPI, caplog: pytest.LogCaptureFixture) -> None:
    """An admin took the bot's right to post: the reply is dropped with an INFO line. It was
    logged as our bug and apologised for, and the apology, refused alike, was apologised for
    again, without end (an ERROR and a send every few seconds until the right came back,
    then 'Something went wrong' in the group)."""
    tried = await tried_in_a_group(api, MUTED, refusals=1)
    generic = bot.cat.t("en", "error.generic")
    assert len(tried) == 2 and generic not in tried  # the refused /help, the answered one
    assert len(api.errors_of("sendMessage")) == 1
    assert any("does not let the bot post" in r.getMessage() for r in caplog.records
               if r.levelno == logging.INFO)


async def test_a_refused_apology_is_not_apologised_for(
        bot: Running, api: FakeBotAPI, caplog: pytest.LogCaptureFixture) -> None:
    """Telegram refuses a reply as our bug would (bad entities): one apology is tried, and
    when it is refused too, that is logged, not apologised for in a loop."""
    tried = await tried_in_a_group(api, "Bad Request: can't parse entities: boom", 2)
    generic = bot.cat.t("en", "error.generic")
    assert tried[1] == generic and generic not in tried[2:]
    assert len(api.errors_of("sendMessage")) == 2
    assert len([r for r in caplog.records if r.levelno == logging.ERROR]) == 2
    caplog.clear()


async def test_a_groups_rate_limit_holds_up_that_group_only(bot: Running, api: FakeBotAPI
                                                          ) -> None:
    """Telegram's 429 for posting too fast into one group (retry after up to a minute, in a
    round) paused every call of the bot: PTB's limiter waits out any RetryAfter for all
    chats, so a private learner's reply waited for another group's flood limit."""
    group = api.group_chat(-1001234500002, "Parallel readers")
    hana, learner = Learner(api, api.user(2002, "Hana"), group), alice(api)
    api.rate_limit("sendMessage", retry_after=5)
    since = hana.mark()
    await hana.send("/help")  # its reply into the group meets the 429
    await api.wait_for(lambda: api.errors_of("sendMessage"), what="the group's 429")
    limited = asyncio.get_running_loop().time()
    mine = learner.mark()
    await learner.send("/stats")
    stats = await learner.reply(mine)
    waited = asyncio.get_running_loop().time() - limited
    assert stats["text"].startswith("Your stats:")
    assert waited < 4 and hana.sent(since) == [], waited  # the group still waits its turn
    assert "/quiz" in (await hana.reply(since))["text"]  # then gets its reply
