"""Team rounds on the fake Discord, with the test's clock: `/round start teams:4`, 40
members join by button on the public answer (a few pick a team, the rest "Any team"), are
drafted into even teams, cannot switch, and the reveal ranks the teams by their mean."""

from __future__ import annotations

from bot.app.compose import App
from bot.store.commands import round_teams_sql, rounds_sql

from .conftest import ALICE, GUILD, replied, said
from .fake_discord import FakeDiscord, user
from .test_rounds import Room, letter_of, question_of

TEAMS = ["🟥 Red", "🟦 Blue", "🟩 Green", "🟨 Yellow"]


async def test_forty_members_in_four_teams(fake: FakeDiscord, bot: App) -> None:
    room = Room(fake, bot)
    ix = await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                              options={"seconds": 20, "questions": 1,
                                                       "teams": 4}))
    lobby = ix.original
    assert lobby is not None and not lobby.ephemeral
    assert [b["label"] for b in lobby.buttons] == [*TEAMS, "🎲 Any team"]
    assert "Scoring: accuracy" in lobby.content

    members = [user(1_600_000_000_000_000_000 + i, f"p{i:02d}") for i in range(40)]

    async def press(who: dict[str, object], label: str) -> str:
        reply = await said(fake, await fake.press(who, lobby,
                                                  str(lobby.button(label)["custom_id"])))
        return reply.content

    for i, m in enumerate(members):
        told = await press(m, "🟥 Red" if i < 4 else "🎲 Any team")
        assert told.startswith("You are on 🟥 Red." if i < 4 else "You are in:")
    assert (await press(members[0], "🟦 Blue")).startswith("You are already on 🟥 Red")

    room.advance(30)
    first = await room.question(1)
    round_id = (await bot.store.read(rounds_sql.active_round,
                                     "discord", str(first.channel_id))).id  # type: ignore[union-attr]
    roster: dict[int, list[str]] = {}
    for m in await bot.store.read(round_teams_sql.members, round_id):
        assert m.team is not None
        roster.setdefault(m.team, []).append(m.user_id)
    assert sorted(len(r) for r in roster.values()) == [10, 10, 10, 10]
    assert {str(members[i]["id"]) for i in range(4)} <= set(roster[0])

    # Team t: 10 - 2t of its members right; means 1.0, 0.8, 0.6, 0.4.
    question = question_of(first)
    right = letter_of(first, question.correct)
    wrong = letter_of(first, (question.correct + 1) % 4)
    by_id = {str(m["id"]): m for m in members}
    for team, ids in roster.items():
        for n, uid in enumerate(sorted(ids)):
            letter = right if n < 10 - 2 * team else wrong
            told = await room.press(by_id[uid], first, letter)
            # drafted ("Any team") or not, the lock-in names the member's team: nothing else
            # told a drafted member which team they were on
            assert told == f"🔒 Locked in: {letter}. You are on {TEAMS[team]}."
    room.advance(20)
    await fake.wait_for(lambda: "Final podium" in first.embeds[0]["description"],
                        what="the podium")
    podium = first.embeds[0]["description"]
    lines = [line.split(" · ")[0] for line in podium.splitlines() if "👥" in line]
    assert lines == ["🥇 1. 🟥 Red: 1.0", "🥈 2. 🟦 Blue: 0.8", "🥉 3. 🟩 Green: 0.6",
                     "▫️ 4. 🟨 Yellow: 0.4"]
    assert "Scoring: accuracy" in podium


async def test_the_lobby_loses_its_buttons_when_the_round_ends(fake: FakeDiscord,
                                                               bot: App) -> None:
    """A finished (or stopped) team round's lobby kept its join buttons: pressed, they
    said the round was over. Its end takes them off: one edit of the lobby, once."""
    room = Room(fake, bot)

    async def one_round(stop: bool) -> None:
        before = len(fake.channel_messages)
        ix = await replied(fake, await fake.slash(ALICE, "round", guild=GUILD,
                                                  subcommand="start",
                                                  options={"seconds": 20, "questions": 1,
                                                           "teams": 2}))
        lobby = ix.original
        assert lobby is not None and len(lobby.buttons) == 3
        room.advance(30)
        first = await fake.wait_for(lambda: next(
            (m for m in fake.channel_messages[before:] if m.embeds and m.embeds[0].get(
                "title", "").startswith("Round · Question 1/")), None), what="question 1")
        if stop:
            await replied(fake, await fake.slash(ALICE, "round", guild=GUILD,
                                                 subcommand="stop"))
        else:
            room.advance(20)
        await fake.wait_for(lambda: "Final podium" in first.embeds[0]["description"]
                            or "stopped" in first.embeds[0]["description"],
                            what="the round's end")
        await fake.wait_for(lambda: lobby.buttons == [], what="the lobby's buttons gone")
        # it kept saying "The first question opens in 30 s": now that it is over, and how on
        assert lobby.content == (f"This round of {bot.engine.quiz().title.get('en')} is "
                                 "over. To play another, use /round start")
        assert len([e for e in fake.channel_log if e[:2] == ("edit", lobby.id)]) == 1

    await one_round(stop=False)
    room.clock.now += 60  # past the lobby of the next round
    await one_round(stop=True)
