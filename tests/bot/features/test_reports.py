""""Report a problem": the button under an explanation, the reasons, what is stored (with a
computed question's seed), 5 in any 24 hours, the added line, and resolving (real SQLite)."""

from __future__ import annotations

import random

from bot.app.compose import build_engine
from bot.domain.payloads import ReportPayload, decode
from bot.domain.quiz import Quiz
from bot.domain.results import Actor, AnswerResult, NotYours, ReportAsked, ReportDone
from bot.present.i18n import Catalogue
from bot.present.plan import Planner
from bot.present.render import PLAIN
from bot.store.commands import sessions_sql
from bot.store.sqlite import SQLiteStore
from tests.clock import FakeClock
from tests.dashboard_support import play

ADA = Actor("telegram", "1", None, "Ada")
EVE = Actor("telegram", "2", None, "Eve")


async def test_report_from_the_explanation_to_the_admin_list(
        store: SQLiteStore, quizzes: dict[str, Quiz], catalogue: Catalogue) -> None:
    clock = FakeClock(1_800_000_000)
    engine = build_engine(store, quizzes, rng=random.Random(3), clock=clock)
    prompt = await engine.start(ADA, "parallelism-numbers")
    result = await engine.answer(ADA, prompt.session_id, 0, 0)
    assert isinstance(result, AnswerResult)
    plan = Planner(catalogue, PLAIN, shared_chats=False)
    card = plan.pressed(result, ADA).edit
    assert card is not None
    [report] = card.rows[-1]  # the button under the explanation
    assert report.label == catalogue.t("en", "button.report")

    asked = await engine.press(EVE, decode(report.payload))
    assert isinstance(asked, NotYours)  # someone else's explanation
    asked = await engine.press(ADA, decode(report.payload))
    assert asked == ReportAsked("en", prompt.session_id, 0)
    reasons = plan.pressed(asked, ADA).send[0].rows
    assert [r[0].label for r in reasons] == [catalogue.t("en", f"report.reason_{n}") for n in
                                             ("wrong", "unclear", "translation", "other")]
    done = await engine.press(ADA, decode(reasons[0][0].payload))
    assert done == ReportDone("en", "stored", "wrong")
    assert await engine.reports.note(ADA, "  option B   is also right ")
    assert not await engine.reports.note(ADA, "a second line")  # one line per report

    [row], count = await engine.reports.open()
    session, _ = await store.read(sessions_sql.session_and_answer, prompt.session_id, 0)
    assert session is not None and count == 1
    assert (row.quiz_id, row.question_id, row.reason, row.note, row.display_name) == (
        "parallelism-numbers", prompt.question_id, "wrong", "option B is also right", "Ada")
    assert row.seed == session.seed and row.seed is not None  # the numbers Ada saw

    assert await engine.reports.resolve(row.id, Actor("telegram", "77", None, "Root"))
    assert not await engine.reports.resolve(row.id, Actor("telegram", "77", None, "Root"))
    assert (await engine.reports.open())[1] == 0


async def test_five_reports_in_any_24_hours_and_only_answered_questions(
        store: SQLiteStore, quizzes: dict[str, Quiz]) -> None:
    clock = FakeClock(1_800_000_000)
    engine = build_engine(store, quizzes, rng=random.Random(3), clock=clock)
    prompt = await engine.start(ADA, "parallelism")
    session = prompt.session_id
    unanswered = ReportPayload.about(ADA.user_id, session, 0, "u")
    assert await engine.press(ADA, unanswered) == ReportDone("en", "gone")
    await play(engine, quizzes, ADA)
    outcomes = []
    for n in range(6):
        clock.advance(60)
        outcomes.append(await engine.press(ADA, ReportPayload.about(ADA.user_id, session, n,
                                                                     "o")))
    assert [o.outcome for o in outcomes if isinstance(o, ReportDone)] == ["stored"] * 5 + [
        "limit"]
    clock.advance(24 * 3600 - 5 * 60)  # the first report is now more than a day old
    assert (await engine.press(ADA, ReportPayload.about(ADA.user_id, session, 7, "t"))
            ) == ReportDone("en", "stored", "translation")
    forged = ReportPayload.about(ADA.user_id, session, 1, "z")
    assert await engine.press(ADA, forged) == ReportDone("en", "gone")
