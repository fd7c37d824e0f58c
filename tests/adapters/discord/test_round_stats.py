"""A round counts as an attempt at its quiz; /stats then gives each score out of that
attempt's own questions: a 2-question round's 2 right is 2/2, not "Last score: 2/8"."""

from __future__ import annotations

from bot.app.compose import App

from .conftest import ALICE, GUILD, PLAY, answer, replied, right_id, wrong_id
from .fake_discord import FakeDiscord
from .test_rounds import Room, letter_of, question_of


async def two_right_in_a_short_round(fake: FakeDiscord, bot: App) -> None:
    """Alice plays a 2-question round (`/round start questions:2`) and gets both right."""
    room = Room(fake, bot)
    await replied(fake, await fake.slash(ALICE, "round", guild=GUILD, subcommand="start",
                                         options={"seconds": 20, "questions": 2}))
    for number in (1, 2):
        message = await room.question(number)
        await room.press(ALICE, message, letter_of(message, question_of(message).correct))
        room.advance(20)
        await room.reveal(message)
        room.advance(5)


async def test_stats_after_a_short_round(fake: FakeDiscord, bot: App) -> None:
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options=PLAY))
    question = ix.original
    assert question is not None
    for n in range(8):  # a solo attempt: 6/8
        ix = await answer(fake, ALICE, question, wrong_id(question) if n < 2
                          else right_id(question))
        question = ix.followups[0]
    assert "6/8" in question.text

    await two_right_in_a_short_round(fake, bot)

    ix = await replied(fake, await fake.slash(ALICE, "stats", guild=GUILD))
    assert ix.original is not None
    lines = ix.original.text.splitlines()
    assert "Attempts: 2" in lines
    assert "Best score: 6/8" in lines
    assert "Last score: 2/2" in lines  # the round's, out of its 2 questions


async def test_a_best_from_a_short_round_is_out_of_its_own_questions(fake: FakeDiscord,
                                                                    bot: App) -> None:
    await two_right_in_a_short_round(fake, bot)

    ix = await replied(fake, await fake.slash(ALICE, "quizzes", guild=GUILD))
    assert ix.original is not None
    listed = ix.original.text + " ".join(b.get("label", "") for b in ix.original.buttons)
    assert "2/2" in listed and "2/8" not in listed  # the round's best, of its 2 questions
