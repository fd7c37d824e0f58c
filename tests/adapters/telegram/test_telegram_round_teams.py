"""Team rounds on the fake Bot API, with the test's clock: 40 members in 4 teams join by
button (a few pick a team, the rest "Any team"), are drafted into even teams, cannot switch,
and the reveal and podium rank the teams by their members' mean; a team count or scoring
word that does not parse gets the usage line; a speed round's private "Who answered?" list
reads as its standings (points)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from bot.present.i18n import strip_isolates
from bot.store.commands import round_teams_sql, rounds_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, buttons
from tests.adapters.telegram.support import AnswerKey, Running
from tests.adapters.telegram.test_telegram_rounds import Room

TEAMS = ["🟥 Red", "🟦 Blue", "🟩 Green", "🟨 Yellow"]


async def test_forty_members_in_four_teams(bot: Running, api: FakeBotAPI,
                                           key: AnswerKey) -> None:
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20 teams 4 scoring speed")
    lobby = await room.hana.reply(since, lambda m: "Any team" in str(m.get("reply_markup")))
    assert [b["text"] for row in buttons(lobby) for b in row] == [*TEAMS, "🎲 Any team"]
    assert "Scoring: speed" in lobby["text"] and "The first question opens in 30 s" in lobby["text"]

    members = [Learner(api, api.user(7000 + i, f"P{i:02d}"), room.group) for i in range(40)]
    for i, m in enumerate(members):
        pick = "🟥 Red" if i < 4 else "🎲 Any team"  # four friends pick Red together
        toast = await room.press(m, lobby, pick)
        assert toast == ("You are on 🟥 Red. Your answers stay private until each reveal."
                         if i < 4 else "You are in: your team is drawn when question 1 opens.")
    assert await room.press(members[0], lobby, "🟦 Blue") == \
        "You are already on 🟥 Red; teams stay the same for the whole round."

    since = room.hana.mark()
    room.advance(30)
    question = await room.question(since)
    rounds = bot.app.engine.rounds
    assert rounds is not None
    joined = await rounds.store.read(round_teams_sql.members,
                                     int(question["reply_markup"]["inline_keyboard"]
                                                   [0][0]["callback_data"].split(":")[1], 36))
    roster: dict[int, list[str]] = {}
    for m in joined:
        assert m.team is not None
        roster.setdefault(m.team, []).append(m.user_id)
    assert sorted(len(r) for r in roster.values()) == [10, 10, 10, 10]  # even sizes
    assert {"7000", "7001", "7002", "7003"} <= set(roster[0])  # the friends stayed on Red
    assert await room.press(members[5], lobby, "🟥 Red") == \
        "You are already on " + TEAMS[next(t for t, r in roster.items() if "7005" in r)] + \
        "; teams stay the same for the whole round."

    # Team t gets 10 - 2t of its 10 members right, all at 4 s (900 speed points each):
    # means 900, 720, 540, 360.
    right, wrong = key.right(question["text"]), key.wrong(question["text"])
    by_id = {m.user["id"]: m for m in members}
    room.advance(4)
    for team, ids in roster.items():
        for n, uid in enumerate(sorted(ids)):
            await room.press(by_id[int(uid)], question, right if n < 10 - 2 * team else wrong)
    since = room.hana.mark()
    room.advance(16)
    edited = await room.hana.edited(since, lambda m: m["message_id"] == question["message_id"])
    reveal = strip_isolates(edited["text"])  # 40 members: cut, with "Who answered?"
    lines = [line for line in reveal.splitlines() if "👥" in line]
    assert [line.split(" · ")[0] for line in lines] == [
        "🥇 1. 🟥 Red: 900", "🥈 2. 🟦 Blue: 720", "🥉 3. 🟩 Green: 540",
        "▫️ 4. 🟨 Yellow: 360"]
    assert all(" · 👥 10 · ⭐ P" in line for line in lines)  # each team's best member

    since = room.hana.mark()
    await room.hana.send("/round stop")
    podium = await room.hana.reply(since, lambda m: "Final podium" in m.get("text", ""))
    text = strip_isolates(podium["text"])
    assert text.index("🥇 1. 🟥 Red: 900") < text.index("🟨 Yellow: 360")
    assert "Scoring: speed" in text


async def test_bad_team_count_or_scoring_gets_the_usage_line(bot: Running,
                                                             api: FakeBotAPI) -> None:
    room = Room(bot, api)
    for command in ("/round teams 9", "/round teams", "/round teams two",
                    "/round scoring fastest", "/round 20 untimed scoring speed",
                    "/round 20 5 8"):  # seconds and questions, then a third number
        since = room.hana.mark()
        await room.hana.send(command)
        reply = await room.hana.reply(since)
        assert reply["text"].startswith("Use: /round [quiz] [seconds] [questions] [teams 2–6]"), \
            command
    rounds = bot.app.engine.rounds
    assert rounds is not None
    assert await rounds.store.read(rounds_sql.active_round,
                                   "telegram", str(room.group["id"])) is None


async def test_the_private_list_of_a_speed_round_shows_points(bot: Running, api: FakeBotAPI,
                                                              key: AnswerKey) -> None:
    # The list behind "Who answered?" is ranked by the round's points; it showed right
    # answers and seconds instead ("1 right · 1.0 s"), so a faster member with fewer right
    # answers sat above a slower one with more, with nothing saying why.
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20 scoring speed")
    question = await room.question(since)
    room.advance(1)
    await room.press(room.hana, question, key.right(question["text"]))
    room.advance(9)
    await room.press(room.bilal, question, key.right(question["text"]))
    since = room.hana.mark()
    room.advance(11)
    await room.reveal(since, question)
    query = await room.hana.press(api.messages[(room.group["id"], question["message_id"])],
                                  "📖 Why? · Who answered")
    start = parse_qs(urlparse((await room.hana.toast(query)).params["url"]).query)["start"][0]
    private = Learner(api, room.hana.user)
    since = private.mark()
    await private.send(f"/start {start}")
    page = strip_isolates((await private.reply(
        since, lambda m: "Who answered" in m["text"]))["text"])
    reveal = strip_isolates(api.messages[(room.group["id"], question["message_id"])]["text"])
    for row in ("1. Hana: 975 pts (1 right)", "2. Bilal: 750 pts (1 right)"):
        assert row in reveal and row in page, page
    assert " s\n" not in page + "\n"  # no seconds: speed points already count the time


async def test_a_member_who_joined_and_did_not_answer_counts_as_not_answered(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    # Bilal joined a team (drafted onto Red) and stayed silent, Chen answered without joining
    # first: the reveal said "1 of 1 answered" while its team lines showed two members.
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20 teams 2")
    lobby = await room.hana.reply(since, lambda m: "Any team" in str(m.get("reply_markup")))
    await room.press(room.bilal, lobby, "🎲 Any team")
    since = room.hana.mark()
    room.advance(30)
    question = await room.question(since)
    # Chen's first answer puts him on the smallest team: his toast says which (it said only
    # "Locked in", and nothing anywhere told him his team)
    right = key.right(question["text"])
    assert await room.press(room.chen, question, right) == \
        f"🔒 Locked in: {right}. You are on 🟦 Blue."
    assert await room.press(room.chen, question, right) == \
        f"Already locked in: {right}. It cannot be changed."
    since = room.hana.mark()
    room.advance(21)
    edited = await room.hana.edited(since, lambda m: m["message_id"] == question["message_id"])
    assert "1 of 2 answered" in strip_isolates(edited["text"])


async def test_the_lobby_loses_its_buttons_when_the_round_ends(bot: Running, api: FakeBotAPI,
                                                               key: AnswerKey) -> None:
    """A finished team round's lobby kept its join buttons (pressed: "That round is over").
    The round's end takes them off: one editMessageText of the lobby, in the round's lane of
    the group's budget (nothing over Telegram's limit), saying the round is over."""
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20 1 teams 2")
    lobby = await room.hana.reply(since, lambda m: "Any team" in str(m.get("reply_markup")))
    assert await room.press(room.bilal, lobby, "🟥 Red") == \
        "You are on 🟥 Red. Your answers stay private until each reveal."
    since = room.hana.mark()
    room.advance(30)
    question = await room.question(since)
    locked = await room.press(room.bilal, question, key.right(question["text"]))
    assert locked.startswith("🔒 Locked in")
    since = room.hana.mark()
    room.advance(20)
    podium = await room.hana.edited(since, lambda m: "Final podium" in m.get("text", ""))
    assert podium["message_id"] == question["message_id"]
    where = (lobby["chat"]["id"], lobby["message_id"])
    stripped = await api.wait_for(lambda: "reply_markup" not in api.messages[where],
                                  what="the lobby's buttons taken off")
    assert stripped
    lobby_edits = [c for c in api.calls if c.params.get("message_id") == lobby["message_id"]
                   and c.method.startswith("edit")]
    assert [c.method for c in lobby_edits] == ["editMessageText"]
    assert lobby_edits[0].params.get("reply_markup") is None
    # it kept saying "The first question opens in 30 s": now that it is over, and how on
    assert api.messages[where]["text"] == (
        f"This round of {bot.app.engine.quiz().title.get('en')} is over. To play another, "
        "send /round")
    assert api.flooded == []


async def test_an_answer_that_joins_an_untimed_round_says_the_round_now_waits_for_it(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    # An untimed question stays open until everyone who joined has answered. A member who
    # skipped Join and answered was joined by that answer, and every later question then
    # waited up to 30 minutes for them, but their toast said only "Locked in".
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round untimed")
    lobby = await room.hana.reply(since, lambda m: "✋ Join" in str(m.get("reply_markup")))
    for member in (room.hana, room.chen):  # Chen joins and keeps the question open
        assert await room.press(member, lobby, "✋ Join") == \
            "You are in. Each question waits for everyone who joined."
    since = room.hana.mark()
    room.advance(30)
    question = await room.question(since)
    right = key.right(question["text"])
    assert await room.press(room.hana, question, right) == f"🔒 Locked in: {right}"
    assert await room.press(room.bilal, question, right) == (
        f"🔒 Locked in: {right}. This answer joined you to the round: each question now "
        "waits for your answer too (at most 30 min).")
    assert await room.press(room.bilal, question, right) == \
        f"Already locked in: {right}. It cannot be changed."
    urdu = Learner(api, api.user(4004, "Dua", language_code="ur"), room.group)
    toast = strip_isolates(await room.press(urdu, question, right))
    assert toast == strip_isolates(bot.cat.t("ur", "round.locked_joined", letter=right,
                                             minutes=30))
    assert "30" in toast and "شامل" in toast
