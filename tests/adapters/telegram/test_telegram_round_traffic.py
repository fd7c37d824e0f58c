"""Nobody hogs the bot (issue 18): one member's 40 commands during a question neither delay
its reveal nor fill the group (one reply, the rest dropped quietly; replies have their own
lane under the group's limit), and one user's 1,500 commands cannot hold the processing
slots another user's tap needs."""

from __future__ import annotations

from adapters.telegram.processor import PerUserUpdateProcessor
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner
from tests.adapters.telegram.support import Running
from tests.adapters.telegram.test_telegram_rounds import GROUP_ID, Room

FLOOD = 1500


async def test_forty_commands_during_a_question_do_not_delay_its_reveal(
        bot: Running, api: FakeBotAPI) -> None:
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 10")
    question = await room.question(since)
    deadline = room.clock.now + 10
    since = room.bilal.mark()
    ids = [await room.bilal.send("/leaderboard") for _ in range(40)]
    await api.wait_for(lambda: all(i in api.handed_out for i in ids), what="the 40 handed out")
    first = await room.bilal.reply(since, lambda m: "Leaderboard" in m["text"])
    assert first is not None
    room.advance(10)
    edited = await room.hana.edited(since, lambda m: m["message_id"] == question["message_id"])
    assert "Answer:" in edited["text"]
    edit = next(c for c in api.calls_of("editMessageText", GROUP_ID)
                if c.params["message_id"] == question["message_id"])
    assert edit.time - deadline <= 2.0  # on the test's clock: revealed at its deadline
    replies = [c for c in room.bilal.sent(since, methods=("sendMessage",))
               if "Leaderboard" in c.result["text"]]
    assert len(replies) == 1  # one answer; the other 39 dropped quietly
    assert api.flooded == []


async def test_a_flood_from_one_user_leaves_the_slots_to_everyone_else(
        bot: Running, api: FakeBotAPI) -> None:
    hana = Learner(api, api.user(1001, "Hana"))
    bilal = Learner(api, api.user(2002, "Bilal"))
    since = bilal.mark()
    await bilal.send("/language")
    prompt = await bilal.reply(since)
    for _ in range(FLOOD):
        await hana.send("/stats")
    query = await bilal.press(prompt, "English")
    ack = await bilal.toast(query)
    update_id = api.callback_update[query]
    latency = api.answered[query] - api.handed_out[update_id]
    assert ack.ok and latency < 1.0, f"the tap waited {latency:.2f} s behind the flood"
    application = bot.adapter.application
    assert application is not None
    processor = application.update_processor
    assert isinstance(processor, PerUserUpdateProcessor)
    assert processor.dropped > FLOOD // 2  # the flooder's updates beyond a few were dropped
