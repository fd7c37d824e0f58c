"""A group admin's member table for a group of many: found by name on the server, a page at
a time ("Rows shown: 50 of 61", "Show 11 more"), ordered by who stopped playing, and when each
member last played in the reader's language (real SQLite, the real web server)."""

from __future__ import annotations

from urllib.parse import quote

from bot.domain.product_limits import MEMBERS_PAGE
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.features.dashboard.member_table import TableAsk
from bot.features.dashboard.pages import Role
from bot.present.i18n import strip_isolates
from tests.bot.features.dashboard.conftest import GROUP, Served
from tests.dashboard_support import play

HOUR = 3600.0
ADMIN = "900"
TABLE = f"/api/groups/{GROUP}/members"


async def many(served: Served, quizzes: dict[str, Quiz]) -> None:
    """61 members, an hour apart: Member 1 first (61 hours ago), then Member 2 ... Member 60,
    then عائشہ; the admin does not play. The earlier a member played, the more they missed."""
    for n in range(1, 62):
        name = f"Member {n}" if n <= 60 else "عائشہ"
        await play(served.engine, quizzes, Actor("telegram", str(n), GROUP, name),
                   wrong=set(range(4)) if n <= 20 else {0} if n <= 40 else set())
        served.clock.advance(HOUR)
    served.members[(GROUP, ADMIN)] = Role(True, admin=True)
    served.members[(GROUP, "1")] = Role(True)


async def table(served: Served, query: str = "", lang: str = "en") -> dict[str, object]:
    status, page = await served.get(f"{TABLE}{query}", served.tma(int(ADMIN), "Grace",
                                                                  language_code=lang))
    assert status == 200 and isinstance(page, dict), (status, page)
    return page


def names(page: dict[str, object]) -> list[str]:
    rows = page["rows"]
    assert isinstance(rows, list)
    return [strip_isolates(r["name"]) for r in rows]


async def test_a_big_groups_page_ships_one_page_and_says_how_to_see_more(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    await many(served, quizzes)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(int(ADMIN), "Grace"))
    assert status == 200 and isinstance(view, dict)
    members = view["members"]
    assert len(members["rows"]) == MEMBERS_PAGE and members["total"] == 61
    assert (members["shown_text"], members["more_button"], members["next"]) == (
        "Rows shown: 50 of 61 (a row for each member and quiz)", "Show 11 more", 50)
    assert names(members)[:2] == ["Member 1", "Member 2"]  # weakest first, then longest ago
    # Each row says when its member last played, in words.
    assert [r["played"] for r in members["rows"][:2]] == ["2 days ago", "2 days ago"]
    assert members["rows"][0]["played_time"] == "2027-01-15 08:00 UTC"
    rest = await table(served, "?offset=50")
    assert len(rest["rows"]) == 11 and rest["next"] is None and rest["more_button"] == ""  # type: ignore[arg-type]
    assert rest["shown_text"] == "Rows shown: 61 of 61 (a row for each member and quiz)"
    assert set(names(rest)).isdisjoint(names(members))
    assert names(rest)[-1] in {"عائشہ", *(f"Member {n}" for n in range(41, 61))}


async def test_the_table_says_it_counts_rows_not_members(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    """The summary said 61 members and the table "Showing 50 of 62": the table has a row per
    member and quiz (one member played two), and its line now says so, in either language."""
    await many(served, quizzes)
    await play(served.engine, quizzes, Actor("telegram", "5", GROUP, "Member 5"),
               quiz_id="parallelism-deep")
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(int(ADMIN), "Grace"))
    assert status == 200 and isinstance(view, dict)
    assert view["members"]["text"] == "Members who finished a quiz here: 61"
    assert view["members"]["shown_text"] == \
        "Rows shown: 50 of 62 (a row for each member and quiz)"
    urdu = strip_isolates(str((await table(served, lang="ur"))["shown_text"]))
    assert urdu == "دکھائی گئی قطاریں: 62 میں سے 50 (ہر رکن اور ہر کوئز کی ایک قطار)"


async def test_an_admin_finds_a_member_by_name_on_the_server(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    await many(served, quizzes)
    found = await table(served, "?find=" + quote("mEmBeR 7"))
    assert names(found) == ["Member 7"] and found["total"] == 1
    assert found["shown_text"].startswith("Rows shown: 1 of 1 (")  # type: ignore[attr-defined]
    assert found["next"] is None
    assert names(await table(served, "?find=" + quote("عائشہ"))) == ["عائشہ"]
    assert names(await table(served, "?find=" + quote("ＭＥＭＢＥＲ 12"))) == ["Member 12"]
    # Nothing found says what to do, and shows no "Showing" line.
    none = await table(served, "?find=Zed")
    assert (none["rows"], none["total"], none["shown_text"]) == ([], 0, "")
    assert none["none_text"] == ("No member by that name here. Check the spelling, or clear "
                                 "the box to see everyone.")
    urdu = await table(served, "?find=Zed", lang="ur")
    assert strip_isolates(str(urdu["none_text"])).startswith("اس نام کا کوئی رکن یہاں نہیں")
    # A learner who is no admin gets no table, searched or not.
    status, _ = await served.get(f"{TABLE}?find=Member", served.tma(1, "Member 1"))
    assert status == 403


async def test_an_admin_finds_who_stopped_playing(served: Served,
                                                  quizzes: dict[str, Quiz]) -> None:
    await many(served, quizzes)
    await play(served.engine, quizzes, Actor("telegram", "1", GROUP, "Member 1"),
               quiz_id="parallelism-deep")  # Member 1 came back just now
    served.clock.advance(10 * 86400)
    idle = await table(served, "?order=idle")
    assert names(idle)[:3] == ["Member 2", "Member 3", "Member 4"]
    assert [r["played"] for r in idle["rows"][:1]] == ["12 days ago"]  # type: ignore[index]
    recent = await table(served, "?order=recent")
    assert names(recent)[:3] == ["Member 1", "Member 1", "عائشہ"]  # a member's rows together
    assert {r["played"] for r in recent["rows"][:2]} == {"10 days ago"}  # type: ignore[index]
    urdu = await table(served, "?order=idle", lang="ur")
    assert strip_isolates(urdu["rows"][0]["played"]) == "12 دن پہلے"  # type: ignore[index]
    await play(served.engine, quizzes, Actor("telegram", "5", GROUP, "Member 5"))
    served.clock.advance(30)
    recent = await table(served, "?order=recent")
    first = recent["rows"][0]  # type: ignore[index]
    assert (strip_isolates(first["name"]), first["played"]) == ("Member 5", "just now")


def test_a_clients_odd_table_question_is_read_safely() -> None:
    assert TableAsk.parse({}) == TableAsk("", "weakest", 0)
    assert TableAsk.parse({"order": "'; DROP", "offset": "-5"}) == TableAsk("", "weakest", 0)
    assert TableAsk.parse({"offset": "١٢"}).offset == 0  # digits, but not ASCII ones
    assert TableAsk.parse({"offset": "9" * 40}).offset == 0
    assert TableAsk.parse({"find": " \u202eAda\u202c " + "x" * 500}).find == "Ada " + "x" * 59
    assert TableAsk.parse({"order": "idle", "offset": "50"}) == TableAsk("", "idle", 50)
