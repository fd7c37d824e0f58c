""""Report a problem" on Discord: the button under the explanation (ephemeral, the
learner's own), the reasons, the report stored, /report adding a line."""

from __future__ import annotations

from bot.app.compose import App
from bot.store.commands.reports_sql import open_reports

from .conftest import ALICE, BOB, GUILD, PLAY, answer, replied, wrong_id
from .fake_discord import FakeDiscord


async def test_report_a_problem_in_a_server(fake: FakeDiscord, bot: App) -> None:
    cat = bot.catalogue
    question = (await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                                     options=PLAY))).original
    assert question is not None
    await answer(fake, ALICE, question, wrong_id(question))
    report = question.buttons[-1]
    assert report["label"] == cat.t("en", "button.report")
    stranger = await replied(fake, await fake.press(BOB, question, report["custom_id"]))
    assert stranger.original is None or not stranger.original.buttons  # not Bob's to press
    ix = await replied(fake, await fake.press(ALICE, question, report["custom_id"]))
    reasons = ix.original  # the reasons answer the press, privately
    assert reasons is not None
    assert reasons.ephemeral and [b["label"] for b in reasons.buttons] == [
        cat.t("en", f"report.reason_{n}") for n in ("wrong", "unclear", "translation", "other")]
    await replied(fake, await fake.press(ALICE, reasons, reasons.buttons[0]["custom_id"]))
    ix = await replied(fake, await fake.slash(ALICE, "report", guild=GUILD,
                                              options={"note": "B is right too"}))
    assert ix.original is not None and ix.original.ephemeral
    assert ix.original.content == cat.t("en", "report.noted")
    [row], count = await bot.store.read(open_reports, 10)
    assert (count, row.platform, row.user_id, row.reason, row.note) == (
        1, "discord", str(ALICE["id"]), "wrong", "B is right too")
