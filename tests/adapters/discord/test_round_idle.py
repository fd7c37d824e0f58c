"""A round nobody plays ends by itself on the fake Discord, with the test's clock: after two
questions in a row nobody answered, the second one's reveal is the round's podium with why
it ended and Discord's way to start another (/round start), in English and Urdu; nothing
more is posted into the channel."""

from __future__ import annotations

import pytest

from bot.app.compose import App
from bot.domain.results import Actor
from bot.present.i18n import strip_isolates

from .conftest import ALICE, CHANNEL, GUILD, replied
from .fake_discord import FakeDiscord, Message
from .test_rounds import Room

ENDED = {
    "en": ("The round ended by itself: nobody answered the last 2 questions. "
           "Start another with /round start"),
    "ur": ("راؤنڈ خود ہی ختم ہو گیا: آخری 2 سوالوں کا کسی نے جواب نہیں دیا۔ "
           "نیا راؤنڈ شروع کرنے کے لیے /round start بھیجیں"),
}


async def posted(fake: FakeDiscord, count: int) -> Message:
    """The channel's `count`-th message (a round question, in any language)."""
    def found() -> Message | None:
        mine = [m for m in fake.channel_messages if m.channel_id == CHANNEL and m.embeds]
        return mine[count - 1] if len(mine) >= count else None
    return await fake.wait_for(found, what=f"channel message {count}")


async def revealed(fake: FakeDiscord, message: Message) -> str:
    """The question once edited into its reveal (its letters gone)."""
    await fake.wait_for(lambda: not any(len(b["label"]) == 1 for b in message.buttons),
                        what="the reveal edit")
    return strip_isolates(str(message.embeds[0]["description"]))


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_a_round_nobody_answers_ends_after_question_2(fake: FakeDiscord, bot: App,
                                                            lang: str) -> None:
    room = Room(fake, bot)
    await bot.engine.set_language(Actor("discord", str(ALICE["id"]), None, "alice"), lang)
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                         options={"seconds": 20}))
    first = await posted(fake, 1)
    room.advance(20)
    assert ENDED[lang] not in await revealed(fake, first)  # one silent question: goes on
    room.advance(5)
    second = await posted(fake, 2)
    room.advance(20)
    reveal = await revealed(fake, second)
    assert "🏁" in reveal and ENDED[lang] in reveal, reveal
    room.advance(600)  # long past the other six questions
    await bot.scheduler.run_until_idle()
    await bot.scheduler.idle()
    # two channel calls per question, for two questions: 4, not 16
    assert [what for what, _, _ in fake.channel_log] == ["post", "edit", "post", "edit"]
    assert not await bot.engine.round_running("discord", str(CHANNEL))
