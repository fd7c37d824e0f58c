"""A server channel of 200, English and Urdu members mixed, presses a round's question
within the same second: every press is acknowledged inside Discord's 3 s (a deferred update
before any database work), then answered once, privately, in the member's language; the
question message itself is not touched until its reveal, and every press counts once."""

from __future__ import annotations

from bot.app.compose import App
from bot.store.commands import rounds_sql

from .conftest import ALICE, CHANNEL, GUILD, replied
from .fake_discord import FakeDiscord, user
from .test_rounds import Room, button_of, letter_of, question_of

MEMBERS = 200
URDU = range(0, MEMBERS, 20)  # ten members who chose Urdu


async def test_two_hundred_presses_in_a_second_are_acknowledged_in_time(
        fake: FakeDiscord, bot: App) -> None:
    room = Room(fake, bot)
    members = [user(1_600_000_000_000_000_000 + i, f"member{i}") for i in range(MEMBERS)]
    for i in URDU:
        await replied(fake, await fake.slash(members[i], "language",
                                             options={"language": "ur"}))
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                         options={"seconds": 20, "questions": 1}))
    first = await room.question(1)
    right = letter_of(first, question_of(first).correct)
    room.advance(2)
    channel_calls = sum(1 for _, p in fake.requests if p.startswith(f"/channels/{CHANNEL}/"))
    presses = [await fake.press(who, first, button_of(first, right)) for who in members]
    for ix in presses:
        await replied(fake, ix, followups=1)
    late = [ix.events[0] for ix in presses if ix.events[0][1] >= 3.0]
    assert not late, f"{len(late)} of {MEMBERS} acks after 3 s, e.g. {late[:3]}"
    slowest = max(ix.events[0][1] for ix in presses)
    assert slowest < 3.0, slowest
    for i, ix in enumerate(presses):
        assert [what for what, _ in ix.events] == ["callback 6", "follow-up"], ix.events
        lang = "ur" if i in URDU else "en"
        assert ix.followups[0].ephemeral
        assert ix.followups[0].content == bot.catalogue.t(lang, "round.locked", letter=right)
    # nothing posted or edited in the channel for the presses: the reveal says it all
    assert sum(1 for _, p in fake.requests
               if p.startswith(f"/channels/{CHANNEL}/")) == channel_calls
    rnd = await bot.store.read(rounds_sql.active_round, "discord", str(CHANNEL))
    assert rnd is not None
    assert len(await bot.store.read(rounds_sql.round_answers, rnd.id, 0)) == MEMBERS
