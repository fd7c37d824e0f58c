"""The catalogue on Telegram: /quizzes, its buttons, /quiz naming it, /help leading to it."""

from __future__ import annotations

from bot.domain import payloads as payload
from bot.domain.platforms import TELEGRAM, units
from bot.domain.quiz.model import LEVELS
from bot.domain.results import Actor
from bot.present.i18n import strip_isolates
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data, buttons, is_question
from tests.adapters.telegram.support import Running
from tests.helpers import play_through

SHIPPED = ("parallelism", "expert-parallelism", "long-context", "parallelism-deep",
           "parallelism-numbers", "pipeline-schedules")


async def test_quizzes_lists_every_quiz_with_level_and_best(bot: Running,
                                                            api: FakeBotAPI) -> None:
    learner = Learner(api, api.user(1001, "Alice"))
    await play_through(bot.app.engine, Actor("telegram", "1001"), "parallelism", miss=1)
    since = learner.mark()
    await learner.send("/quizzes")
    listing = await learner.reply(since)
    text = listing["text"]
    assert text.startswith("Quizzes\nTap a quiz to start it")
    assert units(text) <= TELEGRAM.message_limit
    labels = [row[0]["text"] for row in buttons(listing)]
    assert all(len(row) == 1 for row in buttons(listing))  # one quiz a row
    order = [q.id for q in bot.app.engine.library.ordered()]  # by level, then id
    assert sorted(order) == sorted(SHIPPED) and order[0] == "parallelism"
    levels = [bot.app.engine.quiz(q).level for q in order]
    assert levels == sorted(levels, key=LEVELS.index)
    assert labels[0] == "Model and pipeline parallelism · 8 q · Introduction · 7/8"
    schedules = labels[order.index("pipeline-schedules")]
    assert schedules == "Pipeline schedules past 1F1B: Zero Bubble… · 22 q · Advanced"
    assert all(len(label) <= 64 for label in labels)  # the numbers are never the part cut
    # the text holds every name whole (a phone cuts long button labels)
    assert "• Model and pipeline parallelism · 8 questions · Introduction · best 7/8" in text
    assert "• Pipeline schedules past 1F1B: Zero Bubble, DualPipe and their costs · 22 " \
        "questions · Advanced" in text
    assert button_data(listing) == [payload.encode_action("start", quiz, "1001")
                                    for quiz in order]

    since = learner.mark()
    await learner.press(listing, schedules)
    question = await learner.reply(since, is_question)
    assert "Question 1/22" in question["text"]


async def test_quiz_without_id_opens_the_catalogue(bot: Running, api: FakeBotAPI) -> None:
    """/quiz with no id is the catalogue (INTERFACES.md): every quiz by name, the default
    one first to tap for a newcomer; a named quiz starts at once, with no catalogue line."""
    learner = Learner(api, api.user(1001, "Alice"))
    since = learner.mark()
    await learner.send("/quiz")
    catalogue = await learner.reply(since)
    assert catalogue["text"].startswith("Quizzes\nTap a quiz to start it")
    labels = [b["text"] for row in buttons(catalogue) for b in row]
    assert len(labels) == len(bot.app.engine.quiz_infos("en")) and "▶" not in "".join(labels)
    assert not any(i.id in catalogue["text"] for i in bot.app.engine.quiz_infos("en")
                   if i.id not in i.title.lower())  # names, never ids
    since = learner.mark()
    await learner.press(catalogue, next(x for x in labels if x.startswith(
        bot.app.engine.quiz_info("en", "parallelism").title[:20])))
    question = await learner.reply(since, is_question)
    assert "Question 1/8" in question["text"]
    since = learner.mark()
    await learner.send("/quiz parallelism-deep")
    named = await learner.reply(since, is_question)
    assert "Question 1/22" in named["text"] and "/quizzes" not in named["text"]


async def test_review_a_topic_by_name(bot: Running, api: FakeBotAPI) -> None:
    learner = Learner(api, api.user(1001, "Alice"))
    since = learner.mark()
    await learner.send("/review bubble")
    question = await learner.reply(since, is_question)
    assert question["text"].startswith("Practice: Pipeline bubble 1/8")
    since = learner.mark()
    await learner.send("/review nope")
    # the topics as buttons, by name (never "Pipeline bubble (bubble)"): tap one to practise
    refusal = await learner.reply(since)
    assert refusal["text"] == "There is no topic called nope. Tap one of these to practise it:"
    labels = [row[0]["text"] for row in buttons(refusal)]
    assert "Pipeline bubble" in labels and len(labels) == len(bot.app.engine.topics())
    assert not any("(" + topic + ")" in label or label == topic
                   for label in labels for topic in bot.app.engine.topics())
    since = learner.mark()
    await learner.press(refusal, "Tensor parallelism")
    question = await learner.reply(since, is_question)
    assert question["text"].startswith("Practice: Tensor parallelism 1/")
    # in Urdu, the names in Urdu
    await bot.app.engine.set_language(Actor("telegram", "1001"), "ur")
    since = learner.mark()
    await learner.send("/review nope")
    refusal = await learner.reply(since)
    assert strip_isolates(refusal["text"]).startswith("nope نام کا کوئی موضوع نہیں۔")
    assert bot.app.engine.topic_name("bubble", "ur") in [r[0]["text"] for r in buttons(refusal)]


async def test_review_a_topic_in_a_group_opens_it_privately(bot: Running,
                                                           api: FakeBotAPI) -> None:
    group = api.group_chat(-100123, "Readers")
    member = Learner(api, api.user(1001, "Alice"), group)
    since = member.mark()
    await member.send("/review bubble")
    link = await member.reply(since)
    url = buttons(link)[0][0]["url"]
    assert url.endswith("?start=topic-bubble")
    private = Learner(api, api.user(1001, "Alice"))
    since = private.mark()
    await private.send("/start topic-bubble")
    question = await private.reply(since, is_question)
    assert question["text"].startswith("Practice: Pipeline bubble 1/8")


async def test_the_catalogue_in_a_group_is_links_any_member_can_tap(
        bot: Running, api: FakeBotAPI) -> None:
    """/quiz (no id), /quizzes and /quiz <typo> in a group: one message whose buttons are
    links anyone there can tap (a button bound to the sender told every other member 'not
    yours'), each opening its quiz in a private chat, counted on the group's board; the
    sender's own marks (best, unfinished) are not the group's, so none are shown."""
    group = api.group_chat(-100123, "Readers")
    alice = Learner(api, api.user(1001, "Alice"), group)
    await play_through(bot.app.engine, Actor("telegram", "1001"), "parallelism", miss=2)
    await bot.app.engine.start(Actor("telegram", "1001"), "parallelism-deep")  # unfinished
    ids = [e.info.id for e in (await bot.app.engine.catalogue(Actor("telegram", "1001"))).entries]
    chat = payload.base36(100123)
    for command in ("/quiz", "/quizzes", "/quiz nope"):
        since = alice.mark()
        await alice.send(command)
        listing = await alice.reply(since)
        assert len(alice.sent(since, methods=("sendMessage",))) == 1, command
        assert [b.get("url") for row in buttons(listing) for b in row] == [
            f"https://t.me/quizbot_test_bot?start=g{chat}_{quiz}" for quiz in ids], command
        assert "best" not in listing["text"] and "at question" not in listing["text"]
        assert "▶" not in str(buttons(listing)) and "6/8" not in str(buttons(listing))
    assert listing["text"].startswith("There is no quiz called nope.")
    bob = Learner(api, api.user(1002, "Bob"))  # another member, following a link
    since = bob.mark()
    await bob.send(f"/start g{chat}_parallelism-deep")
    question = await bob.reply(since, is_question)
    assert "Question 1/22" in question["text"]


async def test_help_leads_to_the_catalogue(bot: Running, api: FakeBotAPI) -> None:
    learner = Learner(api, api.user(1001, "Alice"))
    since = learner.mark()
    await learner.send("/help")
    help_ = await learner.reply(since)
    assert help_["text"].startswith("6 quizzes on model and pipeline parallelism; start with "
                                   "Model and pipeline parallelism")
    assert "/quizzes: every quiz, its level and your best score" in help_["text"]
    since = learner.mark()
    await learner.press(help_, "📚 All quizzes")
    listing = await learner.reply(since)
    assert listing["text"].startswith("Quizzes\n")
    assert len(buttons(listing)) == len(SHIPPED)


async def test_a_quiz_that_is_not_there_offers_the_catalogue_buttons(bot: Running,
                                                                     api: FakeBotAPI) -> None:
    """'/quiz pipline' answered with a list of names and their ids in brackets ('• Model and
    pipeline parallelism (parallelism)') for the learner to copy and retype on a phone: it
    says what is missing first, then the catalogue with a button per quiz, in their language."""
    for uid, lang in ((1101, "en"), (1102, "ur")):
        learner = Learner(api, api.user(uid, "Sam", language_code=lang))
        since = learner.mark()
        await learner.send("/quiz pipline")
        reply = await learner.reply(since)
        text = strip_isolates(reply["text"])
        said = strip_isolates(bot.cat.t(lang, "catalogue.no_such", quiz="pipline"))
        assert text.startswith(said + "\n\n")
        assert not any(f"({quiz})" in text for quiz in SHIPPED)  # names, never ids
        starts = [payload.decode(d) for d in button_data(reply)]
        assert [p.arg for p in starts if isinstance(p, payload.StartPayload)] == [
            q.id for q in bot.app.engine.library.ordered()]
        since = learner.mark()
        await learner.press(reply, buttons(reply)[0][0]["text"])  # a tap starts it
        assert await learner.reply(since, is_question)
