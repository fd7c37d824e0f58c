"""One press, one ack: the Bot API calls each kind of press costs on the fake Bot API.

A press is decoded once, routed once and rendered once; whatever it is, its callback query
is answered exactly once, and a press that only acknowledges makes no other call."""

from __future__ import annotations

from typing import Any

from bot.domain import payloads as payload
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data, buttons
from tests.adapters.telegram.support import AnswerKey, Running
from tests.adapters.telegram.test_telegram_rounds import Room

ACK_ONLY = ["answerCallbackQuery"]


def data_of(message: dict[str, Any], label: str) -> str:
    """The callback data of the button labelled `label`."""
    return next(str(b["callback_data"]) for row in buttons(message) for b in row
                if b["text"] == label)


async def calls_of_press(learner: Learner, message: dict[str, Any], data: str
                         ) -> tuple[list[str], dict[str, Any]]:
    """The Bot API methods one tap caused (up to the presser's next /help reply in their
    private chat: one user's updates run in order, and a group in a round answers only one
    /help per member), and the parameters of its one answerCallbackQuery."""
    since = learner.mark()
    query = await learner.tap(message, data)
    toast = await learner.toast(query)
    until = await Learner(learner.api, learner.user).barrier()
    calls = [c.method for c in learner.api.calls[since:until]
             if c.method not in ("getUpdates", "getMe", "getChatMember") and c.ok]
    assert calls.count("answerCallbackQuery") == 1, calls
    return calls, toast.params


async def test_round_presses_and_refusals_cost_one_call(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    right = key.right(question["text"])
    data = data_of(question, right)

    calls, toast = await calls_of_press(room.hana, question, data)  # locked in
    assert (calls, toast["text"]) == (ACK_ONLY, f"🔒 Locked in: {right}")
    calls, toast = await calls_of_press(room.hana, question, data)  # pressed again
    assert calls == ACK_ONLY and toast["text"].startswith(f"Already locked in: {right}")
    calls, toast = await calls_of_press(room.bilal, question, "a1:zz:0:0")  # forged, shared
    assert (calls, toast["text"]) == (ACK_ONLY, bot.cat.t("en", "round.misplaced"))
    assert toast["show_alert"] is True
    calls, toast = await calls_of_press(room.bilal, question, "q2:nope:1:x")  # unknown kind
    assert (calls, toast["text"]) == (ACK_ONLY, bot.cat.t("en", "round.button_gone"))
    owned = payload.StartPayload.of("1001", "parallelism").pack()  # Hana's, not Chen's
    calls, toast = await calls_of_press(room.chen, question, owned)
    assert (calls, toast["text"]) == (ACK_ONLY, bot.cat.t("en", "error.not_your_button",
                                                          command="/quiz"))

    since = room.hana.mark()
    room.advance(20)  # the deadline: the question becomes its reveal
    reveal = await room.hana.edited(since, lambda m: m["message_id"] == question["message_id"])
    who = data_of(reveal, "📖 Why? · Who answered")
    calls, toast = await calls_of_press(room.chen, reveal, who)  # opens the private chat
    assert calls == ACK_ONLY and toast["url"].startswith("https://t.me/")


async def test_an_answer_is_one_ack_one_edit_one_message(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    learner = Learner(api, api.user(1001, "Alice"))
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, lambda m: any(
        d.startswith("a1:") for d in button_data(m)))
    text = question["text"]
    data = data_of(question, key.right(text))
    calls, toast = await calls_of_press(learner, question, data)
    assert calls[0] == "answerCallbackQuery" and toast["text"]
    assert calls in (["answerCallbackQuery", "editMessageText", "sendMessage"],
                     ["answerCallbackQuery", "editMessageText", "sendPhoto", "sendMessage"])
    again, toast = await calls_of_press(learner, question, data)  # a double tap
    assert again == ACK_ONLY and toast["text"]
