"""Answers at a glance on Telegram: the takeaway in bold first, the explanation in an
expandable quote, a running score, and no more Bot API calls per answer than before."""

from __future__ import annotations

from bot.domain.platforms import TELEGRAM, units
from bot.domain.quiz import default_content_dir, load_quizzes
from bot.present.i18n import strip_isolates
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, is_question
from tests.adapters.telegram.support import AnswerKey, Running


async def test_takeaway_first_explanation_expandable_calls_unchanged(
        bot: Running, api: FakeBotAPI) -> None:
    quiz = load_quizzes([default_content_dir()])["parallelism-deep"]
    key = AnswerKey(quiz)
    learner = Learner(api, api.user(1001, "Alice"))
    since = learner.mark()
    await learner.send("/quiz parallelism-deep")
    question = await learner.reply(since, is_question)
    first = quiz.questions[key.question(question["text"])]
    assert first.takeaway is not None
    since = learner.mark()
    await learner.press(question, key.right(question["text"]))
    second = await learner.reply(since, is_question)
    until = await learner.barrier()
    calls = [c.method for c in api.calls[since:until] if c.ok and c.method not in (
        "getUpdates",)]
    # the ack, the question edited into its result, its picture, the next question: the
    # same calls as before takeaways (the explanation rides in the same edit)
    assert calls == ["answerCallbackQuery", "editMessageText", "sendPhoto", "sendMessage"]
    edit = next(c for c in api.calls[since:until] if c.method == "editMessageText")
    source = str(edit.params["text"])
    head, _, quote = source.partition("<blockquote expandable>")
    assert head.startswith("<b>Question 1/22 · 1 right</b>")
    assert "<b>✅ Correct!</b>\n\n<b>" in head and "Right answer" not in head
    assert f"<b>{first.takeaway.get('en')}</b>" in head.replace("&lt;", "<").replace(
        "&gt;", ">").replace("&amp;", "&")
    assert quote.endswith("</blockquote>") and "Read more:" in quote
    assert units(edit.result["text"]) <= TELEGRAM.message_limit
    assert strip_isolates(second["text"]).startswith("Question 2/22 · 1 right")
    photo = next(c for c in api.calls[since:until] if c.method == "sendPhoto")
    assert first.schedule is not None
    assert photo.params["caption"] == (
        f"Schedule: GPipe · p = {first.schedule.p} GPUs · m = {first.schedule.m} "
        f"micro-batches · idle (bubble): 27% of the step")
