"""The adapter against the fake Bot API: playing, tapping twice, stale and foreign buttons."""

from __future__ import annotations

from bot.domain import payloads as payload
from bot.domain.results import Actor
from bot.present.i18n import strip_isolates
from bot.store.commands import sessions_sql
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data, buttons, is_question
from tests.adapters.telegram.support import AnswerKey, Running


def alice(api: FakeBotAPI, lang: str = "en") -> Learner:
    return Learner(api, api.user(1001, "Alice", "Smith", language_code=lang))


async def test_commands_published_in_english_and_urdu(bot: Running, api: FakeBotAPI) -> None:
    english = {c["command"]: c["description"] for c in api.commands[None]}
    urdu = {c["command"]: c["description"] for c in api.commands["ur"]}
    names = {"start", "quiz", "review", "stats", "leaderboard", "language", "reset", "help",
             "settings", "remind", "round", "dashboard", "quizzes", "daily"}
    assert set(english) == set(urdu) == names
    assert english["quiz"] == bot.cat.t("en", "command.quiz")
    assert urdu["quiz"] == bot.cat.t("ur", "command.quiz") != english["quiz"]


async def test_whole_quiz_scores_and_offers_review(bot: Running, api: FakeBotAPI,
                                                   key: AnswerKey) -> None:
    learner, cat = alice(api), bot.cat
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    wrong_on = {2, 5}  # third and sixth questions
    for n in range(8):
        assert f"Question {n + 1}/8" in question["text"]
        row = buttons(question)
        assert len(row) == 1 and [b["text"] for b in row[0]] == ["A", "B", "C", "D"]
        letter = key.wrong(question["text"]) if n in wrong_on else key.right(question["text"])
        since = learner.mark()
        query = await learner.press(question, letter)
        toast = await learner.toast(query)
        expected = "answer.toast_correct" if n not in wrong_on else "answer.toast_wrong"
        assert toast.params["text"] == cat.t(
            "en", expected, letter=key.right(question["text"]))
        verdict = "Correct!" if n not in wrong_on else "Not quite."
        feedback = await learner.edited(since, lambda m, v=verdict: v in m["text"])
        # a right answer has no "Right answer" line: the options are marked
        assert ("Right answer:" in feedback["text"]) == (n in wrong_on)
        assert f"Question {n + 1}/8 · {n + 1 - len([w for w in wrong_on if w <= n])} right" in (
            feedback["text"])
        edited = api.messages[(learner.chat_id, question["message_id"])]
        assert "✅" in edited["text"]  # marked; the letters can't be tapped any more, and
        [[report]] = buttons(edited)  # the one button left reports a problem with it
        assert report["text"] == "⚑ Report a problem"
        if n < 7:
            question = await learner.reply(since, is_question)
    summary = await learner.reply(since, lambda m: m["text"].startswith("Finished"))
    assert "6/8" in summary["text"].splitlines()[0]
    # the next step first (the weakest topic, or the next quiz), then Review missed, Try again
    step = payload.decode(button_data(summary)[0])
    assert isinstance(step, payload.TopicPayload | payload.StartPayload)
    assert step.belongs_to("1001")
    assert button_data(summary)[1:] == [payload.encode_action("review", "parallelism", "1001"),
                                        payload.encode_action("retry", "parallelism", "1001")]
    actor = Actor("telegram", "1001")
    stats = await bot.app.engine.stats(actor)
    assert (stats.attempts, stats.best_score) == (1, 6)

    since = learner.mark()
    await learner.press(summary, cat.t("en", "button.review"))
    review = await learner.reply(since, is_question)
    assert "Review 1/2" in review["text"]


async def test_double_tap_counted_once(bot: Running, api: FakeBotAPI, key: AnswerKey) -> None:
    learner = alice(api)
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    since = learner.mark()
    right, wrong = key.right(question["text"]), key.wrong(question["text"])
    first = await learner.press(question, right)
    second = await learner.press(question, wrong)  # same message, before any reply
    assert (await learner.toast(second)).params["text"] == bot.cat.t("en", "answer.duplicate")
    assert (await learner.toast(first)).params["text"] == bot.cat.t("en", "answer.toast_correct")
    until = await learner.barrier()
    sent = learner.sent(since, until)
    # one edit (the question turned into its result and explanation) and one next
    # question: the repeated tap added nothing
    assert [c.method for c in sent] == ["editMessageText", "sendMessage"]
    assert "Correct!" in sent[0].params["text"]
    assert "Question 2/8" in sent[1].params["text"]
    current = await bot.app.engine.current(Actor("telegram", "1001"))
    assert current.position == 1
    answers = await bot.app.store.read(sessions_sql.answers, current.session_id)
    assert len(answers) == 1 and answers[0].correct


async def test_stale_button_resends_current_question(bot: Running, api: FakeBotAPI) -> None:
    learner = alice(api)
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    session = payload.decode(button_data(question)[0])
    assert isinstance(session, payload.AnswerPayload)
    ahead = payload.encode_answer(session.session_id, 3, 0)  # a button for question 4
    since = learner.mark()
    query = await learner.tap(question, ahead)
    assert (await learner.toast(query)).params["text"] == bot.cat.t("en", "answer.stale")
    again = await learner.reply(since, is_question)
    assert "Question 1/8" in again["text"]
    assert button_data(again) == button_data(question)
    assert not buttons(api.messages[(learner.chat_id, question["message_id"])])
    assert (await bot.app.engine.current(Actor("telegram", "1001"))).position == 0


async def test_garbage_callback_data_only_toasts(bot: Running, api: FakeBotAPI) -> None:
    learner = alice(api)
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    since = learner.mark()
    queries = [await learner.tap(question, data)
               for data in ("garbage", "a2:1:0:0", "q1:explode:x", "a1:1:0:0:extra")]
    for query in queries:
        toast = await learner.toast(query)
        assert toast.params["text"] == bot.cat.t("en", "error.unknown_button")
    until = await learner.barrier()
    assert learner.sent(since, until) == []
    assert button_data(api.messages[(learner.chat_id, question["message_id"])])


async def test_a_name_with_half_an_emoji_plays_and_is_kept_whole(bot: Running,
                                                                 api: FakeBotAPI) -> None:
    # A client that cut an emoji in two sends an unpaired UTF-16 surrogate ("\ud83d"):
    # as a str it cannot be stored or sent as UTF-8, so the bot keeps U+FFFD in its place.
    learner = Learner(api, api.user(1002, "Ali\ud83d", language_code="en"))
    since = learner.mark()
    await learner.send("/quiz parallelism")
    assert is_question(await learner.reply(since, is_question))
    name = await bot.app.store.read(sessions_sql.user, "telegram", "1002")
    assert name is not None and name[0] == "Ali\ufffd"


async def test_quiz_without_a_name_opens_the_catalogue_where_the_unfinished_one_goes_on(
        bot: Running, api: FakeBotAPI) -> None:
    """/quiz with no name opens the catalogue (INTERFACES.md); a learner who left the
    numbers quiz at question 2 sees it marked there and one tap gets question 2 of it, not
    question 1 of a new attempt."""
    learner, cat = alice(api, "ur"), bot.cat
    since = learner.mark()
    await learner.send("/quiz parallelism-numbers")
    question = await learner.reply(since, is_question)
    since = learner.mark()
    await learner.press(question, "A")
    await learner.reply(since, is_question)  # question 2 is open
    since = learner.mark()
    await learner.send("/quiz")
    catalogue = await learner.reply(since)
    numbers = bot.app.engine.quiz_info("ur", "parallelism-numbers")
    assert catalogue["text"].splitlines()[:2] == [  # the point first: where to go on
        cat.t("ur", "catalogue.title"),
        cat.t("ur", "catalogue.going_hint", title=numbers.title, number=2, total=14)]
    line = next(x for x in catalogue["text"].splitlines() if x.startswith(f"• {numbers.title}"))
    assert line.endswith(cat.t("ur", "catalogue.going", number=2, total=14))  # how far it got
    going = [b["text"] for row in buttons(catalogue) for b in row
             if b["text"].endswith(cat.t("ur", "catalogue.button_going", number=2, total=14))]
    assert len(going) == 1 and strip_isolates(going[0]).startswith(numbers.title[:20])
    since = learner.mark()
    await learner.press(catalogue, going[0])
    resumed = await learner.reply(since, is_question)
    assert cat.t("ur", "question.header", number=2, total=14) in resumed["text"]
    assert resumed["text"].split("\n\n")[1] == cat.t("ur", "question.resumed")
    row = await bot.app.store.read(sessions_sql.active_session, "telegram", "1001",
                                   "parallelism-numbers")
    assert row is not None and row.position == 1  # the same attempt, not a new one
    assert await bot.app.store.read(sessions_sql.active_session, "telegram", "1001",
                                    "parallelism") is None


async def test_stats_without_a_name_are_the_quiz_quiz_continues(bot: Running,
                                                                 api: FakeBotAPI) -> None:
    """/stats showed the default quiz ('not finished yet, send /quiz to start') to a learner
    in the middle of another, and /quiz then continued that other one: both now name the
    quiz /quiz continues."""
    learner, cat = alice(api, "ur"), bot.cat
    numbers = bot.app.engine.quiz("parallelism-numbers").title.get("ur")
    since = learner.mark()
    await learner.send("/quiz parallelism-numbers")
    await learner.reply(since, is_question)
    since = learner.mark()
    await learner.send("/stats")

    def stats_text(m: dict[str, object]) -> bool:
        return cat.t("ur", "stats.none") in str(m.get("text") or m.get("caption") or "")
    stats = await learner.reply(since, stats_text)
    first_line = str(stats.get("text") or stats.get("caption")).splitlines()[0]
    assert first_line == cat.t("ur", "stats.title", title=numbers)
