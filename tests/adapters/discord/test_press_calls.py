"""One press, one answer: what each kind of press costs on the fake Discord. A round's
lock-in and "Who answered?" (presses on a channel message, which a whole channel presses at
once) are acknowledged first (callback 6, before any database work) and said in one
ephemeral follow-up, with no edit; a press refused before the engine (not on this message)
is one callback with its ephemeral note."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.app.compose import App
from bot.store.commands import rounds_sql

from .conftest import ALICE, BOB, GUILD, replied, said
from .fake_discord import FakeDiscord
from .test_rounds import Room, button_of, letter_of, question_of


async def test_round_presses_are_acknowledged_then_answered_once(fake: FakeDiscord,
                                                                 bot: App) -> None:
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
        pressed = await fake.press(who, first, custom_id)
        presses.append(await replied(fake, pressed, followups=int(who is ALICE)))
    room.advance(20)
    assert "Answer:" in await room.reveal(first)
    who_id = str(first.button("📖 Why? · Who answered")["custom_id"])
    presses.append(await replied(fake, await fake.press(BOB, first, who_id),  # privately
                                 followups=1))
    lock_in, again, forged, who = presses
    for ix in (lock_in, again, who):
        assert [what for what, _ in ix.events] == ["callback 6", "follow-up"], ix.events
        assert ix.followups[0].ephemeral
    assert [what for what, _ in forged.events] == ["callback 4"], forged.events
    assert forged.original is not None and forged.original.ephemeral
    assert lock_in.followups[0].content == f"🔒 Locked in: {right}"
    assert forged.original.content == bot.catalogue.t("en", "round.misplaced")
    assert who.followups[0].embeds[0]["title"].startswith("Who answered")


async def test_a_round_press_is_acknowledged_before_its_write(
        fake: FakeDiscord, bot: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord wants the ack within 3 s; a burst of hundreds of lock-ins queues their writes
    behind each other (one group commit after another), so the ack must not wait for its
    own: here the lock-in's write is held until the fake has seen the ack."""
    room = Room(fake, bot)
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                         options={"seconds": 20, "questions": 1}))
    first = await room.question(1)
    right = letter_of(first, question_of(first).correct)
    assert bot.engine.rounds is not None
    store = bot.engine.rounds.store
    write, release, held = store.write, asyncio.Event(), asyncio.Event()

    async def held_write(fn: Any, *args: Any, **kwargs: Any) -> Any:
        if fn is rounds_sql.press_round:
            held.set()
            await release.wait()
        return await write(fn, *args, **kwargs)

    monkeypatch.setattr(store, "write", held_write)
    ix = await fake.press(ALICE, first, button_of(first, right))
    await asyncio.wait_for(held.wait(), 30)  # the lock-in reached its write, and waits
    await fake.wait_for(lambda: ix.callback is not None, what="the ack, the write held")
    assert ix.callback is not None and ix.callback.type == 6  # a deferred update: no words
    assert [what for what, _ in ix.events] == ["callback 6"]  # nothing said before the write
    release.set()
    reply = await said(fake, ix)
    assert reply.content == f"🔒 Locked in: {right}"
