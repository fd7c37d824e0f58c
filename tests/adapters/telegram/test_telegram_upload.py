"""An admin installs a quiz by sending its file in a private chat, and takes it out with
/quiz remove; everyone else gets a polite refusal; a second worker on the same database
serves it. Through the fake Bot API (getFile and the file download)."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from bot.app.compose import build_engine
from bot.domain.quiz import default_content_dir, load_quizzes
from bot.present.i18n import strip_isolates
from bot.store.sqlite import SQLiteStore
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner, button_data, is_question
from tests.adapters.telegram.support import BotFactory
from tests.workbooks import kahoot

FIXTURES = Path(__file__).parents[2] / "fixtures" / "import"
ADMIN = 4242


async def _send_file(learner: Learner, name: str, data: bytes) -> int:
    return await learner.api.push_update(learner.api.document(learner.user, name, data,
                                                              learner.chat))


async def test_an_admin_uploads_plays_and_removes_a_quiz(
        start_bot: BotFactory, api: FakeBotAPI, tmp_path: Path) -> None:
    async with start_bot(admins=[ADMIN]):
        admin = Learner(api, api.user(ADMIN, "Ada"))
        since = admin.mark()
        await admin.send("/quiz remove")
        assert (await admin.reply(since))["text"] == (
            "No uploaded quiz is installed now, so there is none to remove.")
        since = admin.mark()
        await _send_file(admin, "week3.xml", (FIXTURES / "moodle.xml").read_bytes())
        reply = await admin.reply(since)
        assert reply["text"].startswith("Installed “Pipeline basics” (questions: 3). Everyone "
                                        "can start it with /quiz week3")
        for command, said in (
                # the title leads, the id the admin types beside it
                ("/quiz remove", "Which quiz? Use /quiz remove ID. Uploaded quizzes:\n"
                                 "• Pipeline basics (week3)"),
                ("/quiz remove week4", "No uploaded quiz has the id week4. Uploaded quizzes:\n"
                                       "• Pipeline basics (week3)")):
            since = admin.mark()
            await admin.send(command)
            assert (await admin.reply(since))["text"] == said
        assert "Warnings (installed anyway):" in reply["text"]
        assert len(api.calls_of("getFile")) == 1

        # a second worker on the same database file serves it after its next poll
        other = await SQLiteStore.open(tmp_path / "quiz.db")
        try:
            second = build_engine(other, load_quizzes([default_content_dir()]),
                                  rng=random.Random(1))
            await second.installed.refresh()
            assert second.library.quiz("week3").title.get("en") == "Pipeline basics"
            second.installed.close()
        finally:
            await other.close()

        learner = Learner(api, api.user(1001, "Lin"))
        since = learner.mark()
        await learner.send("/quiz week3")
        question = await learner.reply(since, is_question)
        assert "GPipe runs 4 stages" in question["text"]

        since = admin.mark()
        await admin.send("/quiz remove week3")
        assert (await admin.reply(since))["text"].startswith("Removed “Pipeline basics”.")
        since = learner.mark()
        await learner.send("/quiz week3")
        assert (await learner.reply(since))["text"].startswith("There is no quiz called week3")


async def test_help_tells_an_admin_how_to_upload_and_nobody_else(
        start_bot: BotFactory, api: FakeBotAPI) -> None:
    # Nothing in the chat said a quiz file could be sent: an admin had to find docs/import.md.
    async with start_bot(admins=[ADMIN, ADMIN + 1]) as running:
        for user, lang, admin in ((ADMIN, "en", True), (ADMIN + 1, "ur", True),
                                  (1001, "en", False)):
            learner = Learner(api, api.user(user, "Ada", language_code=lang))
            since = learner.mark()
            await learner.send("/help")
            text = (await learner.reply(since))["text"]
            said = running.app.catalogue.t(lang, "help_admin")
            assert text.endswith(said) is admin, text
            assert ("/quiz remove ID" in text) is admin


async def test_refusals_are_polite_and_install_nothing(start_bot: BotFactory,
                                                       api: FakeBotAPI) -> None:
    async with start_bot(admins=[ADMIN]) as running:
        stranger = Learner(api, api.user(1001, "Lin"))
        since = stranger.mark()
        await _send_file(stranger, "mine.gift", (FIXTURES / "spec.gift").read_bytes())
        assert (await stranger.reply(since))["text"] == "Only the bot's admins can do that."
        since = stranger.mark()
        await stranger.send("/quiz remove parallelism")
        assert (await stranger.reply(since))["text"] == "Only the bot's admins can do that."

        admin = Learner(api, api.user(ADMIN, "Ada"))
        since = admin.mark()
        await _send_file(admin, "big.gift", b"x" * (600 * 1024))
        assert (await admin.reply(since))["text"].startswith(
            "That file is 600 kB; a quiz file may be at most 512 kB.")
        assert api.calls_of("getFile") == []  # neither file was fetched

        since = admin.mark()
        await _send_file(admin, "bad.gift", b"::a::Q?{~a ~b}\n\n" + "x".encode("utf-16"))
        text = (await admin.reply(since))["text"]
        assert text.splitlines() == [
            "Nothing was installed. Fix these problems and send the file again:",
            "• bad.gift:3: is not UTF-8 (byte 17); save the file as UTF-8 and import it again"]
        since = admin.mark()
        await _send_file(admin, "parallelism.gift", (FIXTURES / "spec.gift").read_bytes())
        assert (await admin.reply(since))["text"].startswith(
            "parallelism is a built-in quiz and cannot be replaced or removed.")
        assert set(running.app.engine.library.quizzes) == set(
            load_quizzes([default_content_dir()]))


async def test_a_removed_quizs_old_button_gets_whole_lines(start_bot: BotFactory,
                                                           api: FakeBotAPI) -> None:
    async with start_bot(admins=[ADMIN]):
        admin = Learner(api, api.user(ADMIN, "Ada"))
        since = admin.mark()
        await _send_file(admin, "week3.xml", (FIXTURES / "moodle.xml").read_bytes())
        await admin.reply(since)
        for lang in ("en", "ur"):
            learner = Learner(api, api.user(1001 if lang == "en" else 1002, "Lin",
                                            language_code=lang))
            since = learner.mark()
            await learner.send("/quizzes")
            catalogue = await learner.reply(since)
            start = next(d for d in button_data(catalogue) if d.endswith(":week3"))
            since = admin.mark()
            await admin.send("/quiz remove week3")
            await admin.reply(since)
            toast = (await learner.toast(await learner.tap(catalogue, start))).params
            # it said "There is no quiz called week3" (an id nobody typed) over every quiz
            # as "• Title (id)": the quiz is gone, and where to pick another
            assert strip_isolates(toast["text"]) == (
                "That quiz is no longer offered. Send /quizzes to pick another." if lang == "en"
                else "یہ کوئز اب دستیاب نہیں۔ کوئی اور کوئز چننے کے لیے /quizzes بھیجیں۔")
            since = admin.mark()
            await _send_file(admin, "week3.xml", (FIXTURES / "moodle.xml").read_bytes())
            await admin.reply(since)


async def test_a_quiz_file_naming_pictures_it_cannot_bring_shows_no_server_path(
        start_bot: BotFactory, api: FakeBotAPI) -> None:
    # an organiser starts from a shipped quiz: two of its questions name pictures beside it
    source = (default_content_dir() / "parallelism.yaml").read_text(encoding="utf-8")
    data = source.replace("id: parallelism\n", "id: week9\n", 1).encode()
    async with start_bot(admins=[ADMIN]):
        admin = Learner(api, api.user(ADMIN, "Ada"))
        since = admin.mark()
        await _send_file(admin, "week9.yaml", data)
        text = (await admin.reply(since))["text"]
        assert text.startswith("Nothing was installed.")
        assert "• week9.yaml:156: questions[2].image img/naive-p4-m1.png does not exist " \
               "(looked for img/naive-p4-m1.png)" in text
        assert tempfile.gettempdir() not in text and "quizbot-import" not in text


async def test_a_caption_under_the_file_titles_the_quiz(
        start_bot: BotFactory, api: FakeBotAPI) -> None:
    # A sheet named my_quiz_v2.csv was listed as 'my quiz v2', and nothing let the teacher
    # name it: the caption Telegram sends with a document now does.
    sheet = b"question,option1,option2,correct\nWhich splits layers?,PP,DP,A\n"
    async with start_bot(admins=[ADMIN]):
        admin = Learner(api, api.user(ADMIN, "Ada"))
        since = admin.mark()
        await admin.api.push_update(api.document(admin.user, "my_quiz_v2.csv", sheet,
                                                 admin.chat, caption="Week 3: Pipelines"))
        assert (await admin.reply(since))["text"].startswith(
            "Installed “Week 3: Pipelines” (questions: 1). Everyone can start it with "
            "/quiz my-quiz-v2")
        since = admin.mark()
        await _send_file(admin, "my_quiz_v2.csv", sheet)  # again, without: its name, readable
        assert (await admin.reply(since))["text"].startswith(
            "Updated “My quiz v2” (was “Week 3: Pipelines”) (questions: 1): 1 kept with "
            "learners' progress, 0 new, 0 removed.")


async def test_an_urdu_speaking_admin_is_told_each_problem_and_warning_in_urdu(
        start_bot: BotFactory, api: FakeBotAPI) -> None:
    # The refusal was Urdu around English problems ('correct is 'Z'; give the right ...').
    bad = b"question,option1,option2,correct\nWhich splits layers?,PP,DP,Z\n"
    async with start_bot(admins=[ADMIN]):
        admin = Learner(api, api.user(ADMIN, "Ada", language_code="ur"))
        since = admin.mark()
        await _send_file(admin, "week3.csv", bad)
        text = strip_isolates((await admin.reply(since))["text"])
        assert text.startswith("کچھ انسٹال نہیں ہوا۔")
        assert text.endswith("• week3.csv:2: correct میں 'Z' ہے؛ کسی بھرے ہوئے آپشن کا نمبر "
                             "(1-10)، حرف (A-J یا الف ب ج د) یا متن لکھیں")
        since = admin.mark()
        await _send_file(admin, "week3.csv", bad.replace(b",Z\n", b",A\n"))
        text = strip_isolates((await admin.reply(since))["text"])
        assert "• week3.csv:2: عمومی فیڈبیک نہیں؛" in text and "explanation" not in text


async def test_an_admin_installs_kahoots_spreadsheet(start_bot: BotFactory,
                                                     api: FakeBotAPI) -> None:
    # An .xlsx was refused ("save it as CSV"); Kahoot's template is the sheet teachers have.
    sheet = kahoot([
        [1, "Which parallelism splits the layers into stages?", "Data", "Pipeline", "Tensor",
         "", 20, 2],
        [2, "Which are collectives?", "all-reduce", "all-gather", "matmul", "", 30, "1,2"],
        [3, "How many stages does this GPipe run have?", 2, 4, 8, None, 20, 2],
    ])
    async with start_bot(admins=[ADMIN, ADMIN + 1]):
        for user, lang in ((ADMIN, "en"), (ADMIN + 1, "ur")):
            admin = Learner(api, api.user(user, "Ada", language_code=lang))
            since = admin.mark()
            await _send_file(admin, "Week 3.xlsx", sheet)
            text = strip_isolates((await admin.reply(since))["text"])
            if lang == "en":
                assert text.startswith("Installed “Week 3” (questions: 2). Everyone can start "
                                       "it with /quiz week-3")
                assert ("• Week 3.xlsx, sheet Sheet1:10: skipped a multiple-answer question "
                        "'Which are collectives?' (correct gives 2 options ('1,2'); keep the "
                        "one right answer)") in text
            else:
                assert "/quiz week-3" in text
                assert ("• Week 3.xlsx, sheet Sheet1:10: کئی درست جوابات والا سوال 'Which are "
                        "collectives?' چھوڑ دیا گیا (correct میں 2 آپشن ('1,2') دیے گئے ہیں؛"
                        ) in text
        assert len(api.calls_of("getFile")) == 2  # the bytes came through the file download

        learner = Learner(api, api.user(1001, "Lin"))
        since = learner.mark()
        await learner.send("/quiz week-3")
        question = await learner.reply(since, is_question)
        assert "Which parallelism splits the layers into stages?" in question["text"]

        since = admin.mark()
        await _send_file(admin, "week3.ods", b"PK\x03\x04")
        assert "week3.ods: یہ OpenDocument اسپریڈشیٹ (.ods) ہے؛ اسے .xlsx یا CSV" in (
            strip_isolates((await admin.reply(since))["text"]))
