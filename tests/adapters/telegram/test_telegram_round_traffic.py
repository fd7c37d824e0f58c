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
    assert ack.ok
    # Order, not time (a loaded box is slow either way): between Bilal's tap reaching the
    # bot and its answer, Hana's flood got at most the replies her queue can hold (one
    # running, MAX_QUEUED waiting), not the rest of her 1,500 that arrived before his tap.
    handed, answered = api.handed_out[api.callback_update[query]], api.answered[query]
    application = bot.adapter.application
    assert application is not None
    processor = application.update_processor
    assert isinstance(processor, PerUserUpdateProcessor)
    ahead = [c for c in api.calls_of("sendMessage", hana.chat_id) if handed <= c.time <= answered]
    assert len(ahead) <= processor.max_queued + 1, f"{len(ahead)} of Hana's replies went first"
    assert processor.dropped > FLOOD // 2  # the flooder's updates beyond a few were dropped


async def test_everyone_typing_round_at_once_gets_one_refusal(bot: Running,
                                                              api: FakeBotAPI) -> None:
    # Eight members of a big group typed /round as the host did: each got "A round is
    # already running here", eight posts of the group's twenty a minute, queued in the
    # replies' lane for a minute after the question.
    room = Room(bot, api)
    bot.app.engine.clock = room.clock  # the quiet minute on the test's clock too
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    members = [Learner(api, api.user(8000 + i, f"M{i}"), room.group) for i in range(8)]
    for member in members:
        await member.send("/round")
    for member in members:
        await member.barrier()  # its /round handled (one reply a member: this /help)
    running = bot.cat.t("en", "round.already_running")
    refusals = [c for c in api.calls_of("sendMessage", GROUP_ID) if c.result["text"] == running]
    assert len(refusals) == 1
    since = room.hana.mark()
    room.advance(61)  # a minute later (question 1 revealed, 2 not yet open): said again
    await room.hana.edited(since, lambda m: m["message_id"] == question["message_id"])
    since = room.hana.mark()
    await members[0].send("/round")
    assert (await members[0].reply(since))["text"] == running
