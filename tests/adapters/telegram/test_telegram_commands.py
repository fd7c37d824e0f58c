"""Commands and action buttons: /start and deep links, Urdu, /language, /reset, groups."""

from __future__ import annotations

from typing import Any

from bot.domain import payloads as payload
from bot.domain.errors import NoActiveSession
from bot.domain.quiz import default_content_dir, load_quizzes
from bot.domain.results import Actor
from bot.present.i18n import strip_isolates
from bot.present.limits import named_quizzes
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data, buttons, is_question
from tests.adapters.telegram.support import AnswerKey, BotFactory, Running


async def test_start_welcomes_with_language_and_start_buttons(bot: Running,
                                                              api: FakeBotAPI) -> None:
    learner = Learner(api, api.user(1001, "Alice"))
    since = learner.mark()
    await learner.send("/start")
    welcome = await learner.reply(since)
    assert welcome["text"].startswith("Welcome to quizbot: 6 quizzes on model and pipeline")
    assert "Start with Model and pipeline parallelism (8 questions, introduction)" in (
        welcome["text"])
    assert "hard quiz" not in welcome["text"] and "/quizzes" in welcome["text"]
    assert [[b["text"] for b in row] for row in buttons(welcome)] == [
        ["English", "اردو"], ["▶ Start", "📚 All quizzes"]]
    assert button_data(welcome) == [payload.encode_action("lang", "en", "1001"),
                                    payload.encode_action("lang", "ur", "1001"),
                                    payload.encode_action("start", "parallelism", "1001"),
                                    payload.encode_action("list", "", "1001")]

    since = learner.mark()
    await learner.press(welcome, "▶ Start")
    question = await learner.reply(since, is_question)
    assert "Question 1/8" in question["text"]


async def test_deep_link_opens_the_quiz_and_a_bad_link_is_explained_not_echoed(
        bot: Running, api: FakeBotAPI) -> None:
    """A link whose payload is malformed, or names a quiz, topic or group quiz that is not
    there (any more), says so in the learner's language and what to do; what it carried is
    never shown back (a link is not something the learner typed)."""
    learner = Learner(api, api.user(1001, "Alice"))
    since = learner.mark()
    await learner.send("/start parallelism")
    question = await learner.reply(since, is_question)
    assert "Question 1/8" in question["text"]
    urdu = Learner(api, api.user(1002, "Bilal", language_code="ur"))
    for payload_sent in ("no-such-quiz", "g-999_x", "g2s_no-such-quiz", "topic-nope",
                         "<b>x</b>", "w1_99999"):
        for who, said in ((learner, "This link is not valid or has expired"),
                          (urdu, "یہ لنک درست نہیں")):
            since = who.mark()
            await who.send(f"/start {payload_sent}")
            error = await who.reply(since)
            assert strip_isolates(error["text"]).startswith(said), (payload_sent, error)
            assert "/quizzes" in error["text"]
            for part in ("no-such-quiz", "999", "nope", "x</b>", "99999"):
                assert part not in error["text"], (payload_sent, error["text"])


async def test_urdu_user_gets_urdu_and_right_to_left_buttons(bot: Running, api: FakeBotAPI,
                                                             key: AnswerKey) -> None:
    learner = Learner(api, api.user(3003, "Ayesha", language_code="ur"))
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)
    assert strip_isolates(question["text"]).startswith("سوال 1/8")
    row = buttons(question)[0]
    assert [b["text"] for b in row] == ["D", "C", "B", "A"]
    assert [payload.decode(b["callback_data"]).option for b in row] == [3, 2, 1, 0]

    since = learner.mark()
    query = await learner.press(question, key.right(question["text"], "ur"))
    assert (await learner.toast(query)).params["text"] == bot.cat.t("ur", "answer.toast_correct")
    feedback = await learner.edited(since, lambda m: "✅ درست!" in strip_isolates(m["text"]))
    assert strip_isolates(feedback["text"]).startswith("سوال 1/8")
    # the letters are gone; only "Report a problem" stays under the explanation
    assert [b["text"] for row in buttons(feedback) for b in row] == [
        bot.cat.t("ur", "button.report")]
    await learner.reply(since, lambda m: is_question(m) and "2/8" in strip_isolates(m["text"]))

    since = learner.mark()
    await learner.send("/language")
    prompt = await learner.reply(since)
    assert prompt["text"] == bot.cat.t("ur", "language.prompt")
    since = learner.mark()
    query = await learner.press(prompt, "English")
    assert (await learner.toast(query)).params["text"] == "Language set to English."
    changed = await api.wait_for(
        lambda: api.messages[(learner.chat_id, prompt["message_id"])].get("edit_date")
        and api.messages[(learner.chat_id, prompt["message_id"])])
    assert changed["text"] == "Language set to English."
    assert button_data(changed) == [payload.encode_action("start", "", "3003")]  # as /quiz
    since = learner.mark()
    await learner.send("/quiz parallelism")
    resumed = await learner.reply(since, is_question)
    assert "Question 2/8" in resumed["text"] and "Picking up" in resumed["text"]
    assert [b["text"] for b in buttons(resumed)[0]] == ["A", "B", "C", "D"]


async def test_reset_asks_first_and_old_buttons_go_stale(bot: Running, api: FakeBotAPI,
                                                        key: AnswerKey) -> None:
    learner = Learner(api, api.user(1001, "Alice"))
    me = Actor("telegram", "1001")
    since = learner.mark()
    await learner.send("/quiz parallelism")
    question = await learner.reply(since, is_question)

    since = learner.mark()
    await learner.send("/reset")
    confirm = await learner.reply(since)
    assert confirm["text"] == bot.cat.t("en", "reset.confirm")
    assert button_data(confirm) == [payload.encode_action("reset", "yes", "1001"),
                                    payload.encode_action("reset", "no", "1001")]
    query = await learner.press(confirm, "Cancel")
    await learner.toast(query)
    cancelled = await api.wait_for(
        lambda: api.messages[(learner.chat_id, confirm["message_id"])].get("edit_date")
        and api.messages[(learner.chat_id, confirm["message_id"])])
    assert cancelled["text"] == bot.cat.t("en", "reset.cancelled") and not buttons(cancelled)
    assert (await bot.app.engine.current(me)).position == 0

    since = learner.mark()
    await learner.send("/reset")
    confirm = await learner.reply(since)
    query = await learner.press(confirm, "Yes, delete")
    await learner.toast(query)
    done = await api.wait_for(
        lambda: api.messages[(learner.chat_id, confirm["message_id"])].get("edit_date")
        and api.messages[(learner.chat_id, confirm["message_id"])])
    assert done["text"] == bot.cat.t("en", "reset.done")
    try:
        await bot.app.engine.current(me)
        raise AssertionError("reset must delete the session")
    except NoActiveSession:
        pass

    query = await learner.press(question, key.right(question["text"]))
    toast = await learner.toast(query)
    assert toast.params["text"] == bot.cat.t("en", "answer.stale_finished")
    await api.wait_for(lambda: not buttons(api.messages[(learner.chat_id,
                                                         question["message_id"])]))


async def test_group_reset_buttons_belong_to_who_asked(bot: Running, api: FakeBotAPI) -> None:
    group = api.group_chat(-1009, "Readers")
    a = Learner(api, api.user(1001, "Alice"), group)
    b = Learner(api, api.user(2002, "Bob"), group)
    await bot.app.engine.start(Actor("telegram", "2002", str(group["id"]), "Bob"))
    since = a.mark()
    await a.send("/reset")
    confirm = await a.reply(since)
    query = await b.press(confirm, "Yes, delete")
    toast = await b.toast(query)
    # what to do, not only whose: send /reset for a question of one's own
    assert toast.params["text"] == \
        "These buttons belong to whoever asked for them. For your own, send /reset"
    c = Learner(api, api.user(3003, "Chen", language_code="ur"), group)
    toast = await c.toast(await c.press(confirm, "Cancel"))
    assert strip_isolates(toast.params["text"]) == \
        "یہ بٹن اس کے ہیں جس نے انہیں مانگا تھا۔ اپنے بٹنوں کے لیے /reset بھیجیں۔"
    await b.barrier()
    assert (await bot.app.engine.current(Actor("telegram", "2002"))).position == 0
    assert buttons(api.messages[(group["id"], confirm["message_id"])])


async def test_group_leaderboard_is_the_groups_private_is_global(
        bot: Running, api: FakeBotAPI) -> None:
    group = api.group_chat(-1007, "Readers")
    engine = bot.app.engine
    for user_id, name, chat in (("1001", "Alice", str(group["id"])), ("2002", "Bob", None)):
        actor = Actor("telegram", user_id, chat, name)
        prompt = await engine.start(actor)
        for position in range(prompt.total):
            await engine.answer(actor, prompt.session_id, position, 0)
    a = Learner(api, api.user(1001, "Alice"), group)
    since = a.mark()
    await a.send("/leaderboard")
    board = await a.reply(since)
    assert board["text"].startswith("Leaderboard here:")
    assert "Alice" in board["text"] and "Bob" not in board["text"]
    # in the group itself: no round played "here", and how to start one here (it said
    # "Start one in a group with me" to a group)
    since = a.mark()
    await a.send("/leaderboard rounds")
    assert (await a.reply(since))["text"].endswith(
        "No round of this quiz has been played here yet. Start one: /round")
    private = Learner(api, api.user(2002, "Bob"))
    since = private.mark()
    await private.send("/leaderboard")
    board = await private.reply(since)
    assert board["text"].startswith("Global leaderboard:")
    assert "Alice" in board["text"] and "Bob" in board["text"]
    since = private.mark()
    await private.send("/leaderboard rounds")  # solo results only: no round played yet
    board = await private.reply(since)
    assert "Alice" not in board["text"] and board["text"].endswith(
        "No round of this quiz has been played yet. Start one in a group with me: /round")
    urdu = Learner(api, api.user(3003, "Sana", language_code="ur"))
    since = urdu.mark()
    await urdu.send("/leaderboard rounds")
    assert (await urdu.reply(since))["text"].endswith(
        "میرے ساتھ کسی گروپ میں شروع کریں: /round")


async def test_stats_help_and_unknown_command(bot: Running, api: FakeBotAPI) -> None:
    learner = Learner(api, api.user(1001, "Alice"))
    since = learner.mark()
    await learner.send("/stats")
    stats = await learner.reply(since)
    assert stats["text"].startswith("Your stats: Model and pipeline parallelism")
    since = learner.mark()
    await learner.send("/frobnicate")
    unknown = await learner.reply(since)
    assert unknown["text"] == bot.cat.t("en", "error.unknown_command")
    since = learner.mark()
    await learner.send("/review last")
    nothing = await learner.reply(since)
    assert nothing["text"] == bot.cat.t("en", "error.nothing_to_review")


async def test_reload_is_for_configured_admins_only(start_bot: BotFactory,
                                                    api: FakeBotAPI) -> None:
    async with start_bot(admins=[9009]) as running:
        admin = Learner(api, api.user(9009, "Admin"))
        since = admin.mark()
        await admin.send("/reload")
        reply = await admin.reply(since)
        shipped = load_quizzes([default_content_dir()])
        assert reply["text"] == running.cat.t("en", "admin.reloaded", count=len(shipped),
                                              ids=named_quizzes("en", (
                                                  (i.id, i.title) for i in
                                                  running.app.engine.quiz_infos("en"))))
        assert "• Model and pipeline parallelism (parallelism)" in reply["text"]
        someone = Learner(api, api.user(1001, "Alice"))
        since = someone.mark()
        await someone.send("/reload")
        refused = await someone.reply(since)
        assert refused["text"] == running.cat.t("en", "error.not_admin")


async def test_in_a_group_solo_questions_open_in_a_private_chat(bot: Running,
                                                               api: FakeBotAPI) -> None:
    """/quiz, /review, /start <quiz> and the Start button in a group each answer with one
    message whose button opens the questions in a private chat; no question reaches the
    group (Telegram allows ~20 messages a minute in one)."""
    group = api.group_chat(-1010, "Readers")
    a = Learner(api, api.user(1001, "Alice"), group)
    since = a.mark()
    urls = []
    for command in ("/quiz parallelism", "/review", "/start parallelism"):
        before = a.mark()
        await a.send(command)
        (button,) = [b for row in buttons(await a.reply(before)) for b in row]
        urls.append(button["url"])
    group_link = f"https://t.me/quizbot_test_bot?start=g{payload.base36(1010)}_parallelism"
    assert urls == [group_link, "https://t.me/quizbot_test_bot?start=review", group_link]
    before = a.mark()
    await a.send("/help")
    help_message = await a.reply(before)
    assert "teams 4" in help_message["text"] and "time:" not in help_message["text"]  # its own
    before = a.mark()
    await a.toast(await a.press(help_message, "▶ Start"))
    (button,) = [b for row in buttons(await a.reply(before)) for b in row]
    assert button["url"] == group_link
    await a.barrier()
    assert not any(is_question(c.result) for c in a.sent(since, methods=("sendMessage",)))


async def test_the_global_leaderboard_fits_however_long_the_names(bot: Running,
                                                                 api: FakeBotAPI) -> None:
    """Terminal learners on the same database (quizbot play --config --user NAME) share the
    global board, and a --user name can run to any length: ten of 1,000 characters made
    /leaderboard too long to send ('Something went wrong', and an ERROR logged)."""
    engine = bot.app.engine
    for n in range(10):
        name = f"{n}" + "N" * 999
        actor = Actor("terminal", name, None, name)
        await engine.start(actor, "parallelism")
        for _ in range(8):
            current = await engine.current(actor)
            await engine.answer(actor, current.session_id, current.position, 0)
    learner = Learner(api, api.user(1001, "Ada"))
    since = learner.mark()
    await learner.send("/leaderboard")
    board = strip_isolates((await learner.reply(since))["text"])
    assert board.startswith("Global leaderboard: Model and pipeline parallelism")
    rows = board.splitlines()[1:]
    assert rows[-2:] == ["", bot.cat.t("en", "leaderboard.absent")]  # Ada has not finished
    rows = rows[:-2]
    assert len(rows) == 10 and all("N" * 62 + "…:" in row for row in rows)
    assert "N" * 64 not in board


async def test_a_reset_prompt_takes_one_answer(bot: Running, api: FakeBotAPI) -> None:
    """A /reset prompt answered 'Cancel' ('Nothing was deleted.') still deleted everything
    when its 'Yes, delete' came after (a second tap on a slow connection, or a copy of the
    data), and a 'Cancel' after 'Yes' turned 'Your progress was deleted.' into the untrue
    'Nothing was deleted.': a reset button counts only on a message that still carries it
    (Telegram attaches the pressed message as it stands)."""
    learner = Learner(api, api.user(1003, "Carol"))
    me = Actor("telegram", "1003")
    since = learner.mark()
    await learner.send("/quiz parallelism")
    await learner.reply(since, is_question)
    yes, no = (payload.encode_action("reset", a, "1003") for a in ("yes", "no"))

    since = learner.mark()
    await learner.send("/reset")
    confirm = await learner.reply(since)
    await learner.toast(await learner.tap(confirm, no))
    await edited(api, learner, confirm)
    late = await learner.toast(await learner.tap(confirm, yes))  # the button is gone by now
    assert late.params["text"] == bot.cat.t("en", "error.unknown_button")
    assert (await bot.app.engine.current(me)).position == 0  # nothing was deleted, truly
    stands = api.messages[(learner.chat_id, confirm["message_id"])]
    assert stands["text"] == bot.cat.t("en", "reset.cancelled")

    since = learner.mark()
    await learner.send("/reset")
    confirm = await learner.reply(since)
    await learner.toast(await learner.tap(confirm, yes))
    await edited(api, learner, confirm)
    await learner.toast(await learner.tap(confirm, no))
    until = await learner.barrier()
    assert api.messages[(learner.chat_id, confirm["message_id"])]["text"] == bot.cat.t(
        "en", "reset.done")  # not turned into "Nothing was deleted."
    assert [c.params["text"] for c in learner.sent(since, until, ("editMessageText",))] == [
        bot.cat.t("en", "reset.done")]


async def edited(api: FakeBotAPI, learner: Learner, message: dict[str, Any]) -> None:
    """Wait until `message` has been edited (its buttons replaced)."""
    await api.wait_for(lambda: api.messages[(learner.chat_id, message["message_id"])]
                       .get("edit_date"), what="the prompt's edit")


async def test_an_unknown_command_named_for_the_bot_in_a_group_is_answered(
        bot: Running, api: FakeBotAPI) -> None:
    """A member typing /top@quizbot_test_bot in a group (a leaderboard command of another
    quiz bot) got silence, though the command named this bot: it says what to do instead.
    A bare /top, or one named for another bot, may be that bot's and is left alone."""
    group = api.group_chat(-1009, "Readers")
    alice = Learner(api, api.user(1001, "Alice"), group)
    since = alice.mark()
    for command in ("/top", "/top@other_quiz_bot", "/top@quizbot_test_bot"):
        await alice.send(command)
    until = await alice.barrier()
    replies = [c.result["text"] for c in alice.sent(since, until, methods=("sendMessage",))]
    assert replies == ["Unknown command. Send /help to see what I can do."]
    umar = Learner(api, api.user(1002, "Umar", language_code="ur"), group)
    since = umar.mark()
    await umar.send("/Top@QuizBot_Test_Bot")  # Telegram's usernames ignore case
    assert (await umar.reply(since))["text"] == bot.cat.t("ur", "error.unknown_command")
