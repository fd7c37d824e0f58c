"""Computed questions on Discord: the attempt's numbers on the question, the schedule drawn
for them as the answered embed's image (real discord.py against the fake Discord)."""

from __future__ import annotations

from adapters.discord.views import MARKDOWN
from bot.app.compose import App
from bot.domain.quiz.computed import draw
from bot.present.render import content_text
from bot.store.commands import sessions_sql

from .conftest import ALICE, GUILD, answer, button_for, replied
from .fake_discord import FakeDiscord

NUMBERS = "parallelism-numbers"


async def test_drawn_numbers_and_their_schedule_image(fake: FakeDiscord, bot: App) -> None:
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                              options={"quiz": NUMBERS}))
    question = ix.original
    assert question is not None and question.embeds[0]["title"].startswith("Question 1/14")
    row = await bot.store.read(sessions_sql.active_session, "discord", ALICE["id"], NUMBERS)
    assert row is not None and row.seed is not None
    quiz = bot.engine.quiz(NUMBERS)
    for n in range(4):
        lines = question.embeds[0]["description"].splitlines()
        drawn = draw(quiz.questions[n], row.seed)
        assert MARKDOWN.escape(content_text("en", drawn.text.get("en"))) in lines
        key = MARKDOWN.escape(content_text("en", drawn.options[drawn.correct].text.get("en")))
        options = [line for line in lines if line[:2] == "**" and line[3:6] == "**)"]
        assert len(options) == len(drawn.options)  # the "or type" line is not an option
        shown = next(i for i, line in enumerate(options) if line.endswith(f") {key}"))
        ix = await answer(fake, ALICE, question, button_for(question, shown))
        # acknowledged by the edit itself (picture drawn first), then the next question
        assert ix.callback is not None and ix.callback.type == 7
        assert [what for what, _ in ix.events] == ["callback 7", "follow-up"]
        embed = question.embeds[0]  # the question, edited into its result
        assert "Correct!" in embed["description"] and "{" not in embed["description"]
        if drawn.schedule is not None:
            assert embed["image"]["url"] == f"attachment://{drawn.schedule.name}.png"
        else:
            assert "image" not in embed
        (question,) = ix.followups
    assert n == 3 and drawn.schedule is None
