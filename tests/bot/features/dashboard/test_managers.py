"""A group's admin who neither plays nor hosts there (the teacher who set it up) finds the
group on their own dashboard page, labelled "You manage this group"."""

from __future__ import annotations

import contextlib

import pytest

from bot.domain.errors import QuizError
from bot.domain.results import Actor
from bot.features.dashboard.auth import Identity
from bot.features.dashboard.membership import MEMBER_SECONDS
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


async def demoted_settings(served: Served, tess: Actor) -> None:
    await served.engine.set_group(tess, admin=False, quiz="parallelism")


async def demoted_daily(served: Served, tess: Actor) -> None:
    await served.engine.daily_off(tess, GROUP, may_manage=False)


async def demoted_stop(served: Served, tess: Actor) -> None:
    await served.engine.start_round(Actor("telegram", "1", GROUP, "Ada"), GROUP,
                                    "parallelism", seconds=30)
    await served.engine.stop_round(tess, GROUP, may_manage=False)


async def demoted_skip(served: Served, tess: Actor) -> None:
    await served.engine.start_round(Actor("telegram", "1", GROUP, "Ada"), GROUP,
                                    "parallelism", seconds=30)
    await served.engine.skip_round(tess, GROUP, may_manage=False)


async def demoted_page(served: Served, tess: Actor) -> None:
    served.members[(GROUP, TESS)] = Role(True)  # getChatMember: member, no longer admin
    served.clock.advance(MEMBER_SECONDS + 1)  # the last answer (admin) is a minute old
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(int(TESS), "Tess"))
    assert status == 200 and isinstance(view, dict) and view["admin"] is False


@pytest.mark.parametrize("demoted", [demoted_settings, demoted_daily, demoted_stop,
                                     demoted_skip, demoted_page])
async def test_a_demoted_admin_loses_the_label_where_the_platform_says_so(
        served: Served, demoted: object) -> None:
    """Tess set the group up as its admin, then was demoted: her page still said "You
    manage this group" while the group's page gave her a member's view. Wherever the
    platform tells the bot she no longer manages it (a refused /settings, /daily, round
    stop or skip; the group's page opened), the note goes."""
    tess = Actor("telegram", TESS, GROUP, "Tess")
    await served.engine.set_group(tess, admin=True, quiz="long-context")
    served.members[(GROUP, TESS)] = Role(True, True)
    status, _ = await served.get(f"/api/groups/{GROUP}", served.tma(int(TESS), "Tess"))
    assert status == 200  # noted as admin by the page too (kept an hour)
    assert [(g["id"], g["manages"]) for g in await page_groups(served, TESS)] == [(GROUP, True)]
    with contextlib.suppress(QuizError):  # refused: NotGroupAdmin, NotChatAdmin, NotHost
        await demoted(served, tess)  # type: ignore[operator]
    assert await page_groups(served, TESS) == []  # she neither plays nor hosts there
    assert await served.store.read(groups_sql.managed_groups, "telegram", TESS) == []


async def test_a_platform_that_cannot_be_asked_drops_no_note(served: Served) -> None:
    """Telegram failing to answer getChatMember refuses the command but says nothing about
    the member: the note stays. Promoted again, the page labels the group again."""
    tess = Actor("telegram", TESS, GROUP, "Tess")
    await served.engine.set_group(tess, admin=True, quiz="long-context")

    async def unknown() -> bool | None:
        return None

    with pytest.raises(QuizError):
        await served.engine.set_group(tess, admin=unknown, quiz="parallelism")
    assert await served.store.read(groups_sql.managed_groups, "telegram", TESS) == [
        (GROUP, None)]
    with pytest.raises(QuizError):  # demoted
        await served.engine.set_group(tess, admin=False, quiz="parallelism")
    assert await page_groups(served, TESS) == []
    await served.engine.set_group(tess, admin=True, quiz="parallelism")  # promoted again
    assert [(g["id"], g["manages"]) for g in await page_groups(served, TESS)] == [(GROUP, True)]


async def test_a_discord_label_is_what_the_link_says(served: Served) -> None:
    """A Discord moderator (Manage Messages) who stopped a round is noted, but the server's
    page, opened with their link (no Manage Server), gives a member's view: the list said
    "You manage this group" all the same."""
    await served.engine.start_round(Actor("discord", "1", "9001", "Ada"), "555",
                                    "parallelism", seconds=30)
    await served.engine.stop_round(Actor("discord", "42", "9001", "Grace"), "555",
                                   may_manage=True)
    link = served.signer.link(Identity("discord", "42", "Grace", None, "9001", False))
    async with served.http.post(served.url + "/api/session",
                                headers={"Authorization": f"link {link}"}) as r:
        session = (await r.json())["session"]
    status, me = await served.get("/api/me", {"Authorization": f"session {session}"})
    assert status == 200 and isinstance(me, dict)
    assert [(g["id"], g["manages"], g["note"]) for g in me["groups"]] == [("9001", False, "")]


async def test_a_discord_reward_notes_its_admin(served: Served) -> None:
    """/reward set is a server admin's command like /settings and /daily, but its admin was
    not noted as the server's manager (`Groups.manages`, the one place)."""
    grace = Actor("discord", "42", "9001", "Grace")
    await served.engine.set_reward(grace, "parallelism", "7", "Pipeliner", 6, admin=True)
    assert await served.store.read(groups_sql.managed_groups, "discord", "42") == [
        ("9001", None)]
    with pytest.raises(QuizError):  # Manage Server taken away since
        await served.engine.remove_reward(grace, "parallelism", admin=False)
    assert await served.store.read(groups_sql.managed_groups, "discord", "42") == []
