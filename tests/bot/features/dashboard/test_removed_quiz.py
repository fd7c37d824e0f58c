"""A group's page naming a quiz no longer served (removed by an admin, or its file gone
and the bot reloaded): it showed the quiz's internal id as its title; it shows the title
the store still holds for it, else "A removed quiz" in the reader's language (real SQLite,
the real web server)."""

from __future__ import annotations

from pathlib import Path

from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.features.dashboard.pages import Role
from bot.present.i18n import strip_isolates
from tests.bot.features.dashboard.conftest import GROUP, Served
from tests.dashboard_support import play

FIXTURES = Path(__file__).parents[3] / "fixtures"
ADMIN = Actor("telegram", "77", display_name="Grace")


async def page(served: Served, lang: str) -> dict[str, object]:
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(
        int(ADMIN.user_id), "Grace", language_code=lang))
    assert status == 200 and isinstance(view, dict), (status, view)
    return view


async def test_a_quiz_no_longer_served_is_named_not_shown_by_its_id(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    engine = served.engine
    await engine.install(ADMIN, (FIXTURES / "content" / "minimal.yaml").read_bytes(),
                         "tiny.yaml")
    served.members[(GROUP, ADMIN.user_id)] = Role(True, admin=True)
    for n, quiz_id in ((1, "tiny"), (2, "long-context")):
        await play(engine, dict(engine.library.quizzes),
                   Actor("telegram", str(n), GROUP, f"Member {n}"), quiz_id=quiz_id)
    await engine.remove_quiz(ADMIN, "tiny")  # installed, then removed: its title is stored
    shipped = dict(quizzes)
    del shipped["long-context"]  # its file deleted, then /reload: nothing stored
    engine.library._reload = lambda: shipped
    await engine.reload(ADMIN)
    assert {"tiny", "long-context"}.isdisjoint(engine.library.quizzes)
    for lang, tiny, removed in (("en", "Tiny quiz", "A removed quiz"),
                                ("ur", "چھوٹا کوئز", "ہٹایا گیا کوئز")):
        view = await page(served, lang)
        members = view["members"]
        assert isinstance(members, dict)
        titles = {r["quiz"]: strip_isolates(r["quiz_title"]) for r in members["rows"]}
        assert titles == {"tiny": tiny, "long-context": removed}
        lines = [strip_isolates(q["line"]) for q in members["quizzes"]]
        assert lines[0].startswith(f"{removed}:") and lines[1].startswith(f"{tiny}:")
        assert not any("tiny" in x or "long-context" in x for x in lines)
        status, rows = await served.get(f"/api/groups/{GROUP}/members", served.tma(
            int(ADMIN.user_id), "Grace", language_code=lang))
        assert status == 200 and isinstance(rows, dict)
        assert {r["quiz"]: strip_isolates(r["quiz_title"]) for r in rows["rows"]} == titles


async def test_two_removed_quizzes_with_no_title_are_told_apart(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    """Two quizzes gone with no stored title both read "A removed quiz": one group's page
    mixed their members and bests under one name. They are numbered, in the same order on
    the page and in its member table, and still show no id."""
    engine = served.engine
    served.members[(GROUP, ADMIN.user_id)] = Role(True, admin=True)
    gone = ("long-context", "pipeline-schedules")
    for n, quiz_id in enumerate(gone, start=1):
        await play(engine, dict(engine.library.quizzes),
                   Actor("telegram", str(n), GROUP, f"Member {n}"), quiz_id=quiz_id)
    shipped = {k: v for k, v in quizzes.items() if k not in gone}
    engine.library._reload = lambda: shipped
    await engine.reload(ADMIN)
    for lang, removed in (("en", "A removed quiz"), ("ur", "ہٹایا گیا کوئز")):
        view = await page(served, lang)
        members = view["members"]
        assert isinstance(members, dict)
        titles = {r["quiz"]: strip_isolates(r["quiz_title"]) for r in members["rows"]}
        assert titles == {"long-context": f"{removed} (1)", "pipeline-schedules": f"{removed} (2)"}
        lines = sorted(strip_isolates(q["line"]) for q in members["quizzes"])
        assert [x.split(":")[0] for x in lines] == [f"{removed} (1)", f"{removed} (2)"]
        assert not any(quiz_id in x for x in lines for quiz_id in gone)
        status, rows = await served.get(f"/api/groups/{GROUP}/members", served.tma(
            int(ADMIN.user_id), "Grace", language_code=lang))
        assert status == 200 and isinstance(rows, dict)
        assert {r["quiz"]: strip_isolates(r["quiz_title"]) for r in rows["rows"]} == titles
