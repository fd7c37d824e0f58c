"""A round outlives a restart of the bot: its question message keeps taking answers, the
reveal edits that same message, and the next question follows (the round lives in the
database, its buttons are templates)."""

from __future__ import annotations

from pathlib import Path

from .conftest import ALICE, BOB, GUILD, replied, running, write_config
from .fake_discord import FakeDiscord
from .test_rounds import Room, letter_of, question_of


async def test_a_round_carries_on_after_a_restart(tmp_path: Path, fake: FakeDiscord) -> None:
    path = write_config(tmp_path, fake)
    async with running(path) as app:
        room = Room(fake, app)
        await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                             options={"seconds": 20, "questions": 2}))
        first = await room.question(1)
        right = letter_of(first, question_of(first).correct)
        assert await room.press(ALICE, first, right) == f"🔒 Locked in: {right}"
    now = room.clock.now
    async with running(path) as app:  # a new client, engine and store on the same file
        room = Room(fake, app)
        room.clock.now = now
        assert await room.press(BOB, first, right) == f"🔒 Locked in: {right}"
        assert await room.press(ALICE, first, right) == \
            f"Already locked in: {right}. It cannot be changed."
        room.advance(20)
        reveal = await room.reveal(first)  # the same message, edited
        assert "2 of 2 answered" in reveal and "Got it right: Alice, Bob" in reveal
        room.advance(5)
        await room.question(2)
        assert sum(1 for m in fake.channel_messages if m.embeds) == 2
