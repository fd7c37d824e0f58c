"""A study group upgraded to a supergroup (a new chat id), on the fake Bot API with the
test's clock: Telegram's two service messages move its board, settings, daily and the
installed quiz it chose there, once, however often they arrive; a round running at the
time goes on in the supergroup, whether the bot hears of the upgrade from the service
message or from a post refused with `migrate_to_chat_id`; a solo quiz opened from a deep
link the group handed out before counts on the supergroup's board."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from bot.present.i18n import strip_isolates
from bot.store.commands import daily_sql, groups_sql, rounds_sql, sessions_sql
from tests.adapters.telegram.fake_bot_api import GROUP_POSTS, FakeBotAPI
from tests.adapters.telegram.learners import Learner, buttons
from tests.adapters.telegram.support import AnswerKey, BotFactory, Running
from tests.adapters.telegram.test_telegram_rounds import Room, is_round_question
from tests.bot.store.test_chat_moves import at, everything

OLD, NEW = -4012345678, -1004012345678  # a basic group's id, then its supergroup's
QUIZ_FILE = Path(__file__).parents[2] / "fixtures" / "import" / "moodle.xml"  # "week3"


def old_group(bot: Running, api: FakeBotAPI) -> Room:
    """The Room's three members in a basic group, Hana its admin."""
    room = Room(bot, api)
    room.group = api.group_chat(OLD, "Parallel readers", kind="group")
    for member in (room.hana, room.bilal, room.chen):
        member.chat = room.group
    api.members[(OLD, 1001)] = "administrator"
    return room


def in_chat(learner: Learner, chat: dict[str, Any]) -> Learner:
    return Learner(learner.api, learner.user, chat)


def moves_logged(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if "is now chat" in r.getMessage()]


async def round_answered(room: Room, member: Learner, key: AnswerKey) -> dict[str, Any]:
    """Hana starts a 20-second round in the old group and `member` locks in question 1's
    right answer; that question's message."""
    since = room.hana.mark()
    await room.hana.send("/round 20")
    first = await room.question(since)
    right = key.right(first["text"])
    assert await room.press(member, first, right) == f"🔒 Locked in: {right}"
    return first


async def test_an_upgraded_group_keeps_its_board_settings_daily_and_quiz(
        start_bot: BotFactory, api: FakeBotAPI, key: AnswerKey,
        caplog: pytest.LogCaptureFixture) -> None:
    async with start_bot(admins=[1001]) as bot:
        room = old_group(bot, api)
        private = Learner(api, room.hana.user)
        since = private.mark()
        await api.push_update(api.document(private.user, "week3.xml", QUIZ_FILE.read_bytes()))
        assert (await private.reply(since))["text"].startswith("Installed “Pipeline basics”")
        for command in ("/settings quiz week3", "/settings language ur",
                        "/daily on 09:00 +05:00 week3"):
            since = room.hana.mark()
            await room.hana.send(command)
            await room.hana.reply(since)
        since = room.hana.mark()
        await room.hana.send("/round parallelism 20")
        question = await room.question(since)
        right = key.right(question["text"], "ur")
        await room.press(room.bilal, question, right)
        since = room.hana.mark()
        await room.hana.send("/round stop")  # Bilal's answer counts on the group's board
        await room.hana.edited(since, lambda m: m["message_id"] == question["message_id"])
        store = bot.app.store
        kept = await store.read(at, str(OLD))
        assert {"sessions.chat_id", "best_scores.scope", "group_settings.chat_id",
                "dailies.chat_id", "jobs", "chats.chat_id"} <= kept.keys()

        to_old, to_new = api.upgrade(room.group, NEW, room.hana.user)
        for update in (to_old, to_new):  # Telegram sends both
            await api.push_update(update)
        hana = in_chat(room.hana, api.chats[NEW])
        await hana.barrier()  # Hana's updates are handled in order: both are done

        assert await store.read(at, str(OLD)) == {}
        assert await store.read(at, str(NEW)) == kept
        assert await store.read(groups_sql.group_choice, "telegram", str(NEW)) == ("week3", "ur")
        daily = await store.read(daily_sql.get_daily, "telegram", str(NEW))
        assert daily is not None and (daily.quiz_id, daily.post_minute) == ("week3", 540)
        since = hana.mark()
        await hana.send("/leaderboard rounds parallelism")
        assert "Bilal: 1/1" in strip_isolates((await hana.reply(since))["text"])
        since = hana.mark()
        await hana.send("/settings")
        assert "Quiz for rounds and /quiz here: Pipeline basics\n" in (
            await hana.reply(since))["text"]  # the group's quiz (week3), by its title
        [logged] = moves_logged(caplog)
        assert logged.levelno == logging.INFO
        assert f"telegram chat {OLD} is now chat {NEW}" in logged.getMessage()
        assert "1001" not in logged.getMessage() and "2002" not in logged.getMessage()

        # delivered again (a restart before Telegram saw them confirmed): nothing changes
        after = await store.read(everything)
        for update in (to_new, to_old):
            await api.push_update(update)
        await hana.barrier()
        assert await store.read(everything) == after
        assert len(moves_logged(caplog)) == 1


async def test_a_round_running_at_the_upgrade_goes_on_in_the_supergroup(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    room = old_group(bot, api)
    first = await round_answered(room, room.hana, key)

    since = room.hana.mark()
    for update in api.upgrade(room.group, NEW, room.hana.user):
        await api.push_update(update)
    # the open question's message stayed in the old chat: it is posted again there
    hana, bilal = (in_chat(m, api.chats[NEW]) for m in (room.hana, room.bilal))
    again = await hana.reply(since, is_round_question)
    assert again["text"] == first["text"]
    right = key.right(again["text"])
    assert await room.press(bilal, again, right) == f"🔒 Locked in: {right}"
    assert (await room.press(hana, again, right)).startswith("Already locked in")
    since = hana.mark()
    room.advance(20)
    reveal = strip_isolates((await hana.edited(
        since, lambda m: m["message_id"] == again["message_id"]))["text"])
    assert "Got it right: Hana, Bilal" in reveal
    since = hana.mark()
    room.advance(5)
    second = await hana.reply(since, is_round_question)
    assert second["text"].startswith("Round · Question 2/8")
    assert not [c for c in api.calls if c.method in GROUP_POSTS and c.ok
                and c.params.get("chat_id") == OLD and c.time > room.clock.now - 25]


async def test_a_post_refused_as_upgraded_moves_the_round_and_is_sent_there(
        bot: Running, api: FakeBotAPI, key: AnswerKey,
        caplog: pytest.LogCaptureFixture) -> None:
    room = old_group(bot, api)
    first = await round_answered(room, room.bilal, key)
    since = room.hana.mark()
    room.advance(20)
    await room.reveal(since, first)

    api.upgrade(room.group, NEW, room.hana.user)  # its service messages not (yet) heard
    since = len(api.calls)
    room.advance(5)  # question 2 is posted to the old id, refused, and sent to the new one
    hana, bilal = (in_chat(m, api.chats[NEW]) for m in (room.hana, room.bilal))
    second = await hana.reply(since, is_round_question)
    assert second["text"].startswith("Round · Question 2/8")
    refused = [c for c in api.calls[since:] if c.method == "sendMessage"
               and c.params.get("chat_id") == OLD]
    assert len(refused) == 1 and refused[0].error is not None
    assert await bot.app.engine.round_running("telegram", str(NEW))
    assert not await bot.app.engine.round_running("telegram", str(OLD))
    right = key.right(second["text"])
    assert await room.press(bilal, second, right) == f"🔒 Locked in: {right}"
    since = hana.mark()
    room.advance(20)
    await hana.edited(since, lambda m: m["message_id"] == second["message_id"])
    rows = await bot.app.store.read(rounds_sql.round_answers, int(
        second["reply_markup"]["inline_keyboard"][0][0]["callback_data"].split(":")[1]), 1)
    assert [(a.user_id, a.qindex) for a in rows] == [("2002", 0), ("2002", 1)]
    assert len(moves_logged(caplog)) == 1


async def test_a_deep_link_from_before_the_upgrade_counts_on_the_supergroups_board(
        bot: Running, api: FakeBotAPI) -> None:
    room = old_group(bot, api)
    since = room.chen.mark()
    await room.chen.send("/quiz parallelism")  # in the group: a button into the private chat
    (button,) = [b for row in buttons(await room.chen.reply(since)) for b in row]
    start = parse_qs(urlparse(button["url"]).query)["start"][0]
    api.upgrade(room.group, NEW, room.hana.user)  # its service messages not (yet) heard

    private = Learner(api, room.chen.user)
    since = private.mark()
    await private.send(f"/start {start}")  # the link names the old id
    assert "Question 1/8" in (await private.reply(since))["text"]
    session = await bot.app.store.read(sessions_sql.active_session,
                                       "telegram", "3003", "parallelism")
    assert session is not None and session.chat_id == str(NEW)
