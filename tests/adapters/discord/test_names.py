"""Members' display names on the fake Discord are plain text wherever they show: a name
that reads as a channel link, a timestamp, a role or user mention, a URL or Markdown stays
those characters (round announcements, reveals, podiums, "Who answered?", boards, a refusal
naming the host); every such place goes through `views.member_name`."""

from __future__ import annotations

import re

from adapters.discord.views import INERT, member_name
from bot.app.compose import App

from .conftest import ALICE, BOB, CHANNEL, GUILD, replied
from .fake_discord import FakeDiscord, user
from .test_rounds import Room, letter_of, question_of

HOSTILE = f"<#{CHANNEL}><t:1:R>https://e.x </quiz:1> @here **M**"  # under NAME_SHOWN
MALLORY = {**user(1_500_000_000_000_000_009, "mallory"), "global_name": HOSTILE}
# anything Discord would turn into a link, a mention, a live clock or a command
LIVE = re.compile(r"<[#@:/]|<t:|<a:|[A-Za-z]+://|@here|@everyone")


def shown(text: str) -> str:
    """What a reader sees: the zero-width spaces and Markdown escapes gone."""
    return text.replace(INERT, "").replace("\\", "")


def inert(text: str) -> None:
    assert LIVE.search(text) is None, text
    assert shown(HOSTILE.replace("**", "")) in shown(text).replace("**", "")


def test_member_name_breaks_every_form_and_keeps_the_characters() -> None:
    for name in (f"<#{CHANNEL}>", "<t:1800000000:F>", "<@&1>", "<@!1>", "</round start:1>",
                 "<:wave:1>", "<a:wave:1>", "https://x.example", "steam://run/1",
                 "@everyone", "HTTP://X.EXAMPLE"):
        assert LIVE.search(member_name(name)) is None, name
        assert shown(member_name(name)) == name
    assert member_name("Ayesha") == "Ayesha"  # an ordinary name is untouched


async def test_a_hostile_display_name_stays_text_in_rounds_and_boards(
        fake: FakeDiscord, bot: App) -> None:
    room = Room(fake, bot)
    ix = await replied(fake, await fake.slash(MALLORY, "round", guild=GUILD,
                                              subcommand="start",
                                              options={"seconds": 20, "questions": 2}))
    assert ix.original is not None
    inert(ix.original.content)  # "… started a round"
    first = await room.question(1)
    await room.press(MALLORY, first, letter_of(first, question_of(first).correct))
    room.advance(21)
    reveal = await room.reveal(first)
    assert "Got it right:" in reveal
    inert(reveal)
    who = await replied(fake, await fake.press(
        BOB, first, first.button("📖 Why? · Who answered")["custom_id"]))
    assert who.original is not None
    inert(who.original.embeds[0]["description"])

    room.advance(5)
    await room.question(2)
    fake.permissions[BOB["id"]] = "0"  # Bob may not stop it: the refusal names the host
    refused = await replied(fake, await fake.slash(BOB, "round", guild=GUILD,
                                                   subcommand="stop"))
    assert refused.original is not None and refused.original.content.startswith("Only ")
    inert(refused.original.content)
    await replied(fake, await fake.slash(MALLORY, "round", guild=GUILD, subcommand="stop"))
    second = await room.question(2)
    podium = await room.reveal(second)
    assert "Final podium" in podium
    inert(podium)

    board = await replied(fake, await fake.slash(ALICE, "leaderboard", guild=GUILD,
                                                 options={"kind": "rounds"}))
    assert board.original is not None and "1." in board.original.text
    inert(board.original.text)
