"""Rounds at real size on the fake Discord (which refuses a message over Discord's limits,
as Discord does): 1,000 members with 64-character names, the full list ephemeral and paged,
forged presses refused, and a display name that looks like a mention kept inert."""

from __future__ import annotations

import re

from bot.app.compose import App
from bot.domain.payloads import RoundPayload, decode, encode_answer
from bot.domain.results import Actor
from bot.store.commands import sessions_sql

from .conftest import ALICE, BOB, GUILD, replied, said
from .fake_discord import DESCRIPTION, FakeDiscord, Message
from .test_rounds import Room, letter_of, question_of

MEMBERS = 1000
RAW_MENTION = re.compile(r"<@[!&]?\d+>|@everyone|@here")


def name_of(i: int) -> str:
    if i == 0:
        return f"<@{ALICE['id']}>"  # a display name that would ping Alice
    if i == 1:
        return "@everyone"
    return f"Member {i:04d} " + "x" * (64 - 12)


async def fill(app: App, message: Message) -> None:
    question = question_of(message)
    right = letter_of(message, question.correct)
    wrong = letter_of(message, (question.correct + 1) % len(question.options))
    for i in range(MEMBERS):
        pressed = decode(message.button(right if i % 3 != 2 else wrong)["custom_id"])
        assert isinstance(pressed, RoundPayload)
        actor = Actor("discord", str(10**17 + i), str(GUILD), name_of(i))
        await app.engine.rounds.press(actor, pressed.round_id, pressed.qindex, pressed.option)


async def read_who(fake: FakeDiscord, message: Message) -> list[str]:
    page = await said(fake, await fake.press(
        BOB, message, message.button("📖 Why? · Who answered")["custom_id"]))
    lines: list[str] = []
    for _ in range(MEMBERS):
        description = page.embeds[0]["description"]
        assert len(description) <= DESCRIPTION
        lines += [line for line in description.splitlines() if line and line[0] in "✅❌▫"]
        if "Next ▶" not in [b["label"] for b in page.buttons]:
            return lines
        before = page.edits
        await fake.press(BOB, page, page.button("Next ▶")["custom_id"])
        await fake.wait_for(lambda b=before: page.edits > b, what="the next page")
    raise AssertionError("the list never ended")


async def revealed(fake: FakeDiscord, message: Message) -> str:
    await fake.wait_for(lambda: "Answer:" in message.embeds[0]["description"]
                        or "Final podium" in message.embeds[0]["description"],
                        what="the reveal edit")
    assert [b["label"] for b in message.buttons] == ["📖 Why? · Who answered"]
    return str(message.embeds[0]["description"])


async def test_a_round_of_a_thousand_members(fake: FakeDiscord, bot: App) -> None:
    room = Room(fake, bot)
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                         options={"seconds": 20, "questions": 2}))
    first = await room.question(1)
    await fill(bot, first)
    room.advance(21)
    reveal = await revealed(fake, first)
    assert len(reveal) <= DESCRIPTION
    assert "…and 990 more members" in reveal and "more members" in reveal.split("Standings")[0]
    assert RAW_MENTION.search(reveal) is None and "<\u200b@" in reveal
    lines = await read_who(fake, first)
    assert len(lines) == MEMBERS
    assert all(RAW_MENTION.search(line) is None for line in lines)

    room.advance(5)
    second = await room.question(2)
    during = await replied(fake, await fake.slash(BOB, "leaderboard", guild=GUILD))
    assert during.original is not None and during.original.ephemeral  # the round's channel
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="stop"))
    podium = await revealed(fake, second)
    assert "Final podium" in podium and "…and 990 more members" in podium
    assert RAW_MENTION.search(podium) is None and "<\u200b@" in podium
    assert len(await read_who(fake, second)) == MEMBERS

    ix = await replied(fake, await fake.slash(BOB, "leaderboard", guild=GUILD,
                                              options={"kind": "rounds"}))
    assert ix.original is not None and not ix.original.ephemeral  # public again
    board = ix.original.text
    assert "1." in board and RAW_MENTION.search(board) is None and "<\u200b@" in board


async def test_forged_presses_are_refused(fake: FakeDiscord, bot: App) -> None:
    room = Room(fake, bot)
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                         options={"seconds": 20, "questions": 2}))
    first = await room.question(1)
    data = first.buttons[0]["custom_id"]
    # the round's data on another message of the channel (the "round started" answer)
    ix = await replied(fake, await fake.slash(BOB, "help", guild=GUILD))
    assert ix.original is not None
    decoy = ix.original
    decoy.flags = 0  # as if it were a public message of the channel
    # (a round's letter goes to the engine, which binds it to its round's own message)
    forged = await said(fake, await fake.press(BOB, decoy, data))
    assert "does not belong" in forged.content
    # Alice's own solo answer data pressed on the round's public question
    prompt = await bot.engine.start(Actor("discord", ALICE["id"]))
    solo = await replied(fake, await fake.press(ALICE, first,
                                                encode_answer(prompt.session_id, 0, 0)))
    assert solo.original is not None and "does not belong" in solo.original.content
    edits_before = [e for e in fake.channel_log if e[0] == "edit"]
    assert edits_before == [] and first.edits == 0
    room.advance(21)
    reveal = await room.reveal(first)
    assert "Nobody answered this one in time." in reveal and "bob" not in reveal.lower()
    session = await bot.store.read(sessions_sql.get_session, prompt.session_id)
    assert session is not None and session.position == 0
