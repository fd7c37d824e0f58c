"""A round's question whose post reached the group but whose answer never came back (the
client's read time-out ran out): it was posted again on the scheduler's retry, so the group
read the same question twice, and the reveal edited the second copy while the first kept
its live buttons. Now such a post is "maybe posted": never sent again, the round keeps its
clock, a press on it says which message to edit, and without a press the reveal is a
message of its own. On the fake Bot API, which delivers the message and then withholds its
answer; the test's clock drives the round."""

from __future__ import annotations

import pytest
from telegram import Bot
from telegram.error import BadRequest, NetworkError

from adapters.telegram.request import AiohttpRequest, maybe_delivered
from bot.domain.round_results import MAYBE_POSTED
from bot.present.i18n import strip_isolates
from bot.store.commands import rounds_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.support import TOKEN, AnswerKey, Running
from tests.adapters.telegram.test_telegram_rounds import GROUP_ID, Room, is_round_question

READ_TIMEOUT = 0.3  # seconds the bot waits for an answer here (5 s in service)


def questions_sent(api: FakeBotAPI, number: int) -> list[dict[str, object]]:
    """Every message posted into the group as question `number` of the round (its letters
    to press: a reveal posted on its own starts the same)."""
    return [c.result for c in api.calls_of("sendMessage", GROUP_ID)
            if str(c.result["text"]).startswith(f"Round · Question {number}/")
            and is_round_question(c.result)]


async def test_a_question_that_arrived_but_timed_out_is_not_posted_twice(
        bot: Running, api: FakeBotAPI, key: AnswerKey, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    request = bot.adapter.application.bot.request
    assert isinstance(request, AiohttpRequest)
    monkeypatch.setattr(request, "_read", READ_TIMEOUT)
    room = Room(bot, api)
    api.stall("sendMessage")  # question 1 reaches the group; its answer never comes
    since = room.hana.mark()
    await room.hana.send("/round 20 3")
    question = await room.question(since)
    await bot.app.scheduler.idle()  # the post's job has given up waiting
    assert await bot.app.store.read(rounds_sql.round_message, 1, 0) == MAYBE_POSTED
    assert any("perhaps posted, so not posted again" in r.getMessage() for r in caplog.records)

    room.advance(4)  # past the scheduler's retry (1 s): the group still has one copy
    right = key.right(question["text"])
    assert await room.press(room.bilal, question, right) == f"🔒 Locked in: {right}"
    since = room.hana.mark()
    room.advance(16)  # its deadline, on the round's clock
    reveal = await room.reveal(since, question)  # the press said where it is: edited
    assert "Got it right: Bilal" in reveal
    assert len(questions_sent(api, 1)) == 1
    edits = api.calls_of("editMessageText", GROUP_ID)
    assert [c.params["message_id"] for c in edits] == [question["message_id"]]

    # question 2 arrives too and times out; nobody presses it: the reveal, with no message
    # to edit, is a message of its own
    api.stall("sendMessage")
    since = room.hana.mark()
    room.advance(5)
    second = await room.question(since)
    await bot.app.scheduler.idle()
    since = room.hana.mark()
    room.advance(20)
    shown = await room.hana.reply(since, lambda m: "Answer:" in str(m.get("text", "")))
    assert "Question 2/3" in strip_isolates(shown["text"])
    assert shown["message_id"] != second["message_id"]
    assert len(questions_sent(api, 2)) == 1
    since = room.hana.mark()
    room.advance(5)
    third = await room.question(since)  # the round goes on, posted as usual
    assert third["text"].startswith("Round · Question 3/3")
    await bot.app.scheduler.idle()
    assert await bot.app.store.read(rounds_sql.round_message, 1, 2) == str(
        third["message_id"])


async def test_what_may_have_reached_telegram(api: FakeBotAPI) -> None:
    """A read time-out or a connection lost mid-call may have done what it asked; a
    connection never made, or Telegram's own error answer, did nothing."""
    chat = api.private_chat(api.user(1001, "Alice"))
    async with Bot(TOKEN, base_url=api.base_url,
                   request=AiohttpRequest(2, read_timeout=READ_TIMEOUT)) as bot:
        failures: list[NetworkError] = []
        for fault in ("stall", "drop", "502"):
            if fault == "stall":
                api.stall("sendMessage")
            elif fault == "drop":
                api.inject("sendMessage", drop=True)
            else:
                api.inject("sendMessage", 502, "Bad Gateway")
            with pytest.raises(NetworkError) as caught:
                await bot.send_message(chat["id"], fault)
            failures.append(caught.value)
        with pytest.raises(BadRequest) as refused:
            await bot.send_message(404, "nobody")
    nowhere = AiohttpRequest(1, connect_timeout=1.0)
    await nowhere.initialize()
    try:
        with pytest.raises(NetworkError) as unreachable:  # nothing listens there
            await nowhere.do_request("http://127.0.0.1:9/bot/sendMessage", "POST")
    finally:
        await nowhere.shutdown()
    assert [maybe_delivered(e) for e in failures] == [True, True, False]
    assert not maybe_delivered(refused.value) and not maybe_delivered(unreachable.value)
