"""/daily on the fake Bot API with the test's clock: admins only, a time that does not parse
gets the usage line, the day's question is posted once and revealed once at its close."""

from __future__ import annotations

from bot.features.jobs import Scheduler
from bot.present.i18n import strip_isolates
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.support import AnswerKey, Running
from tests.adapters.telegram.test_telegram_rounds import GROUP_ID, Room, is_round_question

USAGE = "Use: /daily on HH:MM [+HH:MM] [quiz]"


async def test_daily_on_the_fake_bot_api(bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    room = Room(bot, api)
    api.members[(GROUP_ID, 2002)] = "member"
    since = room.bilal.mark()
    await room.bilal.send("/daily on 09:00")
    reply = await room.bilal.reply(since)
    assert reply["text"] == "Only this group's admins can do that."

    api.members[(GROUP_ID, 1001)] = "administrator"
    for bad in ("/daily on 9", "/daily on 25:00", "/daily at 09:00", "/daily",
                "/daily on 09:00 +99:00"):
        since = room.hana.mark()
        await room.hana.send(bad)
        assert (await room.hana.reply(since))["text"].startswith(USAGE), bad
    since = room.hana.mark()  # the words after the time name a quiz, by id or title
    await room.hana.send("/daily on 09:00 a b")
    assert (await room.hana.reply(since))["text"].startswith("There is no quiz called a b.")
    since = room.hana.mark()
    await room.hana.send("/daily on 13:30 +05:00 parallelism")  # 08:30 UTC: in 30 minutes
    said = strip_isolates((await room.hana.reply(since))["text"])
    assert said.startswith("📅 A question of the day from Model and pipeline")
    assert "every day at 13:30 (UTC+05:00), open 8 h" in said

    app = bot.app
    assert app.engine.rounds is not None
    dailies = app.engine.dailies
    scheduler = Scheduler(app.store, {dailies.kind: dailies}, clock=room.clock)
    since = room.hana.mark()
    room.clock.now += 30 * 60
    assert await scheduler.tick() == 1 and await scheduler.tick() == 0
    question = await room.question(since)
    assert question["text"].startswith("📅 Question of the day")
    assert "Open for 8 h" in question["text"]
    right = key.right(question["text"])
    assert await room.press(room.bilal, question, right) == f"🔒 Locked in: {right}"
    since = room.hana.mark()
    room.advance(8 * 3600)
    reveal = await room.reveal(since, question)
    assert "Got it right: Bilal" in reveal
    posts = [c for c in api.calls_of("sendMessage", GROUP_ID) if is_round_question(c.result)]
    edits = api.calls_of("editMessageText", GROUP_ID)
    assert len(posts) == 1 and len(edits) == 1  # posted once, revealed once
