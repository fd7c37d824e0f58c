"""A quiz played through slash commands and buttons, in a server and in DMs."""

from __future__ import annotations

from bot.app.compose import App
from bot.domain.results import Actor
from bot.present.i18n import strip_isolates
from bot.present.limits import named_quizzes
from bot.store.commands import sessions_sql

from .conftest import ALICE, BOB, GUILD, PLAY, answer, replied, right_id, user, wrong_id
from .fake_discord import FakeDiscord

CAROL = user(1_500_000_000_000_000_003, "carol")


async def test_whole_quiz_in_a_server(fake: FakeDiscord, bot: App) -> None:
    assert {c["name"] for c in fake.commands[GUILD]} == {
        "quiz", "review", "stats", "leaderboard", "language", "reset", "help", "reload",
        "settings", "remind", "round", "dashboard", "quizzes", "daily", "reward", "report"}
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options=PLAY))
    assert ix.callback is not None and ix.callback.type == 4
    question = ix.original
    assert question is not None and question.ephemeral
    assert question.embeds[0]["title"].startswith("Question 1/8")
    assert [b["label"] for b in question.buttons] == ["A", "B", "C", "D"]

    wrong_at = {2, 5}
    for n in range(8):
        right = right_id(question)
        pick = wrong_id(question) if n in wrong_at else right
        ix = await answer(fake, ALICE, question, pick)
        assert ix.callback is not None and ix.callback.type == 7  # the question, edited
        assert [what for what, _ in ix.events] == ["callback 7", "follow-up"]
        *letters, report = question.buttons  # the letters greyed; "Report a problem"
        assert all(b["disabled"] for b in letters) and not report.get("disabled")
        assert report["label"] == "⚑ Report a problem"
        marked = {b["style"]: b["custom_id"] for b in question.buttons if b["style"] in (3, 4)}
        assert marked == ({3: right, 4: pick} if n in wrong_at else {3: pick})
        feedback = question.embeds[0]["description"]  # the edit carries the explanation
        assert ("Not quite" if n in wrong_at else "Correct!") in feedback
        assert question.embeds[0]["color"] == (0x2ECC71 if n not in wrong_at else 0xE74C3C)
        (question,) = ix.followups
        assert question.ephemeral

    summary = question
    assert all(i.callback is not None and i.events[0][0].startswith("callback")
               for i in fake.interactions.values())  # each acknowledged before anything else
    assert "6/8" in summary.text
    labels = [b["label"] for b in summary.buttons]
    assert labels[0].startswith(("🎯 Practise: ", "➡ Next: "))  # the next step first
    assert labels[1:] == ["🔁 Review missed", "↻ Try again"]
    stats = await bot.engine.stats(Actor("discord", ALICE["id"]))
    assert (stats.attempts, stats.best_score) == (1, 6)

    ix = await replied(fake, await fake.press(
        ALICE, summary, summary.button("🔁 Review missed")["custom_id"]))
    assert ix.original is not None and ix.original.ephemeral
    assert ix.original.embeds[0]["title"].startswith("Review 1/2")


async def test_quiz_in_dms_is_not_ephemeral(fake: FakeDiscord, bot: App) -> None:
    ix = await replied(fake, await fake.slash(ALICE, "quiz", options=PLAY))
    question = ix.original
    assert question is not None and not question.ephemeral
    ix = await answer(fake, ALICE, question, right_id(question))
    assert [m.ephemeral for m in ix.followups] == [False]
    assert ix.followups[0].embeds[0]["title"].startswith("Question 2/8")
    session = await bot.store.read(sessions_sql.active_session,
                                   "discord", ALICE["id"], "parallelism")
    assert session is not None and session.chat_id is None and session.position == 1


async def test_two_members_in_one_channel_play_separately(fake: FakeDiscord, bot: App) -> None:
    questions = {}
    for who in (ALICE, BOB):
        ix = await replied(fake, await fake.slash(who, "quiz", guild=GUILD, options=PLAY))
        assert ix.original is not None and ix.original.ephemeral
        questions[who["id"]] = ix.original
    ids = {q.buttons[0]["custom_id"].split(":")[1] for q in questions.values()}
    assert len(ids) == 2  # two sessions
    for _ in range(8):  # interleaved: Alice right every time, Bob wrong every time
        for who, pick in ((ALICE, right_id), (BOB, wrong_id)):
            question = questions[who["id"]]
            ix = await answer(fake, who, question, pick(question))
            questions[who["id"]] = ix.followups[0]
    assert "8/8" in questions[ALICE["id"]].text
    assert "0/8" in questions[BOB["id"]].text

    ix = await replied(fake, await fake.slash(BOB, "leaderboard", guild=GUILD))
    board = ix.original
    assert board is not None and not board.ephemeral  # the server's board is public
    assert "Leaderboard here" in board.content
    assert board.content.index("Alice: 8/8") < board.content.index("Bob: 0/8")

    ix = await replied(fake, await fake.slash(BOB, "stats", guild=GUILD,
                                              options={"member": ALICE}))
    stats = ix.original
    assert stats is not None and "Best score: 8/8" in stats.embeds[0]["description"]
    # With the chart as the embed's image, uploaded with the message.
    assert stats.embeds[0]["image"]["url"] == "attachment://stats.png"
    assert "Streak: 1 day in a row" in stats.embeds[0]["description"]


async def test_urdu_by_button_and_by_option(fake: FakeDiscord, bot: App) -> None:
    ix = await replied(fake, await fake.slash(ALICE, "language", guild=GUILD))
    prompt = ix.original
    assert prompt is not None and [b["label"] for b in prompt.buttons] == ["English", "اردو"]
    ix = await replied(fake, await fake.press(ALICE, prompt, prompt.button("اردو")["custom_id"]))
    assert ix.callback is not None and ix.callback.type == 7
    assert prompt.content == "زبان اردو کر دی گئی ہے۔"
    assert [b["label"] for b in prompt.buttons] == ["▶ شروع کریں"]
    ix = await replied(fake, await fake.slash(ALICE, "review", guild=GUILD))  # an error, in Urdu
    assert ix.original is not None
    assert ix.original.content == bot.catalogue.t("ur", "error.nothing_due_never")
    ix = await replied(fake, await fake.slash(ALICE, "review", guild=GUILD,
                                              options={"what": "last"}))
    assert ix.original is not None and ix.original.content.startswith("دہرانے کے لیے کچھ نہیں")

    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options=PLAY))
    question = ix.original
    assert question is not None
    assert strip_isolates(question.embeds[0]["title"]).startswith("سوال 1/8")
    ix = await answer(fake, ALICE, question, right_id(question, "ur"))
    assert "✅ درست!" in question.embeds[0]["description"]
    question = ix.followups[0]
    ix = await answer(fake, ALICE, question, wrong_id(question, "ur"))
    feedback = strip_isolates(question.embeds[0]["description"])
    assert "❌ درست نہیں۔" in feedback
    # the why-not of the chosen option, with the explanation, in the field under the takeaway
    assert question.embeds[0]["fields"][0]["name"] == "وضاحت"
    assert "کیوں نہیں" in strip_isolates(question.embeds[0]["fields"][0]["value"])

    ix = await replied(fake, await fake.slash(ALICE, "language", guild=GUILD,
                                              options={"language": "en"}))
    assert ix.original is not None and ix.original.content == "Language set to English."
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options=PLAY))
    assert ix.original is not None and ix.original.embeds[0]["title"].startswith("Question 3/8")
    assert "Picking up where you left off" in ix.original.embeds[0]["description"]


async def test_help_start_autocomplete_and_reset(fake: FakeDiscord, bot: App) -> None:
    ix = await replied(fake, await fake.slash(ALICE, "help", guild=GUILD))
    help_message = ix.original
    assert help_message is not None and help_message.ephemeral
    assert "/quiz" in help_message.content and "8 questions" in help_message.content
    # Discord's own syntax (slash options), not Telegram's "/round ... teams 4"
    assert "/round start" in help_message.content and "teams 4" not in help_message.content
    assert "/remind time:HH:MM" in help_message.content
    # the same help in a direct message: rounds and the daily question are a server
    # channel's, not "this channel's" (a DM has neither)
    dm = (await replied(fake, await fake.slash(ALICE, "help"))).original
    assert dm is not None and "this channel" not in dm.content
    assert "/round start: a timed round for everyone in a server channel" in dm.content
    ix = await replied(fake, await fake.press(ALICE, help_message,
                                              help_message.button("▶ Start")["custom_id"]))
    assert ix.original is not None and ix.original.embeds[0]["title"].startswith("Question 1/")

    ix = await replied(fake, await fake.autocomplete(ALICE, "quiz", "quiz", "PARA", guild=GUILD))
    assert ix.callback is not None and ix.callback.type == 8
    # every shipped quiz whose id or title contains "para", whatever the case typed
    assert [c["value"] for c in ix.callback.data["choices"]] == [
        i.id for i in bot.engine.quiz_infos("en") if "para" in i.id or "para" in i.title.casefold()]
    assert {"parallelism", "parallelism-deep", "expert-parallelism"} <= {
        c["value"] for c in ix.callback.data["choices"]}

    ix = await replied(fake, await fake.slash(ALICE, "reset", guild=GUILD))
    confirm = ix.original
    assert confirm is not None and confirm.ephemeral and "cannot be undone" in confirm.content
    ix = await replied(fake, await fake.press(ALICE, confirm,
                                              confirm.button("Yes, delete")["custom_id"]))
    assert confirm.content == "Your progress was deleted." and confirm.buttons == []
    assert await bot.store.read(sessions_sql.active_session,
                                "discord", ALICE["id"], "parallelism") is None


async def test_reload_is_for_configured_admins_only(tmp_path, fake: FakeDiscord) -> None:
    from .conftest import running, write_config

    path = write_config(tmp_path, fake)
    path.write_text(path.read_text() + f"admins:\n  discord: [{ALICE['id']}]\n")
    async with running(path) as app:
        reload = next(c for c in fake.commands[GUILD] if c["name"] == "reload")
        assert int(reload["default_member_permissions"]) == 8  # shown to server admins only
        ix = await fake.slash(ALICE, "reload", guild=GUILD)
        # re-reading and sampling the files may outlast DEFER_AFTER: then a follow-up says it
        await fake.wait_for(lambda: ix.original is not None and bool(
            ix.original.content or ix.followups), timeout=30, what="the reload's reply")
        said = ix.followups[0] if ix.followups else ix.original
        assert said is not None and said.ephemeral
        shipped = sorted(app.engine.quiz_infos("en"), key=lambda i: i.id)
        assert said.content == app.catalogue.t(
            "en", "admin.reloaded", count=len(shipped), ids=named_quizzes(
                "en", ((i.id, i.title) for i in app.engine.quiz_infos("en"))))
        assert "Model and pipeline parallelism (parallelism)" in said.content
        ix = await replied(fake, await fake.slash(BOB, "reload", guild=GUILD))
        assert ix.original.content == app.catalogue.t("en", "error.not_admin")


async def test_quiz_again_in_a_server_shows_the_question_again(fake: FakeDiscord,
                                                               bot: App) -> None:
    """In a server a question is private: /quiz again seconds later (the first reply lost,
    dismissed, or a retry) shows question 1 again instead of "it is just above", which
    there may be nothing; in a DM, where both would stay in the chat, the note stays."""
    first = (await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                                  options=PLAY))).original
    again = (await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD,
                                                  options=PLAY))).original
    assert first is not None and again is not None and again.ephemeral
    assert again.embeds[0]["title"].startswith("Question 1/8")
    assert again.buttons == first.buttons  # the same attempt
    ix = await answer(fake, ALICE, again, right_id(again))
    assert ix.followups[0].embeds[0]["title"].startswith("Question 2/8")

    await replied(fake, await fake.slash(BOB, "quiz", options=PLAY))
    ix = await replied(fake, await fake.slash(BOB, "quiz", options=PLAY))
    assert ix.original is not None and ix.original.content == bot.catalogue.t(
        "en", "question.joined", number=1)

    # begun in the server, asked again in a DM seconds later: nothing is "just above" in the
    # DM, so the question comes there (the same attempt)
    carol = (await replied(fake, await fake.slash(CAROL, "quiz", guild=GUILD,
                                                  options=PLAY))).original
    ix = await replied(fake, await fake.slash(CAROL, "quiz", options=PLAY))
    assert carol is not None and ix.original is not None and ix.original.embeds
    assert ix.original.embeds[0]["title"].startswith("Question 1/8")
    assert ix.original.buttons == carol.buttons


async def test_an_urdu_learner_reads_commands_slash_first(fake: FakeDiscord, bot: App) -> None:
    """Discord links no '/word' in a message, so an Urdu line's command is isolated: left
    bare, a right-to-left line showed 'quizzes/' and 'quiz/' ('مزید کوئز: quizzes/')."""
    from bidi import get_display

    from bot.present.i18n import strip_isolates

    def shown(text: str) -> str:  # as a right-to-left phone lays the line out
        return "\n".join(get_display(line, base_dir="R") for line in text.splitlines())

    await replied(fake, await fake.slash(ALICE, "language", options={"language": "ur"}))
    stats = (await replied(fake, await fake.slash(ALICE, "stats"))).original
    assert stats is not None and "/quiz" in strip_isolates(stats.text)
    assert "/quiz" in shown(stats.text) and "quiz/" not in shown(stats.text)
    help_ = (await replied(fake, await fake.slash(ALICE, "help"))).original
    assert help_ is not None and "/quizzes" in shown(help_.text)
    assert "quizzes/" not in shown(help_.text)
    english = (await replied(fake, await fake.slash(BOB, "stats"))).original
    assert english is not None and "\u2066" not in english.text  # English is left alone


async def test_language_set_mid_quiz_offers_start_to_go_on_in_it(fake: FakeDiscord,
                                                                  bot: App) -> None:
    """/language language:ur mid-quiz said only 'Language set' (a press on the chooser had
    Start); now Start is under it too, and goes on with the quiz in Urdu."""
    ix = await replied(fake, await fake.slash(ALICE, "quiz", guild=GUILD, options=PLAY))
    assert ix.original is not None
    await answer(fake, ALICE, ix.original, right_id(ix.original))
    ix = await replied(fake, await fake.slash(ALICE, "language", guild=GUILD,
                                              options={"language": "ur"}))
    done = ix.original
    assert done is not None and done.ephemeral
    assert strip_isolates(done.text) == strip_isolates(bot.catalogue.t("ur", "language.set"))
    start = done.button(bot.catalogue.t("ur", "button.start"))["custom_id"]
    ix = await replied(fake, await fake.press(ALICE, done, start))
    resumed = ix.original or ix.followups[0]
    assert strip_isolates(resumed.embeds[0]["title"]).startswith("سوال 2/8")
