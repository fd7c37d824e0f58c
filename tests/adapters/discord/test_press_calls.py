"""One press, one answer: what each kind of press costs on the fake Discord. A round's
lock-in, a refused press and "Who answered?" are each one interaction callback (an
ephemeral message), with no follow-up and no edit."""

from __future__ import annotations

from bot.app.compose import App

from .conftest import ALICE, BOB, GUILD, replied
from .fake_discord import FakeDiscord
from .test_rounds import Room, button_of, letter_of, question_of


async def test_round_presses_cost_one_callback(fake: FakeDiscord, bot: App) -> None:
    room = Room(fake, bot)
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                         options={"seconds": 20, "questions": 1}))
    first = await room.question(1)
    right = letter_of(first, question_of(first).correct)
    room.advance(2)
    presses = []
    for who, custom_id in ((ALICE, button_of(first, right)),  # locked in
                           (ALICE, button_of(first, right)),  # again
                           (BOB, "a1:zz:0:0")):  # not on this message: forged
        presses.append(await replied(fake, await fake.press(who, first, custom_id)))
    room.advance(20)
    assert "Answer:" in await room.reveal(first)
    who_id = str(first.button("📖 Why? · Who answered")["custom_id"])
    presses.append(await replied(fake, await fake.press(BOB, first, who_id)))  # privately
    for ix in presses:
        assert [what for what, _ in ix.events] == ["callback 4"], ix.events
        assert ix.original is not None and ix.original.ephemeral
    assert presses[0].original.content == f"🔒 Locked in: {right}"  # type: ignore[union-attr]
    assert presses[2].original.content == bot.catalogue.t(  # type: ignore[union-attr]
        "en", "round.misplaced")
    title = presses[3].original.embeds[0]["title"]  # type: ignore[union-attr]
    assert title.startswith("Who answered")
