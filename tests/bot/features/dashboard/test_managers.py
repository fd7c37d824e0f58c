"""A group's admin who neither plays nor hosts there (the teacher who set it up) finds the
group on their own dashboard page, labelled "You manage this group"."""

from __future__ import annotations

import pytest

from bot.domain.results import Actor
from bot.features.dashboard.auth import Identity
from bot.features.dashboard.pages import Role
from bot.store.commands import groups_sql
from tests.bot.features.dashboard.conftest import GROUP, Served

TESS = "3001"


async def page_groups(served: Served, user: str, lang: str = "en") -> list[dict[str, object]]:
    status, me = await served.get("/api/me", served.tma(int(user), "Tess",
                                                        language_code=lang))
    assert status == 200 and isinstance(me, dict)
    return list(me["groups"])


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_an_admin_who_set_the_group_up_finds_it_labelled(served: Served,
                                                              lang: str) -> None:
    """Tess chose her group's quiz with /settings (Telegram says she administers it) and
    plays and hosts nothing there: her page listed no group at all."""
    await served.engine.set_group(Actor("telegram", TESS, GROUP, "Tess"), admin=True,
                                  quiz="long-context")
    groups = await page_groups(served, TESS, lang)
    assert [(g["id"], g["manages"]) for g in groups] == [(GROUP, True)]
    assert groups[0]["note"] == served.web.cat.t(lang, "dashboard.you_manage")
    # refused (not an admin): nothing noted
    with pytest.raises(Exception):  # noqa: B017 - NotGroupAdmin, whatever its wording
        await served.engine.set_group(Actor("telegram", "3002", GROUP, "Lin"), admin=False,
                                      quiz="long-context")
    assert await page_groups(served, "3002") == []


async def test_an_admin_who_opens_the_groups_page_finds_it_on_their_own(
        served: Served) -> None:
    """/dashboard in the group opens its page (getChatMember: administrator); "Back to my
    progress" then showed a page without that group. Opening it notes her, once an hour."""
    served.members[(GROUP, TESS)] = Role(True, True)
    served.members[(GROUP, "3002")] = Role(True)
    for user in (TESS, "3002"):
        status, _ = await served.get(f"/api/groups/{GROUP}", served.tma(int(user), "x"))
        assert status == 200
    assert [(g["id"], g["manages"]) for g in await page_groups(served, TESS)] == [(GROUP, True)]
    assert await page_groups(served, "3002") == []  # a member who never played: not listed
    assert await served.store.read(groups_sql.managed_groups, "telegram", TESS) == [
        (GROUP, None)]


async def test_a_player_who_also_manages_is_labelled_and_a_player_is_not(
        served: Served) -> None:
    from tests.dashboard_support import play

    quizzes = dict(served.engine.library.quizzes)
    await play(served.engine, quizzes, Actor("telegram", "1", GROUP, "Ada"))
    served.clock.advance(60)
    await play(served.engine, quizzes, Actor("telegram", "1", "-2002", "Ada"))
    await served.store.write(groups_sql.note_manager, "telegram", "-2002", "1", 5.0)
    await served.store.write(groups_sql.note_manager, "telegram", "-3003", "1", 6.0)
    groups = await page_groups(served, "1")
    # latest played first, as before; a group only managed after them; managed ones labelled
    assert [(g["id"], g["manages"], bool(g["note"])) for g in groups] == [
        ("-2002", True, True), (GROUP, False, False), ("-3003", True, True)]


async def test_a_discord_link_from_a_server_admin_lists_that_server_as_managed(
        served: Served) -> None:
    """A Manage Server member's /dashboard link opened a page with no server on it when
    they had neither played nor hosted there."""
    for admin, listed in ((True, [("9001", True)]), (False, [])):
        link = served.signer.link(Identity("discord", "42", "Grace", None, "9001", admin))
        async with served.http.post(served.url + "/api/session",
                                    headers={"Authorization": f"link {link}"}) as r:
            session = (await r.json())["session"]
        status, me = await served.get("/api/me", {"Authorization": f"session {session}"})
        assert status == 200 and isinstance(me, dict)
        assert [(g["id"], g["manages"]) for g in me["groups"]] == listed


async def test_an_admin_who_stops_someone_elses_round_is_noted_and_the_host_is_not(
        served: Served) -> None:
    ada = Actor("telegram", "1", GROUP, "Ada")
    await served.engine.start_round(ada, GROUP, "parallelism", seconds=30)
    await served.engine.stop_round(ada, GROUP, may_manage=True)  # the host: listed as host
    await served.engine.start_round(ada, GROUP, "parallelism", seconds=30)
    await served.engine.stop_round(Actor("telegram", TESS, GROUP, "Tess"), GROUP,
                                   may_manage=True)
    assert await served.store.read(groups_sql.managed_groups, "telegram", TESS) == [
        (GROUP, None)]
    assert await served.store.read(groups_sql.managed_groups, "telegram", "1") == []
