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
