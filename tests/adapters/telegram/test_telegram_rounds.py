"""Study-group rounds on the fake Bot API, with the test's clock: a full round, what reveals
and standings say, late/double/stale presses, stop/skip rights, the group flood limit, and
solo /quiz from a group through a deep link that still counts on the group's board."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlparse

from bot.domain.results import Actor
from bot.present.i18n import strip_isolates
from bot.store.commands import boards_sql, sessions_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data, buttons
from tests.adapters.telegram.support import AnswerKey, BotFactory, Running

GROUP_ID = -1001234500001


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def is_round_question(message: dict[str, Any]) -> bool:
    return any(d.startswith("r1:") for d in button_data(message))


class Room:
    """A group with three members and the test's clock driving the bot's rounds."""

    def __init__(self, bot: Running, api: FakeBotAPI) -> None:
        self.bot, self.api = bot, api
        self.clock = Clock()
        api.clock = self.clock
        assert bot.app.engine.rounds is not None
        bot.app.engine.rounds.clock = bot.app.scheduler.clock = self.clock  # rounds and scheduler
        self.group = api.group_chat(GROUP_ID, "Parallel readers")
        self.hana = Learner(api, api.user(1001, "Hana"), self.group)
        self.bilal = Learner(api, api.user(2002, "Bilal"), self.group)
        self.chen = Learner(api, api.user(3003, "Chen"), self.group)

    def advance(self, seconds: float) -> None:
        """Move time on and wake the bot's scheduler (as its own timer would)."""
        self.clock.now += seconds
        assert self.bot.app.engine.rounds is not None
        self.bot.app.scheduler.wake()

    async def press(self, who: Learner, question: dict[str, Any], letter: str) -> str:
        """Press `letter` on a round question; return the private toast's text."""
        query = await who.press(question, letter)
        return str((await who.toast(query)).params.get("text", ""))

    async def question(self, since: int) -> dict[str, Any]:
        return await self.hana.reply(since, is_round_question)

    async def reveal(self, since: int, question: dict[str, Any]) -> str:
        """The question message once edited into its reveal."""
        edited = await self.hana.edited(
            since, lambda m: m["message_id"] == question["message_id"])
        # the letters are gone; what stays opens the explanation and the list privately
        assert [b["text"] for row in buttons(edited) for b in row] == ["📖 Why? · Who answered"]
        return strip_isolates(edited["text"])


async def test_full_round_three_members_one_silent(bot: Running, api: FakeBotAPI,
                                                   key: AnswerKey) -> None:
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    assert question["text"].startswith("Round · Question 1/8")
    assert "Closes in 20 s" in question["text"]
    assert [b["text"] for b in buttons(question)[0]] == ["A", "B", "C", "D"]

    for n in range(8):
        text = question["text"]
        right, wrong = key.right(text), key.wrong(text)
        room.advance(3)
        assert await room.press(room.hana, question, right) == f"🔒 Locked in: {right}"
        room.advance(2)
        bilal_pick = right if n % 2 else wrong
        assert await room.press(room.bilal, question, bilal_pick) == \
            f"🔒 Locked in: {bilal_pick}"
        if n == 0:  # Chen joins on the first question, then stays silent
            assert await room.press(room.chen, question, wrong) == f"🔒 Locked in: {wrong}"
        since = room.hana.mark()
        room.advance(15)  # the deadline: Chen's silence means no early reveal
        reveal = await room.reveal(since, question)
        option = key.letters(text)[right]
        assert f"✅ Answer: {right}) {option}" in reveal
        counts = {line.split()[0]: int(line.split(" · ")[1]) for line in reveal.splitlines()
                  if line[:1] in "ABCD" and line[1:2] == " "}
        expected = {letter: 0 for letter in "ABCD"}
        expected[right] += 1
        expected[bilal_pick] += 1
        if n == 0:
            expected[wrong] += 1
        assert counts == expected
        top = max(expected.values())
        answered = sum(expected.values())
        assert all(f"{letter} {'▇' * 10} {round(100 * top / answered)}% · {top}" in reveal
                   for letter, count in expected.items() if count == top)
        assert f"{answered} of 3 answered" in reveal
        names = "Hana, Bilal" if n % 2 else "Hana"
        assert f"Got it right: {names}" in reveal
        if n < 7:
            assert "Standings:" in reveal and "Next question in 5 s." in reveal
            assert f"🥇 1. Hana: {n + 1} right · {3.0 * (n + 1):.1f} s" in reveal
            since = room.hana.mark()
            room.advance(5)
            question = await room.question(since)
            assert question["text"].startswith(f"Round · Question {n + 2}/8")
        else:
            assert "🏁 Final podium: Model and pipeline parallelism" in reveal
            assert "🥇 1. Hana: 8 right · 24.0 s" in reveal
            assert "🥈 2. Bilal: 4 right · 20.0 s" in reveal  # 4 right, 5 s after each opening
            # no medal and no time for nothing right ("0.0 s" read as the fastest)
            assert reveal.endswith("▫️ 3. Chen: 0 right")

    # Two posts per question (the question, its reveal), far under 20 a group minute.
    assert api.flooded == []
    assert api.posts_per_minute(GROUP_ID) <= 6
    assert len(room.hana.sent(0, methods=("sendMessage",))) == 8

    engine = bot.app.engine
    for user_id, best in (("1001", 8), ("2002", 4), ("3003", 0)):
        stats = await engine.stats(Actor("telegram", user_id, str(GROUP_ID)))
        assert (stats.attempts, stats.best_score) == (1, best)
    review = await engine.review(Actor("telegram", "2002"))
    assert review.total == 4  # Bilal's four misses come back in /review
    since = room.chen.mark()
    await room.chen.send("/leaderboard rounds")
    board = strip_isolates((await room.chen.reply(since))["text"])
    assert board.startswith("Leaderboard here: Model and pipeline parallelism · rounds")
    assert board.index("Hana: 8/8") < board.index("Bilal: 4/8") < board.index("Chen: 0/8")
    since = room.chen.mark()
    await room.chen.send("/leaderboard solo")
    assert "Nobody has finished" in (await room.chen.reply(since))["text"]


async def test_double_late_and_stale_presses(bot: Running, api: FakeBotAPI,
                                             key: AnswerKey) -> None:
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round 30")
    first = await room.question(since)
    wrong, right = key.wrong(first["text"]), key.right(first["text"])
    assert await room.press(room.bilal, first, wrong) == f"🔒 Locked in: {wrong}"
    assert await room.press(room.bilal, first, right) == \
        f"Already locked in: {wrong}. It cannot be changed."
    since = room.hana.mark()
    room.advance(30)
    await room.reveal(since, first)
    # the reveal removed the buttons; a client showing the old message can still press
    late = await room.hana.tap(first, f"r1:1:0:{'ABCD'.index(right)}")
    assert (await room.hana.toast(late)).params["text"] == bot.cat.t("en", "round.late")
    since = room.hana.mark()
    room.advance(5)
    await room.question(since)
    stale = await room.chen.tap(first, "r1:1:0:0")
    assert (await room.chen.toast(stale)).params["text"] == bot.cat.t("en", "round.stale")
    forged = await room.chen.tap(first, "r1:zz:0:0")
    assert (await room.chen.toast(forged)).params["text"] == \
        "That round is over. Start a new one: /round"
    rows = await bot.app.store.read(boards_sql.board,
                                    "parallelism", "telegram", None, rounds=True, limit=5)
    assert rows == []  # nothing counted yet: the round is still running


async def test_stop_and_skip_are_for_the_host_or_administrators(
        bot: Running, api: FakeBotAPI) -> None:
    room = Room(bot, api)
    since = room.hana.mark()
    await room.hana.send("/round")
    question = await room.question(since)
    assert "Closes in 30 s" in question["text"]  # rounds.default_seconds

    since = room.bilal.mark()
    await room.bilal.send("/round skip")
    refusal = await room.bilal.reply(since)
    # Telegram's word for who else may: a group admin (it said "a moderator", which a
    # Telegram group does not have)
    assert refusal["text"] == "Only Hana (who started the round) or a group admin can do that."
    since = room.bilal.mark()
    await room.bilal.send("/round stop")
    assert (await room.bilal.reply(since))["text"] == refusal["text"]
    await room.bilal.barrier()
    assert api.messages[(GROUP_ID, question["message_id"])]["text"] == question["text"]

    api.members[(GROUP_ID, 2002)] = "administrator"
    since = room.bilal.mark()
    await room.bilal.send("/round skip")  # an administrator may: revealed now
    assert "Answer:" in await room.reveal(since, question)

    since = room.hana.mark()
    await room.hana.send("/round stop")  # between questions: the podium as a message
    podium = strip_isolates((await room.hana.reply(since))["text"])
    assert "🏁 Final podium" in podium and "The round was stopped." in podium
    since = room.hana.mark()
    room.advance(60)
    await room.hana.barrier()
    assert not [c for c in room.hana.sent(since) if "Round ·" in c.result.get("text", "")]

    since = room.hana.mark()
    await room.hana.send("/round stop")
    assert (await room.hana.reply(since))["text"] == bot.cat.t("en", "round.none")


async def test_round_in_private_explains_groups(bot: Running, api: FakeBotAPI) -> None:
    learner = Learner(api, api.user(1001, "Hana"))
    since = learner.mark()
    await learner.send("/round")
    assert (await learner.reply(since))["text"] == bot.cat.t("en", "round.groups_only")
    since = learner.mark()
    await learner.send("/daily on 08:00")  # the question of the day, not a round
    assert (await learner.reply(since))["text"].startswith(
        "The question of the day is for groups. Add me to a group and have one of its admins "
        "send /daily on HH:MM there")


async def test_solo_quiz_from_a_group_opens_in_private_and_counts_there(
        bot: Running, api: FakeBotAPI) -> None:
    room = Room(bot, api)
    # Eight, not ten: with the two /leaderboard replies below that is the group's ten
    # replies a minute (GROUP_REPLIES_PER_MINUTE), none of them waiting for the next minute.
    members = [Learner(api, api.user(5000 + i, f"Member{i}"), room.group) for i in range(8)]
    since = room.hana.mark()
    for member in members:
        await member.send("/quiz parallelism")
    links = []
    for member in members:
        reply = await member.reply(since, lambda m, who=member: f"Member{who.user['id'] - 5000},"
                                   in m["text"])
        (button,) = [b for row in buttons(reply) for b in row]
        assert "callback_data" not in button
        links.append(button["url"])
    assert api.flooded == [] and api.posts_per_minute(GROUP_ID) == 8  # one message each
    assert not [c for c in api.calls_of("sendMessage", GROUP_ID) if "Question" in
                c.result["text"]]

    url = urlparse(links[0])
    assert (url.scheme, url.netloc, url.path) == ("https", "t.me", "/quizbot_test_bot")
    start = parse_qs(url.query)["start"][0]
    assert len(start) <= 64 and start.endswith("_parallelism")
    private = Learner(api, members[0].user)
    since = private.mark()
    await private.send(f"/start {start}")
    first = await private.reply(since)
    assert "Question 1/8" in first["text"]
    engine = bot.app.engine
    solo = Actor("telegram", "5000")
    session = await bot.app.store.read(sessions_sql.active_session,
                                       "telegram", "5000", "parallelism")
    assert session is not None and session.chat_id == str(GROUP_ID)
    for position in range(8):
        await engine.answer(solo, session.id, position, 0)

    outsider = Learner(api, api.user(7007, "Outsider"))
    since = outsider.mark()
    await outsider.send(f"/start {start}")  # a link from a group they are not in
    note = await outsider.reply(since)
    assert note["text"] == bot.cat.t("en", "round.not_member")
    session = await bot.app.store.read(sessions_sql.active_session,
                                       "telegram", "7007", "parallelism")
    assert session is not None and session.chat_id is None

    since = room.hana.mark()
    await room.hana.send("/leaderboard")
    board = (await room.hana.reply(since))["text"]
    assert "Member0:" in board and "Outsider" not in board
    since = room.hana.mark()
    await room.hana.send("/leaderboard solo")
    assert "Member0:" in (await room.hana.reply(since))["text"]


async def test_round_survives_an_adapter_restart(start_bot: BotFactory, api: FakeBotAPI,
                                                 key: AnswerKey) -> None:
    clock = Clock()
    api.clock = clock
    group = api.group_chat(GROUP_ID)
    hana = Learner(api, api.user(1001, "Hana"), group)
    async with start_bot() as running:
        assert running.app.engine.rounds is not None
        running.app.engine.rounds.clock = running.app.scheduler.clock = clock
        since = hana.mark()
        await hana.send("/round 20")
        question = await hana.reply(since, is_round_question)
        query = await hana.press(question, key.right(question["text"]))
        await hana.toast(query)
    clock.now += 25  # down past the deadline
    async with start_bot() as running:
        assert running.app.engine.rounds is not None
        running.app.engine.rounds.clock = running.app.scheduler.clock = clock
        running.app.scheduler.wake()
        since = hana.mark()
        edited = await hana.edited(since, lambda m: m["message_id"] == question["message_id"])
        assert "Got it right: Hana" in strip_isolates(edited["text"])
        edits = [c for c in api.calls_of("editMessageText", GROUP_ID)
                 if c.params["message_id"] == question["message_id"]]
        assert len(edits) == 1  # revealed once
