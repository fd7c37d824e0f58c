"""A learner who changes language mid-quiz goes on in the new language: the "▶ Start" under
"Language set" picks up the quiz left unfinished (as /quiz does), and a /quiz or Start
seconds after question 1 was posted in the old language posts it again in the new one
rather than pointing at a question "just above" that the learner cannot read."""

from __future__ import annotations

from typing import Any

from bot.present.i18n import strip_isolates
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data, buttons, is_question
from tests.adapters.telegram.support import AnswerKey, Running
from tests.adapters.telegram.test_telegram_rounds import Room


async def to_urdu(learner: Learner) -> dict[str, Any]:
    """/language, then اردو: the edited "Language set" message with its Start button."""
    since = learner.mark()
    await learner.send("/language")
    prompt = await learner.reply(since)
    since = learner.mark()
    await learner.toast(await learner.press(prompt, "اردو"))
    return await learner.edited(since)


async def test_language_with_its_code_or_name_sets_it_at_once(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    """`/language ur` (as /help's "/language: English or Urdu" invites) posted the chooser
    and ignored the word, one more post and a press for a group member; Discord's
    /language language:ur sets it at once. So does Telegram's now, by code or by name."""
    room = Room(bot, api)
    gita = Learner(api, api.user(4004, "Gita"), room.group)
    for typed, said in (("/language ur", "زبان اردو کر دی گئی ہے۔"),
                        ("/language English", "Language set to English."),
                        ("/language اردو", "زبان اردو کر دی گئی ہے۔"),
                        ("/language fr", "یہ زبان دستیاب نہیں: fr۔ en یا ur منتخب کریں۔")):
        since = gita.mark()
        await gita.send(typed)
        reply = await gita.reply(since)
        assert strip_isolates(reply["text"]) == said, typed
        assert not buttons(reply)  # no chooser
    since = room.hana.mark()
    await room.hana.send("/round 20")
    question = await room.question(since)
    pick = key.right(question["text"])
    assert strip_isolates(await room.press(gita, question, pick)) == f"🔒 جواب محفوظ: {pick}"


async def test_start_after_a_language_change_resumes_the_unfinished_quiz(
        bot: Running, api: FakeBotAPI, quizzes: dict[str, Any]) -> None:
    learner = Learner(api, api.user(5005, "Noor"))
    since = learner.mark()
    await learner.send("/quiz pipeline-schedules")  # not the default quiz
    question = await learner.reply(since, is_question)
    since = learner.mark()
    await learner.toast(await learner.press(question, "A"))
    await learner.reply(since, lambda m: is_question(m) and "Question 2/" in m["text"])

    done = await to_urdu(learner)
    assert strip_isolates(done["text"]) == bot.cat.t("ur", "language.set")
    since = learner.mark()
    await learner.press(done, bot.cat.t("ur", "button.start"))
    resumed = strip_isolates((await learner.reply(since, is_question))["text"])
    total = len(quizzes["pipeline-schedules"].questions)  # the default quiz has 8
    assert resumed.startswith(f"سوال 2/{total}")  # the quiz left unfinished, in Urdu
    assert strip_isolates(bot.cat.t("ur", "question.resumed")) in resumed


async def test_quiz_seconds_after_a_language_change_posts_question_1_again_in_it(
        bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    learner = Learner(api, api.user(6006, "Omar"))
    since = learner.mark()
    await learner.send("/quiz parallelism")
    first = await learner.reply(since, is_question)
    assert "Question 1/8" in first["text"]
    since = learner.mark()
    await learner.send("/quiz parallelism")  # a second /quiz in the same language: it is just above
    assert (await learner.reply(since))["text"] == bot.cat.t(
        "en", "question.joined", number=1)

    await to_urdu(learner)
    since = learner.mark()
    await learner.send("/quiz parallelism")  # seconds later, now in Urdu
    again = await learner.reply(since)
    assert is_question(again), again["text"]
    assert strip_isolates(again["text"]).startswith("سوال 1/8")
    assert sorted(button_data(again)) == sorted(button_data(first))  # the same attempt
    query = await learner.press(again, key.right(again["text"], "ur"))
    assert (await learner.toast(query)).params["text"] == bot.cat.t(
        "ur", "answer.toast_correct")
    # the Start under "Language set" seconds later does the same
    other = Learner(api, api.user(6007, "Zara"))
    since = other.mark()
    await other.send("/quiz parallelism")
    first = await other.reply(since, is_question)
    done = await to_urdu(other)
    since = other.mark()
    await other.press(done, bot.cat.t("ur", "button.start"))
    again = await other.reply(since)
    assert is_question(again) and strip_isolates(again["text"]).startswith("سوال 1/8")
    assert sorted(button_data(again)) == sorted(button_data(first))


async def test_language_typed_mid_quiz_offers_start_to_go_on_in_it(
        bot: Running, api: FakeBotAPI, quizzes: dict[str, Any]) -> None:
    """`/language ur` typed mid-quiz in a private chat said only 'Language set', under a
    question in English and with no way on but guessing /quiz; a press on the chooser's
    button had Start. Typed, it has the same Start, which goes on with the quiz in Urdu."""
    learner = Learner(api, api.user(7007, "Zara"))
    since = learner.mark()
    await learner.send("/quiz pipeline-schedules")
    question = await learner.reply(since, is_question)
    since = learner.mark()
    await learner.toast(await learner.press(question, "A"))
    await learner.reply(since, lambda m: is_question(m) and "Question 2/" in m["text"])

    since = learner.mark()
    await learner.send("/language ur")
    done = await learner.reply(since)
    assert done["text"] == bot.cat.t("ur", "language.set")
    since = learner.mark()
    await learner.press(done, bot.cat.t("ur", "button.start"))
    resumed = strip_isolates((await learner.reply(since, is_question))["text"])
    total = len(quizzes["pipeline-schedules"].questions)
    assert resumed.startswith(f"سوال 2/{total}")  # the same attempt, in Urdu
