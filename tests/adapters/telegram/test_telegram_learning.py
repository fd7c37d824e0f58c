"""Spaced review on Telegram against the fake Bot API: /review, /settings, /remind, /stats."""

from __future__ import annotations

import threading
import time

import pytest

from bot.domain.learning import next_occurrence
from bot.domain.results import Actor, AnswerResult
from bot.domain.stats_results import Progress
from bot.features.jobs import Scheduler
from bot.features.reminders import Reminders
from bot.features.review import reminder_kind
from bot.present import chart
from bot.store.commands import learning_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data, buttons, is_question
from tests.adapters.telegram.support import Running
from tests.clock import FakeClock
from tests.helpers import right_option, wrong_option

ALICE = Actor("telegram", "1001", None, "Alice Smith")


def alice(api: FakeBotAPI) -> Learner:
    return Learner(api, api.user(1001, "Alice", "Smith", language_code="en"))


async def answer_all(bot: Running, wrong: set[int]) -> None:
    """Alice plays the whole quiz through the engine (the adapter's own tests cover taps)."""
    engine, quizzes = bot.app.engine, {"parallelism": bot.app.engine.quiz("parallelism")}
    prompt = await engine.start(ALICE)
    while True:
        pick = wrong_option if prompt.position in wrong else right_option
        result = await engine.answer(ALICE, prompt.session_id, prompt.position,
                                     pick(quizzes, prompt))
        assert isinstance(result, AnswerResult)
        if result.next is None:
            return
        prompt = result.next


async def test_review_serves_due_questions_and_review_last_the_misses(bot: Running,
                                                                       api: FakeBotAPI):
    learner = alice(api)
    since = learner.mark()
    await learner.send("/review")
    never = await learner.reply(since)
    assert never["text"] == bot.cat.t("en", "error.nothing_due_never")
    await answer_all(bot, wrong={1, 4})
    since = learner.mark()
    await learner.send("/review")  # the misses come back in a minute, the rest later
    soon = await learner.reply(since)
    assert soon["text"] == bot.cat.t("en", "error.nothing_due_minutes", amount=1)
    since = learner.mark()
    await learner.send("/review last")
    question = await learner.reply(since, is_question)
    assert "Review 1/2" in question["text"]


async def test_confidence_setting_adds_a_guess_row_that_rates_hard(bot: Running,
                                                                   api: FakeBotAPI):
    learner = alice(api)
    since = learner.mark()
    await learner.send("/settings")
    settings = await learner.reply(since, lambda m: "settings" in m.get("text", ""))
    assert "sure or a guess: off" in settings["text"]
    since = learner.mark()
    query = await learner.press(settings, bot.cat.t("en", "button.confidence_on"))
    await learner.toast(query)
    await learner.edited(since, lambda m: "sure or a guess: on" in m["text"])
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    rows = buttons(question)
    assert [[b["text"] for b in row] for row in rows] == [
        ["A 👍", "B 👍", "C 👍", "D 👍"], ["A 🤔", "B 🤔", "C 🤔", "D 🤔"]]
    since = learner.mark()
    await learner.press(question, "B 🤔")
    await learner.edited(since, lambda m: "Correct!" in m["text"] or "Not quite." in m["text"])
    [total] = await bot.app.store.read(learning_sql.review_totals, "telegram", "1001")
    assert total.sure is False and total.answered == 1


async def test_reminder_goes_out_once_then_a_block_turns_it_off(bot: Running, api: FakeBotAPI):
    learner = alice(api)
    since = learner.mark()
    await learner.send("/remind 19:30 +05:00")
    confirm = await learner.reply(since)
    assert confirm["text"] == bot.cat.t("en", "remind.set", time="19:30", offset="UTC+05:00")
    await answer_all(bot, wrong=set())
    clock = FakeClock(next_occurrence(time.time() + 3 * 86400, 19 * 60 + 30, 300))
    reminders = Reminders(bot.app.engine, {"telegram": bot.adapter.reminder_sender()},
                          clock=clock, sleep=clock.sleep)
    scheduler = Scheduler(bot.app.store, {reminder_kind("telegram"): reminders}, clock=clock)
    since = learner.mark()
    assert await scheduler.run_until_idle() == 1
    note = await learner.reply(since, lambda m: "due for review" in m.get("text", ""))
    assert note["text"] == bot.cat.t("en", "reminder.text", due=8)
    assert button_data(note)[0].startswith("q2:due:")
    assert await scheduler.run_until_idle() == 0  # once
    # The button opens the spaced review (the engine's clock is real: not due yet there).
    query = await learner.press(note, bot.cat.t("en", "button.review_now"))
    toast = await learner.toast(query)
    assert toast.params["text"].startswith("Nothing is due now. Next review in")

    api.inject("sendMessage", 403, "Forbidden: bot was blocked by the user")
    clock.advance(86400)
    assert await scheduler.run_until_idle() == 1
    assert (await bot.app.engine.settings(ALICE)).remind_at is None
    clock.advance(86400)
    assert await scheduler.run_until_idle() == 0


async def test_stats_come_with_a_chart(bot: Running, api: FakeBotAPI,
                                       monkeypatch: pytest.MonkeyPatch):
    learner = alice(api)
    await answer_all(bot, wrong={0})
    drawn_on: list[threading.Thread] = []
    draw = chart.progress_png

    def drawing(progress: Progress) -> bytes:
        drawn_on.append(threading.current_thread())
        return draw(progress)

    monkeypatch.setattr(chart, "progress_png", drawing)
    since = learner.mark()
    await learner.send("/stats")
    await learner.barrier()
    # drawn off the event loop's thread (a learner of every quiz takes ~0.6 s to draw)
    assert len(drawn_on) == 1 and drawn_on[0] is not threading.main_thread()
    photos = [c for c in api.calls[since:] if c.method == "sendPhoto"]
    texts = [c for c in api.calls[since:] if c.method == "sendMessage"]
    assert len(photos) == 1
    [text] = [c.params.get("caption") for c in photos if "caption" in c.params] or [
        c.params["text"] for c in texts if "Your stats" in c.params["text"]]
    assert "Spaced review" in text and "Streak: 1 day in a row" in text
    assert "Due now: 0 of 8" in text and "Accuracy per question" in text
