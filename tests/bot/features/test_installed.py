"""Installed quizzes: an admin's upload is checked as `quizbot validate` checks, kept in the
database, served by every process on it within the poll interval (an injected clock, no
sleeping), never over a shipped quiz, and removed without touching learners' history."""

from __future__ import annotations

import asyncio
import hashlib
import random
from dataclasses import replace
from pathlib import Path

import pytest

from bot.app.compose import build_engine
from bot.domain.errors import NotAdmin, NotInstalled, ShippedQuiz, UploadRefused, UploadTooBig
from bot.domain.payloads import decode
from bot.domain.quiz import Quiz
from bot.domain.results import Actor, AnswerResult, QuestionPrompt, StaleAnswer
from bot.features.engine import Engine
from bot.features.importing import convert
from bot.features.installed import MAX_UPLOAD_BYTES, POLL_SECONDS
from bot.features.jobs import Scheduler
from bot.present.i18n import Catalogue
from bot.present.plan import Planner
from bot.present.render import PLAIN
from bot.store.commands import sessions_sql
from bot.store.commands.quizzes_sql import installed_quizzes
from tests.backends import Opener
from tests.clock import FakeClock
from tests.helpers import old_rule_quiz, play_through

FIXTURES = Path(__file__).parents[2] / "fixtures" / "import"
ADMIN = Actor("telegram", "42", display_name="Ada")
LEARNER = Actor("telegram", "7", display_name="Lin")
ADMINS = {"telegram": frozenset({"42"})}


def _engine(store: object, quizzes: dict[str, Quiz], clock: FakeClock) -> Engine:
    return build_engine(store, quizzes, rng=random.Random(1), admins=ADMINS,  # type: ignore[arg-type]
                        clock=clock)


async def test_a_second_process_serves_the_upload_within_the_poll_interval(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    clock = FakeClock()
    first = _engine(await open_store(), quizzes, clock)
    second = _engine(await open_store(), quizzes, clock)  # another worker, same database
    await first.installed.refresh()
    await second.installed.refresh()
    ticks: asyncio.Queue[None] = asyncio.Queue()
    paused: asyncio.Queue[float] = asyncio.Queue()  # the watcher between two polls: when

    async def wait(wakeup: asyncio.Event, seconds: float) -> None:  # moved by the test
        paused.put_nowait(clock())
        await ticks.get()
        clock.advance(seconds)

    async def one_poll() -> float:
        """Let the watcher sleep its interval and poll once; the clock when it is done."""
        ticks.put_nowait(None)
        async with asyncio.timeout(10):
            return await paused.get()

    scheduler = Scheduler(second.store, clock=clock, wait=wait)  # the second's, as composed
    scheduler.every("installed quizzes", POLL_SECONDS, second.installed.refresh)
    scheduler.start()
    try:
        async with asyncio.timeout(10):
            await paused.get()
        installed_at = clock()
        done = await first.install(ADMIN, (FIXTURES / "moodle.xml").read_bytes(), "week3.xml")
        assert (done.quiz_id, done.title, done.questions) == ("week3", "Pipeline basics", 3)
        assert "week3" in first.library.quizzes and "week3" not in second.library.quizzes
        seen_at = await one_poll()
        assert "week3" in second.library.quizzes
        assert seen_at - installed_at <= 2 * POLL_SECONDS
        quiz = second.library.quiz("week3")
        assert quiz.questions[0].image is not None and quiz.questions[0].image.read_bytes() \
            == (FIXTURES / "tiny.png").read_bytes()
        prompt = await second.start(LEARNER, "week3")  # a learner plays it there
        assert prompt.quiz_title == "Pipeline basics"

        title = await first.remove_quiz(ADMIN, "week3")
        assert title == "Pipeline basics" and "week3" not in first.library.quizzes
        await one_poll()
        assert "week3" not in second.library.quizzes
        session = await second.store.read(sessions_sql.active_session, "telegram", "7", "week3")
        assert session is not None  # the learner's history stays
    finally:
        await scheduler.stop()
        first.installed.close()
        second.installed.close()


async def test_an_idle_refresh_reads_one_version_and_changes_nothing(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    engine = _engine(await open_store(), quizzes, FakeClock())
    assert await engine.installed.refresh() is True  # first read
    before = dict(engine.library.quizzes)
    assert await engine.installed.refresh() is False
    assert engine.library.quizzes == before


async def test_refusals(open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    engine = _engine(await open_store(), quizzes, FakeClock())
    gift = (FIXTURES / "spec.gift").read_bytes()
    with pytest.raises(NotAdmin):
        await engine.install(LEARNER, gift, "mine.gift")
    with pytest.raises(UploadTooBig) as big:
        await engine.install(ADMIN, b"x" * (MAX_UPLOAD_BYTES + 1), "big.gift")
    assert big.value.params == {"size": 512, "limit": 512}
    with pytest.raises(UploadRefused) as bad:
        await engine.install(ADMIN, b"::a::Q?{~a ~b}\n\n::b::R?{=a ~%100%b}\n", "bad.gift")
    assert bad.value.params["problems"].splitlines() == [
        "• bad.gift:1: no option is the right answer (worth 100%); mark exactly one",
        "• bad.gift:3: 2 options are worth 100%; a question here has exactly one right answer"]
    with pytest.raises(ShippedQuiz):
        await engine.install(ADMIN, gift, "parallelism.gift")
    with pytest.raises(ShippedQuiz):
        await engine.remove_quiz(ADMIN, "parallelism")
    with pytest.raises(NotInstalled):
        await engine.remove_quiz(ADMIN, "nothing-here")
    assert await engine.store.read(installed_quizzes) == []
    assert set(engine.library.quizzes) == set(quizzes)


async def test_a_reupload_replaces_the_quiz_and_keeps_question_ids(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    engine = _engine(await open_store(), quizzes, FakeClock())
    gift = (FIXTURES / "spec.gift").read_bytes()
    first = await engine.install(ADMIN, gift, "spec.gift")
    ids = [q.id for q in engine.library.quiz("spec").questions]
    second = await engine.install(ADMIN, gift.replace(b"Who's buried", b"Who is buried"),
                                  "spec.gift")
    assert second.version > first.version
    quiz = engine.library.quiz("spec")
    assert [q.id for q in quiz.questions] == ids
    assert quiz.questions[0].text.get("en").startswith("Who is buried")
    assert [r.version for r in await engine.store.read(installed_quizzes)] == [second.version]
    engine.installed.close()


async def test_the_same_file_again_is_unchanged_and_keeps_its_version(
        open_store: Opener, quizzes: dict[str, Quiz], catalogue: Catalogue) -> None:
    engine = _engine(await open_store(), quizzes, FakeClock())
    gift = (FIXTURES / "spec.gift").read_bytes()
    first = await engine.install(ADMIN, gift, "spec.gift")
    again = await engine.install(ADMIN, gift, "spec.gift")
    assert (again.version, again.unchanged, first.unchanged) == (first.version, True, False)
    assert [r.version for r in await engine.store.read(installed_quizzes)] == [first.version]
    plan = Planner(catalogue, PLAIN, shared_chats=False)
    for lang in ("en", "ur"):
        (card,) = plan.installed(lang, again).send
        assert card.body.startswith(catalogue.t(lang, "admin.unchanged", title="GIFT examples",
                                                count=6, id="spec", warnings="")[:20])
    assert plan.installed("en", again).send[0].body.startswith(
        "“GIFT examples” is already installed with exactly this content")
    engine.installed.close()


async def test_an_installed_quiz_never_becomes_everyones_default(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    engine = _engine(await open_store(), quizzes, FakeClock())
    before = engine.library.default_id
    easy = (FIXTURES / "spec.aiken").read_text().encode()
    done = await engine.install(ADMIN, easy, "aaa-first.aiken")  # sorts before every id
    assert done.quiz_id == "aaa-first" and engine.library.default_id == before
    engine.installed.close()


async def test_reload_rereads_the_files_and_keeps_the_installed_quizzes(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    store = await open_store()
    engine = build_engine(store, quizzes, rng=random.Random(1), admins=ADMINS,
                          reload=lambda: quizzes)
    await engine.install(ADMIN, (FIXTURES / "spec.gift").read_bytes(), "spec.gift")
    await engine.reload(ADMIN)
    assert "spec" in engine.library.quizzes and set(quizzes) < set(engine.library.quizzes)
    engine.installed.close()


async def test_topics_follow_the_quizzes_served(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    quiz = quizzes["parallelism"]
    first = replace(quiz.questions[0], topics=("fresh-topic",))
    renamed = replace(quiz, questions=(first, *quiz.questions[1:]))
    store = await open_store()
    engine = build_engine(store, quizzes, rng=random.Random(1), admins=ADMINS,
                          reload=lambda: {**quizzes, "parallelism": renamed})
    assert "fresh-topic" not in engine.library.topics()
    await engine.reload(ADMIN)
    assert engine.library.topics()["fresh-topic"].id == "parallelism"
    assert engine.library.topic_name("fresh-topic", "en") == "fresh-topic"  # named nowhere
    engine.installed.close()


async def test_an_uploaded_yaml_may_name_the_shared_topics(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    content = Path(__file__).parents[3] / "content"
    text = (content / "long-context.yaml").read_text(encoding="utf-8")
    assert "\ntopics:" not in text and "    topics: [" in text  # names content/topics.yaml's
    mine = text.replace("id: long-context\n", "id: my-long-context\n", 1)
    first = _engine(await open_store(), quizzes, FakeClock())
    done = await first.install(ADMIN, mine.encode(), "mine.yaml")
    second = _engine(await open_store(), quizzes, FakeClock())  # loads it from the database
    await second.installed.refresh()
    quiz = second.library.quiz("my-long-context")
    assert len(quiz.questions) == done.questions and quiz.questions[0].topics
    first.installed.close()
    second.installed.close()


async def test_the_configured_default_may_be_an_installed_quiz(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    """`quiz.default: week3` starts (installed quizzes load after the engine is built): the
    shipped entry quiz until week3 is served, then week3; removed again, the entry quiz."""
    clock = FakeClock()
    first = build_engine(await open_store(), quizzes, rng=random.Random(1), admins=ADMINS,
                         clock=clock, default_quiz="week3")
    assert first.library.missing_default() == "week3"
    assert first.quiz().id == "parallelism"  # never a crash: the entry quiz meanwhile
    await first.install(ADMIN, (FIXTURES / "moodle.xml").read_bytes(), "week3.xml")
    second = build_engine(first.store, quizzes, rng=random.Random(1), clock=clock,
                          default_quiz="week3")  # a process starting with it installed
    await second.installed.refresh()
    assert second.library.missing_default() is None and second.quiz().id == "week3"
    assert (await second.start(LEARNER)).quiz_title == "Pipeline basics"
    await first.remove_quiz(ADMIN, "week3")
    assert first.quiz().id == "parallelism" and first.library.missing_default() == "week3"
    first.installed.close()
    second.installed.close()


async def test_start_takes_an_installed_default_and_warns_of_a_missing_one(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from bot.app.compose import open_app
    from bot.app.config import load_config

    config = replace(load_config(None, env={}), storage_url=f"sqlite:///{tmp_path / 'q.db'}",
                     default_quiz="week3")
    with caplog.at_level("WARNING", logger="bot.app.compose"):
        async with open_app(config) as app:  # not installed yet: starts, and says so
            assert app.engine.quiz().id == "parallelism"
            await app.engine.installed.add((FIXTURES / "moodle.xml").read_bytes(),
                                           "week3.xml", by="cli")
    assert [r.getMessage() for r in caplog.records] == [
        "quiz.default: no quiz 'week3' is shipped or installed; newcomers start with 'parallelism'"]
    caplog.clear()
    with caplog.at_level("WARNING", logger="bot.app.compose"):
        async with open_app(config) as app:  # installed: the default from the start
            assert app.engine.quiz().id == "week3"
    assert not caplog.records



# A teacher's sheet without an id column: a question's id comes from its text
WEEK3 = b"question,option1,option2,option3,correct,explanation\n" + b"".join(
    f"Question number {i}?,a{i},b{i},c{i},A,Because {i}.\n".encode() for i in range(1, 6))


async def test_a_learner_mid_attempt_is_told_the_quiz_changed_and_offered_the_new_one(
        open_store: Opener, quizzes: dict[str, Quiz], catalogue: Catalogue) -> None:
    # The teacher fixed a typo in question 5 while Lin was on question 3: Lin's next tap
    # said 'That quiz is over. Send /quiz to take it again.' (it was not over, and /quiz
    # starts the default quiz), and the buttons went with nothing to press.
    engine = _engine(await open_store(), quizzes, FakeClock())
    plan = Planner(catalogue, PLAIN, shared_chats=False)
    await engine.install(ADMIN, WEEK3, "week3.csv")
    for lang in ("en", "ur"):
        await engine.set_language(LEARNER, lang)
        started = await engine.restart(LEARNER, "week3")
        for position in (0, 1):
            await engine.answer(LEARNER, started.session_id, position, 0)
        await engine.install(ADMIN, WEEK3.replace(b"number 5?", f"number 5 ({lang})?".encode()),
                             "week3.csv")
        tap = await engine.answer(LEARNER, started.session_id, 2, 0)
        assert isinstance(tap, StaleAnswer) and tap.changed == ("week3", "Week3")
        reply = plan.pressed(tap, LEARNER)
        said = catalogue.t(lang, "answer.quiz_changed", title="Week3")
        assert reply.ack == said and reply.clear_buttons
        (card,) = reply.send
        ((start,),) = card.rows
        fresh = await engine.press(LEARNER, decode(start.payload))
        assert isinstance(fresh, QuestionPrompt) and (fresh.number, fresh.total) == (1, 5)
        assert fresh.session_id != started.session_id
    await engine.remove_quiz(ADMIN, "week3")
    gone = await engine.answer(LEARNER, fresh.session_id, 0, 0)
    assert isinstance(gone, StaleAnswer) and gone.removed
    assert plan.pressed(gone, LEARNER).ack == catalogue.t("ur", "answer.quiz_removed")
    engine.installed.close()


async def test_an_uploads_alike_warnings_are_said_once_each(
        open_store: Opener, quizzes: dict[str, Quiz], catalogue: Catalogue) -> None:
    # A class's sheet of 30 questions without explanations: the reply listed 8 of its 60
    # warnings, all 'no general feedback', then '… +52', hiding whatever else was said.
    engine = _engine(await open_store(), quizzes, FakeClock())
    sheet = b"question,option1,option2,correct\n" + b"".join(
        b"Which of set %d is an alkene?,ethene %d,ethane %d,A\n" % (i, i, i) for i in range(30))
    done = await engine.install(ADMIN, sheet, "week3.csv")
    body = Planner(catalogue, PLAIN, shared_chats=False).installed("en", done).send[0].body
    listed = [line for line in body.splitlines() if line.startswith("• ")]
    assert listed == [
        "• week3.csv:2, 3, 4 and 27 more: no general feedback; the explanation is the right "
        "answer's text (write a better one)"]
    assert "… +" not in body
    engine.installed.close()


async def test_an_upload_is_not_told_of_takeaways_its_format_cannot_carry(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    # Every GIFT, Moodle XML, Aiken, CSV or Excel upload was warned 'the question has no
    # takeaway' for each question: no such field exists there, so the teacher could do
    # nothing about it in their file. Our own YAML has the field: still told there.
    engine = _engine(await open_store(), quizzes, FakeClock())
    sheet = b"question,option1,option2,correct,explanation\nWhich gas?,Oxygen,Argon,1,PSII.\n"
    done = await engine.install(ADMIN, sheet, "photo.csv")
    assert done.warnings == ()
    yaml_text = convert(sheet, "photo.csv").yaml.replace("id: photo\n", "id: mine\n", 1)
    done = await engine.install(ADMIN, yaml_text.encode(), "mine.yaml")
    assert [w for w in done.warnings if "has no takeaway" in w] == [
        "mine.yaml:9: questions[0] has no takeaway (the one line shown before the explanation)"]
    engine.installed.close()


async def test_a_quiz_installed_before_keeps_its_ids_when_its_sheet_comes_again(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    # Installed under the old rule (copies of one text told apart by order: q-…, q-…-2),
    # the same sheet sent again must not give its questions new ids: learners' cards and
    # progress are kept by question id.
    engine = _engine(await open_store(), quizzes, FakeClock())
    await engine.install(ADMIN, old_rule_quiz("sheet").encode(), "sheet.yaml")
    sheet = ("question,option1,option2,correct,explanation\n"
             "Which is true?,1F1B bounds memory,No bubble,A,1F1B bounds memory.\n"
             "A new question?,yes,no,A,Yes.\n"
             "Which is true?,GPipe splits layers,ZeRO splits,A,GPipe splits layers.\n")
    await engine.install(ADMIN, sheet.encode(), "sheet.csv")
    assert {q.options[0].text.get("en"): q.id for q in engine.library.quiz("sheet").questions
            } == {"1F1B bounds memory": "q-old-2", "yes": _id("A new question?"),
                  "GPipe splits layers": "q-old"}
    engine.installed.close()


def _id(text: str) -> str:
    return "q-" + hashlib.sha256(text.encode()).hexdigest()[:10]


async def test_a_learner_whose_language_the_quiz_lacks_is_told_once_at_its_start(
        open_store: Opener, quizzes: dict[str, Quiz], catalogue: Catalogue) -> None:
    """An Urdu learner starting an installed quiz that exists only in English got its
    questions in English without a word: one line above question 1, in their language, says
    so (not above the next ones, nor when the quiz picks up again; nothing for English)."""
    engine = _engine(await open_store(), quizzes, FakeClock())
    await engine.install(ADMIN, WEEK3, "week3.csv")
    assert engine.library.quiz("week3").languages == ("en",)
    plan = Planner(catalogue, PLAIN, shared_chats=False)
    await engine.set_language(LEARNER, "ur")
    first = await engine.start(LEARNER, "week3")
    body = plan.question(first, LEARNER).body
    assert body.startswith("یہ کوئز صرف انگریزی میں دستیاب ہے۔\n\n")
    assert body.count("انگریزی") == 1
    answered = await engine.answer(LEARNER, first.session_id, 0, 0)
    assert isinstance(answered, AnswerResult) and answered.next is not None
    assert "انگریزی" not in plan.question(answered.next, LEARNER).body
    resumed = await engine.start(LEARNER, "week3")  # picked up at question 2
    assert resumed.resumed and "انگریزی" not in plan.question(resumed, LEARNER).body
    english = Actor("telegram", "8")
    shown = plan.question(await engine.start(english, "week3"), english).body
    assert not shown.startswith("This quiz is available only in")
    # a shipped quiz has Urdu: nothing is said
    assert "انگریزی" not in plan.question(await engine.start(LEARNER, "parallelism"),
                                          LEARNER).body
    # a quiz in a language the bot has no catalogue for is named by its code
    assert catalogue.t("en", "question.only_in", languages=catalogue.language_names(
        "en", ("fr", "ur"))) == "This quiz is available only in fr, Urdu."
    engine.installed.close()


async def test_a_foreign_subjects_categories_never_become_the_shipped_topics(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    # A photosynthesis sheet's categories "Fundamentals" and "Memory" slugged to the shipped
    # topics' ids: its summary listed "Why and how a model is split" and "Memory (weights,
    # optimizer state, activations)" among "Your weakest topics here", and /review of them
    # mixed in pipeline-parallelism questions.
    sheet = (b"question,option1,option2,option3,correct,category\n"
             b"Where do light reactions happen?,Thylakoid,Stroma,Matrix,1,Fundamentals\n"
             b"Which gas is released?,Oxygen,Carbon dioxide,Nitrogen,1,Memory\n")
    engine = _engine(await open_store(), quizzes, FakeClock())
    await engine.install(ADMIN, sheet, "photosynthesis.csv")
    quiz = engine.library.quiz("photosynthesis")
    shipped = {t for q in quizzes.values() for question in q.questions for t in question.topics}
    assert {"fundamentals", "memory"} <= shipped
    own = {t for q in quiz.questions for t in q.topics}
    assert len(own) == 2 and not own & shipped
    assert [quiz.topic_name(t, "en") for t in dict.fromkeys(
        t for q in quiz.questions for t in q.topics)] == ["Fundamentals", "Memory"]
    summary = (await play_through(engine, LEARNER, "photosynthesis", miss=2)).summary
    assert summary is not None
    assert {line.name for line in summary.topics} == {"Fundamentals", "Memory"}
    assert summary.next_step is not None and summary.next_step.id in own
    engine.installed.close()


async def test_a_new_version_says_what_it_kept_added_and_removed(
        open_store: Opener, quizzes: dict[str, Quiz]) -> None:
    # A teacher re-sending week3.csv with a row changed and one deleted, or another quiz
    # saved under the same file name, was told only "Installed “…” (questions: 2)": nothing
    # said that a quiz was replaced, nor which questions kept learners' progress.
    head = "question,option1,option2,correct\n"
    rows = ["Which gas is released?,Oxygen,Nitrogen,1\n",
            "Where is chlorophyll?,Chloroplast,Nucleus,1\n", "What does RuBisCO fix?,CO2,O2,1\n"]
    engine = _engine(await open_store(), quizzes, FakeClock())
    first = await engine.install(ADMIN, (head + "".join(rows)).encode(), "week3.csv")
    assert first.before is None
    again = await engine.install(ADMIN, (head + rows[0] + rows[1].replace("Where", "In what")
                                         ).encode(), "week3.csv", "Week 3")
    assert (again.before, again.title, again.questions) == ("Week3", "Week 3", 2)
    assert (again.kept, again.added, again.removed) == (1, 1, 2)
    other = await engine.install(ADMIN, (head + "Is it a cell?,Yes,No,1\n").encode(), "week3.csv")
    assert (other.before, other.kept, other.added, other.removed) == ("Week 3", 0, 1, 2)
    engine.installed.close()
