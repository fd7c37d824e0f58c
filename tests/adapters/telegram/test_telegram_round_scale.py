"""Rounds at real size on the fake Bot API (which refuses a text over 4,096 characters as
Telegram does): 1,000 members with 64-character names get every reveal and the podium, cut
on purpose, and the full list through "Who answered?" in the private chat; forged presses
count nothing and edit nothing; channels and anonymous admins act as their chats."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

from bot.domain.payloads import decode, encode_answer
from bot.domain.platforms import TELEGRAM, units
from bot.domain.results import Actor
from bot.present.i18n import strip_isolates
from bot.store.commands import rounds_sql, sessions_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data, buttons
from tests.adapters.telegram.support import AnswerKey, Running
from tests.adapters.telegram.test_telegram_rounds import GROUP_ID, Room, is_round_question

MEMBERS = 1000
ANONYMOUS_ADMIN, CHANNEL_BOT = 1087968824, 136817688


def name_of(i: int) -> str:
    return f"Member {i:04d} " + "x" * (64 - 12)


async def fill(bot: Running, question: dict[str, Any], key: AnswerKey) -> None:
    """MEMBERS members lock in on the question, straight through the engine (the press path
    itself is tested elsewhere; here what matters is what 1,000 answers look like)."""
    rounds = bot.app.engine.rounds
    data = button_data(question)
    right = key.right(question["text"])
    letters = [b["text"] for row in buttons(question) for b in row]
    for i in range(MEMBERS):
        letter = right if i % 3 else letters[(letters.index(right) + 1) % len(letters)]
        pressed = decode(data[letters.index(letter)])
        assert pressed is not None and hasattr(pressed, "round_id")
        actor = Actor("telegram", str(50_000 + i), str(GROUP_ID), name_of(i))
        await rounds.press(actor, pressed.round_id, pressed.qindex, pressed.option)


async def read_who(room: Room, api: FakeBotAPI, message: dict[str, Any]) -> list[str]:
    """Press "Who answered?" as Hana, follow the deep link, page through; every line."""
    assert "📖 Why? · Who answered" in [b["text"] for row in buttons(message) for b in row]
    query = await room.hana.press(message, "📖 Why? · Who answered")
    url = (await room.hana.toast(query)).params["url"]
    start = parse_qs(urlparse(url).query)["start"][0]
    api.members[(GROUP_ID, 1001)] = "member"
    private = Learner(api, room.hana.user)
    since = private.mark()
    await private.send(f"/start {start}")
    page = await private.reply(since, lambda m: "Who answered" in m["text"])
    lines: list[str] = []
    for _ in range(MEMBERS):  # bounded: at most one page per member
        text = strip_isolates(page["text"])
        assert units(text) <= TELEGRAM.card_limit
        lines += [line for line in text.splitlines() if line and line[0] in "✅❌▫"]
        if "Next ▶" not in [b["text"] for row in buttons(page) for b in row]:
            return lines
        since = private.mark()
        await private.press(page, "Next ▶")
        page = await private.edited(since, lambda m, mid=page["message_id"]:
                                    m["message_id"] == mid)
    raise AssertionError("the list never ended")


async def test_a_round_of_a_thousand_members(bot: Running, api: FakeBotAPI,
                                             key: AnswerKey) -> None:
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    await fill(bot, question, key)
    since = room.hana.mark()
    room.advance(21)
    reveal = await room.hana.edited(since, lambda m: m["message_id"] == question["message_id"])
    text = strip_isolates(reveal["text"])
    assert units(reveal["text"]) <= TELEGRAM.card_limit
    shown = text.split("Got it right: ")[1].splitlines()[0].split(", ")
    assert 0 < len(shown) <= 20
    assert f"…and {666 - len(shown)} more members" in text
    assert "…and 990 more members" in text  # the standings: top 10
    lines = await read_who(room, api, reveal)
    assert len(lines) == MEMBERS
    assert {name_of(i) for i in range(MEMBERS)} == {
        line.split(". ", 1)[1].rsplit(":", 1)[0] for line in lines}
    assert sum(line.startswith("✅") for line in lines) == 666

    since = room.hana.mark()
    room.advance(5)
    second = await room.question(since)
    since = room.hana.mark()
    await room.hana.send("/round stop")
    podium = await room.hana.edited(since, lambda m: m["message_id"] == second["message_id"])
    assert units(podium["text"]) <= TELEGRAM.card_limit
    assert "🏁 Final podium" in podium["text"] and "…and 990 more members" in podium["text"]
    assert len(await read_who(room, api, podium)) == MEMBERS
    assert api.errors_of("editMessageText") == [] and api.errors_of("sendMessage") == []


async def test_forged_presses_count_nothing_and_edit_nothing(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    right_data = button_data(question)[0]
    other = api.group_chat(GROUP_ID - 7, "Another group")
    eve = Learner(api, api.user(6006, "Eve"), other)
    decoy_since = eve.mark()
    await eve.send("/help")
    decoy = await eve.reply(decoy_since)  # a message of ours in the other group
    # the round's button data pressed in another group, and in the round's group on a
    # message that is not the question's
    forged = [await eve.tap(decoy, right_data)]
    help_since = room.bilal.mark()
    await room.bilal.send("/help")
    help_msg = await room.bilal.reply(help_since)
    forged.append(await room.bilal.tap(help_msg, right_data))
    # Hana's own solo answer data, pressed on the group's live question
    prompt = await bot.app.engine.start(Actor("telegram", "1001"))
    solo = encode_answer(prompt.session_id, 0, 0)
    forged.append(await room.hana.tap(question, solo))
    for query in forged:
        toast = (await room.hana.toast(query)).params.get("text", "")
        assert "does not belong" in toast
    assert api.calls_of("editMessageText") == []
    since = room.hana.mark()
    room.advance(21)
    reveal = await room.reveal(since, question)
    assert "Nobody answered this one in time." in reveal and "Standings:" not in reveal
    assert "Eve" not in reveal and "Bilal" not in reveal
    assert len(api.calls_of("editMessageText")) == 1  # only the reveal itself
    session = await bot.app.store.read(sessions_sql.get_session, prompt.session_id)
    assert session is not None and session.position == 0  # the solo answer never counted


async def test_a_press_with_no_message_attached_counts_nothing(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    # Telegram attaches the message of every button the bot sent: a callback query without
    # one is forged, and was trusted (a non-member locked in and made the standings)
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    right = button_data(question)[[b["text"] for row in buttons(question) for b in row]
                                  .index(key.right(question["text"]))]
    eve = api.user(6006, "Eve")
    forged = []
    for data in (right, *(d for d in button_data(question) if d.startswith("rj"))):
        update = api.callback(eve, question, data)
        del update["callback_query"]["message"]
        await api.push_update(update)
        forged.append(str(update["callback_query"]["id"]))
    for query in forged:
        assert "does not belong" in (await room.hana.toast(query)).params.get("text", "")
    since = room.hana.mark()
    room.advance(21)
    reveal = await room.reveal(since, question)
    assert "Nobody answered this one in time." in reveal and "Eve" not in reveal


def as_chat(api: FakeBotAPI, sender: dict[str, Any], bot_user: int, text: str,
            group: dict[str, Any]) -> dict[str, Any]:
    """A message sent on behalf of a chat (an anonymous admin, a channel)."""
    update = api.message(api.user(bot_user, "Group" if bot_user == ANONYMOUS_ADMIN
                                  else "Channel"), text, group)
    update["message"]["sender_chat"] = sender
    return update


async def test_two_channels_and_an_anonymous_admin(bot: Running, api: FakeBotAPI) -> None:
    room = Room(bot, api)
    one = {"id": -1009000000001, "type": "channel", "title": "Channel One"}
    two = {"id": -1009000000002, "type": "channel", "title": "Channel Two"}
    since = room.hana.mark()
    await api.push_update(as_chat(api, one, CHANNEL_BOT, "/round 20", room.group))
    question = await room.question(since)
    assert "Channel One" in str(await bot.app.store.read(rounds_sql.active_round, "telegram",
                                                                         str(GROUP_ID)))
    # the other channel is not the host, and no member: refused
    since = room.hana.mark()
    await api.push_update(as_chat(api, two, CHANNEL_BOT, "/round stop", room.group))
    refusal = await room.hana.reply(since)
    assert "Only Channel One" in strip_isolates(refusal["text"])
    # an anonymous admin of the group (the group itself as sender) may stop it
    since = room.hana.mark()
    await api.push_update(as_chat(api, room.group, ANONYMOUS_ADMIN, "/round stop",
                                  room.group))
    stopped = await room.hana.edited(since, lambda m: m["message_id"] == question["message_id"])
    assert "The round was stopped." in strip_isolates(stopped["text"])
    assert is_round_question(question)


async def test_a_huge_quiz_argument_is_clipped_in_the_reply(bot: Running,
                                                            api: FakeBotAPI) -> None:
    learner = Learner(api, api.user(4004, "Dana"))
    since = learner.mark()
    await learner.send("/quiz " + "y" * 4000)
    reply = strip_isolates((await learner.reply(since))["text"])
    assert "y" * 63 + "…" in reply and "y" * 65 not in reply
    assert "Something went wrong" not in reply  # the refusal itself, not the apology


async def test_a_quiz_argument_cannot_turn_the_groups_reply_around(bot: Running,
                                                                    api: FakeBotAPI) -> None:
    """An override typed after /quiz in a group ('\u202e' reverses what follows) is not
    repeated: the bot's refusal read 'There is no quiz called \u202ex. ...' with the rest
    of its line, the list of quizzes, shown right to left to the whole group."""
    for lang in ("en", "ur"):
        member = Learner(api, api.user(4005, "Dana", language_code=lang),
                         api.group_chat(-100999, "Readers"))
        since = member.mark()
        await member.send("/quiz \u202ex\u2066y\u202dz")
        reply = (await member.reply(since))["text"]
        assert not any(c in reply for c in "\u202a\u202b\u202c\u202d\u202e")
        assert "xyz" in strip_isolates(reply)


async def test_a_reveal_whose_question_was_deleted_is_posted_anew(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    await room.press(room.hana, question, key.right(question["text"]))
    del api.messages[(GROUP_ID, question["message_id"])]  # an admin deleted it
    since = room.hana.mark()
    room.advance(21)
    reveal = await room.hana.reply(since, lambda m: "Answer:" in m["text"])
    assert reveal["message_id"] != question["message_id"]
    assert "Got it right: Hana" in strip_isolates(reveal["text"])
    assert [c.error for c in api.calls[since:] if c.method == "editMessageText"] == [
        "Bad Request: message to edit not found"]
