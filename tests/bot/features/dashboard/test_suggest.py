"""The quiz the learner's page suggests next names the group's own subject: a teacher's
photosynthesis group is never sent to the shipped parallelism quiz."""

from __future__ import annotations

from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from tests.bot.features.dashboard.conftest import GROUP, Served
from tests.dashboard_support import play

ADMIN = Actor("telegram", "77", display_name="Tess")  # a configured admin (conftest)
SHEET = (b"question,option1,option2,option3,correct\n"
         b"Where do light reactions happen?,Thylakoid,Stroma,Matrix,1\n"
         b"Which gas is released?,Oxygen,Carbon dioxide,Nitrogen,1\n"
         b"What absorbs the light?,Chlorophyll,Keratin,Insulin,1\n"
         b"What is made?,Glucose,Protein,Fat,1\n")


async def installed(served: Served) -> dict[str, Quiz]:
    """The shipped quizzes and a teacher's photosynthesis sheet, installed."""
    await served.engine.install(ADMIN, SHEET, "photosynthesis.csv")
    return dict(served.engine.library.quizzes)


async def test_an_organiser_of_a_foreign_quiz_group_is_pointed_at_that_quiz(
        served: Served) -> None:
    """Tess hosted a photosynthesis round in her group and played nothing: her page
    welcomed her with "Next: Model and pipeline parallelism. Send /quiz parallelism"."""
    await installed(served)
    tess = Actor("telegram", "3001", GROUP, "Tess")
    await served.engine.start_round(tess, GROUP, "photosynthesis", seconds=30)
    status, me = await served.get("/api/me", served.tma(3001, "Tess"))
    assert status == 200 and isinstance(me, dict) and me["new"] is True
    assert me["summary"]["next"]["quiz"] == "photosynthesis"
    assert "/quiz photosynthesis" in me["summary"]["next"]["text"]


async def test_a_learner_who_passed_the_groups_quiz_is_not_sent_to_a_shipped_one(
        served: Served) -> None:
    """Ada passed the group's photosynthesis quiz: the page suggested the shipped
    parallelism quiz next, a subject her class does not study. Her group's quiz not yet
    passed is suggested instead; with every one passed, no suggestion at all."""
    quizzes = await installed(served)
    ada = Actor("telegram", "1", GROUP, "Ada")
    await play(served.engine, quizzes, ada, quiz_id="photosynthesis", wrong={0, 1})  # 2/4
    _, me = await served.get("/api/me", served.tma(1, "Ada"))
    assert isinstance(me, dict) and me["summary"]["next"]["quiz"] == "photosynthesis"
    await play(served.engine, quizzes, ada, quiz_id="photosynthesis")  # 4/4: passed
    _, me = await served.get("/api/me", served.tma(1, "Ada"))
    assert isinstance(me, dict) and me["summary"]["next"] is None


async def test_a_learner_without_a_group_still_gets_the_first_shipped_quiz(
        served: Served) -> None:
    """Alone (no group), the catalogue's first quiz by level is still the suggestion."""
    await installed(served)
    _, me = await served.get("/api/me", served.tma(5, "Newcomer"))
    assert isinstance(me, dict) and me["summary"]["next"]["quiz"] == "parallelism"


async def test_the_learners_own_and_groups_quizzes_lead_the_scores(served: Served) -> None:
    """A biology group's learner read six shipped parallelism quizzes 'not finished yet'
    above her own photosynthesis score (ordered by id). What she played and her group's
    quizzes lead; the rest follow; alone, the order is by id as before."""
    quizzes = await installed(served)
    await served.engine.start_round(Actor("telegram", "3001", GROUP, "Tess"), GROUP,
                                    "photosynthesis", seconds=30)
    await play(served.engine, quizzes, Actor("telegram", "1", GROUP, "Ada"),
               quiz_id="long-context")
    _, me = await served.get("/api/me", served.tma(1, "Ada"))
    assert isinstance(me, dict)
    ids = [q["id"] for q in me["quizzes"]]
    assert ids[:2] == ["long-context", "photosynthesis"] and len(ids) == len(quizzes)
    assert ids[2:] == sorted(ids[2:])
    _, alone = await served.get("/api/me", served.tma(5, "Newcomer"))
    assert isinstance(alone, dict)
    assert [q["id"] for q in alone["quizzes"]] == sorted(quizzes)
