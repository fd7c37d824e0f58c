"""A quiz named in a group command by its title, whole or in part, and a quiz named wrong:
/round and /settings quiz listed "• Title (id)" for an organiser to copy the id out of
brackets and retype on a phone; they list titles, say what to do, and take a title."""

from __future__ import annotations

from bot.domain import payloads as payload
from bot.present.i18n import strip_isolates
from bot.store.commands import groups_sql, rounds_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data, buttons
from tests.adapters.telegram.support import Running

GROUP = -1001234


def no_ids(bot: Running, text: str) -> None:
    """No quiz id shows: in brackets, or one with a hyphen anywhere (an id that is also a
    word of a title, like "parallelism", may show as that word)."""
    for quiz_id in bot.app.engine.library.quizzes:
        assert f"({quiz_id})" not in text and not ("-" in quiz_id and quiz_id in text), text


async def test_a_quiz_named_wrong_lists_titles_and_a_title_is_taken(
        bot: Running, api: FakeBotAPI) -> None:
    group = api.group_chat(GROUP)
    admin = Learner(api, api.user(1001, "Ada"), group)
    api.members[(GROUP, 1001)] = "administrator"
    engine = bot.app.engine
    titles = [f"• {q.title.get('en')}" for q in engine.library.ordered()]
    for command in ("/round pipline", "/settings quiz pipline", "/round pipline 20 5"):
        since = admin.mark()
        await admin.send(command)
        text = (await admin.reply(since))["text"]
        assert text.splitlines() == [
            "There is no quiz called pipline. Send the command again with one of these "
            "titles (a word of it that no other title has is enough):", *titles], command
        no_ids(bot, text)
    assert await bot.app.store.read(rounds_sql.active_round, "telegram", str(GROUP)) is None

    # the settings say the quiz by its title, and how to name one: by its title
    since = admin.mark()
    await admin.send("/settings quiz Parallelism in depth")  # a part of its title
    text = (await admin.reply(since))["text"]
    assert "Quiz for rounds and /quiz here: Parallelism in depth: schedules, memory and " \
        "communication\n" in text
    assert "/settings quiz and the quiz's title" in text
    no_ids(bot, text)
    chosen = await bot.app.store.read(groups_sql.group_choice, "telegram", str(GROUP))
    assert chosen[0] == "parallelism-deep"

    since = admin.mark()  # the whole Urdu title, the seconds after it
    await admin.send(f"/round {engine.quiz('long-context').title.get('ur')} 20")
    await admin.reply(since, lambda m: bool(m.get("reply_markup")))  # question 1 posted
    row = await bot.app.store.read(rounds_sql.active_round, "telegram", str(GROUP))
    assert row is not None and row.quiz_id == "long-context"


async def test_a_quiz_named_wrong_in_urdu(bot: Running, api: FakeBotAPI) -> None:
    group = api.group_chat(GROUP)
    admin = Learner(api, api.user(1001, "عائشہ", language_code="ur"), group)
    api.members[(GROUP, 1001)] = "administrator"
    since = admin.mark()
    await admin.send("/settings quiz pipline")
    text = strip_isolates((await admin.reply(since))["text"])
    assert text.splitlines() == [
        "pipline نام کا کوئی کوئز موجود نہیں۔ کمانڈ دوبارہ بھیجیں اور ساتھ ان میں سے کسی کوئز کا "
        "نام لکھیں (نام کا ایک ایسا لفظ کافی ہے جو کسی اور کوئز کے نام میں نہ ہو):",
        *[f"• {q.title.get('ur')}" for q in bot.app.engine.library.ordered()]]
    no_ids(bot, text)


async def test_a_word_several_titles_hold_offers_just_those(
        bot: Running, api: FakeBotAPI) -> None:
    """"pipeline" is part of two titles: it was answered "There is no quiz called pipeline",
    which is untrue. /quiz offers those two as buttons (private: start; group: links);
    /round, /settings quiz, /stats, /leaderboard, /review last list those two titles."""
    private = Learner(api, api.user(1001, "Ada"))
    since = private.mark()
    await private.send("/quiz pipeline")
    listing = await private.reply(since)
    assert listing["text"].startswith(
        "pipeline is part of several quiz titles: tap the one you mean.\n\nQuizzes\n")
    assert [payload.decode(d).arg for d in button_data(listing)] == [
        "parallelism", "pipeline-schedules"]
    no_ids(bot, listing["text"])

    group = api.group_chat(GROUP)
    admin = Learner(api, api.user(1001, "Ada"), group)
    api.members[(GROUP, 1001)] = "administrator"
    since = admin.mark()
    await admin.send("/quiz pipeline")
    links = [b["url"] for row in buttons(await admin.reply(since)) for b in row]
    chat = payload.base36(-GROUP)
    assert links == [f"https://t.me/quizbot_test_bot?start=g{chat}_{quiz}"
                     for quiz in ("parallelism", "pipeline-schedules")]
    titles = ["• Model and pipeline parallelism",
              "• Pipeline schedules past 1F1B: Zero Bubble, DualPipe and their costs"]
    for command in ("/round pipeline", "/settings quiz pipeline", "/stats pipeline",
                    "/leaderboard pipeline", "/review last pipeline"):
        since = admin.mark()
        await admin.send(command)
        text = (await admin.reply(since))["text"]
        assert text.splitlines() == [
            "pipeline is part of several quiz titles. Send the command again with one of "
            "them (its whole title, or a word of it that no other title has):", *titles], command
    assert await bot.app.store.read(rounds_sql.active_round, "telegram", str(GROUP)) is None
    assert await bot.app.store.read(groups_sql.group_choice, "telegram", str(GROUP)) in (
        None, (None, None))

    urdu = Learner(api, api.user(1002, "عائشہ", language_code="ur"))
    since = urdu.mark()
    await urdu.send("/stats پائپ لائن")
    text = strip_isolates((await urdu.reply(since))["text"])
    assert text.splitlines() == [
        "پائپ لائن کئی کوئز کے ناموں کا حصہ ہے۔ کمانڈ دوبارہ بھیجیں اور ساتھ ان میں سے "
        "کسی ایک کا نام لکھیں (پورا نام، یا اس کا کوئی ایسا لفظ جو کسی اور کوئز کے نام میں نہ ہو):",
        *[f"• {bot.app.engine.quiz(q).title.get('ur')}"
          for q in ("parallelism", "pipeline-schedules")]]
    since = urdu.mark()
    await urdu.send("/quiz pipeline")
    listing = await urdu.reply(since)
    assert strip_isolates(listing["text"]).startswith(
        "pipeline کئی کوئز کے ناموں کا حصہ ہے: جو کوئز آپ چاہتے ہیں اسے دبائیں۔")
    assert len(button_data(listing)) == 2
