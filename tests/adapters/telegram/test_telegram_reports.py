""""Report a problem" on Telegram: the button under an explanation, the reasons, the report
stored once, and /report adding a line (real python-telegram-bot, fake Bot API)."""

from __future__ import annotations

from bot.store.commands.reports_sql import open_reports
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, buttons, is_question
from tests.adapters.telegram.support import AnswerKey, Running


async def test_report_a_problem_under_an_explanation(bot: Running, api: FakeBotAPI,
                                                     key: AnswerKey) -> None:
    learner, cat = Learner(api, api.user(1001, "Alice")), bot.cat
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    since = learner.mark()
    await learner.press(question, key.wrong(question["text"]))
    await learner.reply(since, is_question)  # the next question: the first one is explained
    await learner.press(question, cat.t("en", "button.report"))
    ask = await learner.reply(since, lambda m: m["text"] == cat.t("en", "report.ask"))
    assert [[b["text"] for b in row] for row in buttons(ask)] == [
        [cat.t("en", f"report.reason_{n}")] for n in ("wrong", "unclear", "translation",
                                                      "other")]
    since = learner.mark()
    await learner.press(ask, cat.t("en", "report.reason_translation"))
    thanks = await learner.edited(since, lambda m: m["text"].startswith("Thanks!"))
    assert not buttons(thanks)
    since = learner.mark()
    await learner.send("/report the Urdu says the opposite")
    assert (await learner.reply(since))["text"] == cat.t("en", "report.noted")
    [row], count = await bot.app.store.read(open_reports, 10)
    assert count == 1 and (row.reason, row.note) == ("translation",
                                                      "the Urdu says the opposite")
    assert row.question_id == key.quiz.questions[0].id
