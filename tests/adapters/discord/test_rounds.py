"""Study-group rounds on the fake Discord, with the test's clock: public questions as
channel messages edited into their reveals, ephemeral lock-in, host-only stop and skip."""

from __future__ import annotations

from typing import Any

import pytest

from bot.app.compose import App
from bot.domain.quiz import Question
from bot.domain.results import Actor

from .conftest import ALICE, BOB, CHANNEL, GUILD, QUIZ, replied, said, slow_after_the_ack
from .fake_discord import FakeDiscord, Message, user

CAROL = user(1_500_000_000_000_000_003, "carol")


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def question_of(message: Message) -> Question:
    description = message.embeds[0]["description"]
    return next(q for q in QUIZ.questions if q.text.get("en") in description)


def letter_of(message: Message, option: int) -> str:
    """The letter the quiz file's option `option` has on this message."""
    question = question_of(message)
    text = question.options[option].text.get("en")
    for line in message.embeds[0]["description"].splitlines():
        if line.endswith(f") {text}"):
            return line.split(")")[0].strip("*")
    raise AssertionError(f"option {option} not on the message")


def button_of(message: Message, letter: str) -> str:
    return str(message.button(letter)["custom_id"])


class Room:
    def __init__(self, fake: FakeDiscord, app: App) -> None:
        self.fake, self.app = fake, app
        self.clock = Clock()
        assert app.engine.rounds is not None
        app.engine.rounds.clock = app.scheduler.clock = self.clock  # the rounds and their scheduler

    def advance(self, seconds: float) -> None:
        self.clock.now += seconds
        assert self.app.engine.rounds is not None
        self.app.scheduler.wake()

    async def question(self, number: int) -> Message:
        def posted() -> Message | None:
            found = [m for m in self.fake.channel_messages if m.channel_id == CHANNEL
                     and m.embeds and m.embeds[0].get("title", "").startswith(
                         f"Round · Question {number}/")]
            return found[0] if found else None
        return await self.fake.wait_for(posted, what=f"round question {number}")

    async def reveal(self, message: Message) -> str:
        await self.fake.wait_for(lambda: "Answer:" in message.embeds[0]["description"]
                                 or "Final podium" in message.embeds[0]["description"],
                                 what="the reveal edit")
        assert [b["label"] for b in message.buttons] == ["📖 Why? · Who answered"]
        return str(message.embeds[0]["description"])

    async def press(self, who: dict[str, Any], message: Message, letter: str) -> str:
        reply = await said(self.fake, await self.fake.press(who, message,
                                                            button_of(message, letter)))
        return reply.content


async def test_round_in_a_channel(fake: FakeDiscord, bot: App) -> None:
    room = Room(fake, bot)
    ix = await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                              options={"seconds": 20, "questions": 2}))
    assert ix.original is not None and not ix.original.ephemeral
    assert ix.original.content.startswith("Alice started a round of Model and pipeline")
    first = await room.question(1)
    assert not first.ephemeral and first.interaction_metadata is None  # a channel message
    # the closing time in a sentence, with what a member needs to know: answers stay private
    assert (f"⏳ Closes <t:{int(room.clock.now) + 20}:R>. Answers stay private until the "
            "reveal.") in first.embeds[0]["description"]
    assert [b["label"] for b in first.buttons] == ["A", "B", "C", "D"]

    question = question_of(first)
    right = letter_of(first, question.correct)
    wrong = letter_of(first, (question.correct + 1) % 4)
    room.advance(4)
    assert await room.press(ALICE, first, right) == f"🔒 Locked in: {right}"
    assert await room.press(ALICE, first, wrong) == \
        f"Already locked in: {right}. It cannot be changed."
    room.advance(2)
    assert await room.press(BOB, first, wrong) == f"🔒 Locked in: {wrong}"
    assert await room.press(CAROL, first, right) == f"🔒 Locked in: {right}"
    room.advance(14)
    reveal = await room.reveal(first)
    assert f"✅ Answer: {right})" in reveal
    assert f"{right} ▇▇▇▇▇▇▇▇▇▇ 67% · 2" in reveal and f"{wrong} ▇▇▇▇▇ 33% · 1" in reveal
    assert "3 of 3 answered" in reveal
    assert "Got it right: Alice, Carol" in reveal
    assert reveal.index("1. Alice: 1 right · 4.0 s") < reveal.index("2. Carol: 1 right · 6.0 s")

    room.advance(5)
    second = await room.question(2)
    # Bob is not the host and may not manage messages: refused
    fake.permissions[BOB["id"]] = "0"
    ix = await replied(fake, await fake.slash(BOB, "round", guild=GUILD, subcommand="skip"))
    assert ix.original is not None and ix.original.ephemeral
    # Discord's word for who else may: the permission a member can look for, not "moderator"
    assert ix.original.content == "Only Alice (who started the round) or a member who may " \
        "Manage Messages can do that."
    for who in (ALICE, BOB, CAROL):  # everyone who joined answered: revealed at once
        question = question_of(second)
        await room.press(who, second, letter_of(second, question.correct))
    reveal = await room.reveal(second)
    assert "Final podium" in reveal and "🥇 1. Alice: 2" in reveal

    stats = await bot.engine.stats(Actor("discord", CAROL["id"]))
    assert (stats.attempts, stats.best_score) == (1, 2)
    board = await bot.engine.leaderboard(Actor("discord", BOB["id"], str(GUILD)))
    assert [r.display_name for r in board.rows] == ["Alice", "Carol", "Bob"]
    # two channel calls per question: the post and its edit
    assert [what for what, _, _ in fake.channel_log] == ["post", "edit", "post", "edit"]


async def test_stop_by_a_moderator_and_not_in_dms(fake: FakeDiscord, bot: App) -> None:
    room = Room(fake, bot)
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start"))
    first = await room.question(1)
    # a second round: who may end the first is named as Discord names it (it said "a
    # moderator", a role a server may not have)
    ix = await replied(fake, await fake.slash(BOB, "round", guild=GUILD, subcommand="start"))
    assert ix.original is not None and ix.original.content == (
        "A round is already running here. The host (or a member who may Manage Messages) can "
        "end it: /round stop")
    fake.permissions[BOB["id"]] = str(1 << 13)  # MANAGE_MESSAGES
    ix = await replied(fake, await fake.slash(BOB, "round", guild=GUILD, subcommand="stop"))
    assert ix.original is not None and ix.original.ephemeral
    reveal = await room.reveal(first)
    assert "The round was stopped." in reveal
    room.advance(60)
    ix = await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="skip"))
    assert ix.original is not None
    # Discord's command is /round start: the way out names it, not Telegram's bare /round
    assert ix.original.content == "No round is running here. Start one with /round start"
    ix = await replied(fake, await fake.slash(ALICE, "round", subcommand="start"))  # a DM
    assert ix.original is not None and "/round start in a channel of a server" in \
        ix.original.content
    ix = await replied(fake, await fake.slash(BOB, "leaderboard", guild=GUILD,
                                              options={"quiz": "long-context",
                                                       "kind": "rounds"}))
    assert ix.original is not None and ix.original.text.endswith(
        "No round of this quiz has been played here yet. Start one: /round start")


async def test_round_stop_reads_inside_the_three_seconds(
        fake: FakeDiscord, bot: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """/round stop stops the round, then reads the stopper's language for its note: a slow
    read gets the early ack (it ran after the timer, so a slow store meant no answer in 3 s
    and Discord's 'This interaction failed')."""
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start"))
    slow_after_the_ack(fake, monkeypatch, bot.engine, "language")
    ix = await fake.slash(ALICE, "round", guild=GUILD, subcommand="stop")
    done = await fake.wait_for(lambda: ix.original if ix.original and ix.original.content
                               else None, what="the thinking message to be filled")
    assert ix.callback is not None and ix.callback.type == 5  # "thinking…" first
    assert done.ephemeral and done.content == "The round was stopped."


async def test_leaderboard_reads_inside_the_three_seconds(
        fake: FakeDiscord, bot: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """/leaderboard first asks whether a round runs in the channel (its answer is private
    then): a slow answer gets the early ack (the read ran before the timer, so a slow store
    meant no answer in 3 s and Discord's 'This interaction failed')."""
    slow_after_the_ack(fake, monkeypatch, bot.engine, "round_running")
    ix = await fake.slash(ALICE, "leaderboard", guild=GUILD)
    done = await fake.wait_for(lambda: ix.original if ix.original and ix.original.content
                               else None, what="the thinking message to be filled")
    assert ix.callback is not None and ix.callback.type == 5  # "thinking…" first
    assert done.content.startswith("**Leaderboard here: Model and pipeline parallelism**")


def test_an_urdu_rounds_closing_time_keeps_discords_timestamp_whole(bot: App) -> None:
    from adapters.discord.round_posts import closes_at
    from bot.domain.round_results import RoundQuestion
    from bot.present.i18n import LRI, PDI

    q = RoundQuestion(1, "discord", "5", "ur", "Q", "Host", 0, 8, "?", ("a", "b"), 20,
                      1_800_000_020.0)
    line = closes_at(bot.catalogue)(q)
    # isolated whole: an isolate inside "<t:…:R>" would break Discord's markup
    assert f"{LRI}<t:1800000020:R>{PDI}" in line
    assert line.startswith("⏳ بند ہونے کا وقت:") and "پوشیدہ" in line


async def test_a_letter_the_reveal_took_off_says_the_question_closed(fake: FakeDiscord,
                                                                    bot: App) -> None:
    """A client still showing the open question presses a letter the reveal took off: it
    said "That button does not belong to this message"; it says what Telegram says in the
    same case (tests/adapters/telegram/test_telegram_rounds.py), from the same locale keys:
    closed, wait for the next one; then, once the next is open, answer that one."""
    room = Room(fake, bot)
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                         options={"seconds": 20, "questions": 2}))
    first = await room.question(1)
    letter = button_of(first, "A")
    room.advance(20)
    await room.reveal(first)
    late = (await said(fake, await fake.press(ALICE, first, letter))).content
    assert late == bot.catalogue.t("en", "round.late")
    room.advance(5)
    await room.question(2)
    stale = (await said(fake, await fake.press(BOB, first, letter))).content
    assert stale == bot.catalogue.t("en", "round.stale")
    assert "does not belong" not in late + stale


async def test_a_press_after_the_round_stopped_says_how_to_start_one(fake: FakeDiscord,
                                                                     bot: App) -> None:
    """A letter pressed on a stopped round's question (a client still showing it) said only
    "That round is over."; it says how to start a new one, with Discord's command."""
    room = Room(fake, bot)
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                         options={"seconds": 20, "questions": 2}))
    first = await room.question(1)
    letter = button_of(first, "A")
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="stop"))
    await fake.wait_for(lambda: first.buttons != [] and "A" not in
                        [b["label"] for b in first.buttons], what="the stopped question")
    assert (await said(fake, await fake.press(BOB, first, letter))).content == \
        "That round is over. Start a new one: /round start"


async def test_a_late_press_on_the_last_question_promises_no_next_one(fake: FakeDiscord,
                                                                     bot: App) -> None:
    """A member pressing just after a question closed, before its reveal: on the last
    question they were told to 'wait for the next one', and none was coming."""
    room = Room(fake, bot)
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                         options={"seconds": 20, "questions": 2}))
    first = await room.question(1)
    # Past the deadline with the scheduler stopped, so the reveal waits for the press (its
    # post job ending wakes the scheduler, which would otherwise claim the reveal first).
    await bot.scheduler.stop()
    room.clock.now += 21
    assert await room.press(BOB, first, "A") == "This question has closed; wait for the " \
        "next one."
    bot.scheduler.start()
    room.advance(0)
    await room.reveal(first)
    room.advance(5)
    second = await room.question(2)
    await bot.scheduler.stop()
    room.clock.now += 21
    assert await room.press(BOB, second, "A") == "That was the last question and it has " \
        "closed; the results come in a moment."
    bot.scheduler.start()
    room.advance(0)
    assert "Final podium" in await room.reveal(second)


async def test_a_one_question_round_says_one_question(fake: FakeDiscord, bot: App) -> None:
    """A quick one-question round (questions:1) was announced as '1 questions'."""
    ix = await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                              options={"seconds": 20, "questions": 1}))
    assert ix.original is not None and ix.original.content.startswith(
        "Alice started a round of Model and pipeline parallelism: 1 question, 20 s each.")
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="stop"))
    ix = await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                              options={"questions": 1, "teams": 2}))
    assert ix.original is not None and ": 1 question, 30 s each." in ix.original.content
