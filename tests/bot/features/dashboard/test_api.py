"""The dashboard API over HTTP (no browser): 401 / 403 / 503, both views, the export, links."""

from __future__ import annotations

import json

import pytest

from bot.app.dashboard_web import CSP
from bot.domain.product_limits import WEAKEST_LISTED
from bot.domain.quiz import Quiz
from bot.domain.results import Actor
from bot.features.chats import ChatTitles, channel_title
from bot.features.dashboard.auth import LINK_SECONDS, Identity
from bot.features.dashboard.membership import MEMBER_SECONDS
from bot.features.dashboard.pages import Role, Unavailable
from bot.present.i18n import Catalogue, strip_isolates
from tests.bot.features.dashboard.conftest import GROUP, TOKEN, Served
from tests.dashboard_support import init_data, play


def served_cat() -> Catalogue:
    return Catalogue.load()


async def test_no_forged_or_expired_init_data_gets_in(served: Served) -> None:
    assert await served.get("/api/me") == (401, {"error": "signin"})
    for header in ("tma", "tma ", "Bearer x", "session nope", "tma hash=00"):
        assert await served.get("/api/me", {"Authorization": header}) == (401,
                                                                          {"error": "signin"})
    forged = init_data(TOKEN, 1, "Ada", auth_date=served.clock(), forged=True)
    assert (await served.get("/api/me", {"Authorization": f"tma {forged}"}))[0] == 401
    other_bot = init_data(TOKEN + "x", 1, "Ada", auth_date=served.clock())
    assert (await served.get("/api/me", {"Authorization": f"tma {other_bot}"}))[0] == 401
    fresh = served.tma(1, "Ada")
    assert (await served.get("/api/me", fresh))[0] == 200
    served.clock.advance(24 * 3600 + 1)
    # genuine but too old: the page says to open it anew, not that sign-in failed
    assert await served.get("/api/me", fresh) == (401, {"error": "expired"})
    future = init_data(TOKEN, 1, "Ada", auth_date=served.clock() + 3600)
    assert await served.get("/api/me", {"Authorization": f"tma {future}"}) == (
        401, {"error": "signin"})


async def test_learner_view_has_scores_misses_and_charts(served: Served,
                                                         quizzes: dict[str, Quiz]) -> None:
    ada = Actor("telegram", "1", None, "Ada")
    assert await play(served.engine, quizzes, ada, wrong={1}) == 7
    served.clock.advance(3600)
    assert await play(served.engine, quizzes, ada, wrong={1, 2}) == 6
    headers = served.tma(1, "Ada")
    status, me = await served.get("/api/me", headers)
    assert status == 200 and isinstance(me, dict)
    assert me["user"] == {"name": "Ada"} and me["lang"] == "en" and me["dir"] == "ltr"
    main = next(q for q in me["quizzes"] if q["id"] == "parallelism")
    assert (main["attempts"], main["best"], main["last"], main["total"]) == (2, 7, 6, 8)
    assert main["badge"] == "🏅"  # 7/8: at least 80 % in one attempt
    assert main["chart"].startswith("<svg")
    deep = next(q for q in me["quizzes"] if q["id"] == "parallelism-deep")
    assert deep["attempts"] == 0 and deep["best"] is None
    second, third = quizzes["parallelism"].questions[1:3]
    assert [m["question"] for m in me["misses"]] == [third.id, second.id]  # newest first
    assert me["misses"][1]["explanation"] == second.explanation.get("en")
    assert me["misses"][1]["answer"] == second.options[second.correct].text.get("en")
    by_id = {q["id"]: q for q in me["questions"]}
    assert (by_id[second.id]["answered"], by_id[second.id]["correct"]) == (2, 0)
    assert (by_id[third.id]["answered"], by_id[third.id]["correct"]) == (2, 1)
    assert [c["quiz"] for c in me["accuracy_charts"]] == ["parallelism"]
    # Every answer made a review card: 8 questions, none due yet, all within 14 days.
    assert me["due"]["cards"] == 8 and len(me["due"]["forecast"]) == 14
    assert sum(d["count"] for d in me["due"]["forecast"]) == 8
    assert me["streak"]["days"] == 1 and len(me["streak"]["calendar"]) == 35
    assert me["streak"]["calendar"][-1]["answered"] == 16
    assert me["sure"] == {"answered": 0, "correct": 0, "percent": None,
                          "text": served_cat().t("en", "dashboard.sure_none")}
    assert main["line"] == "Model and pipeline parallelism: best 7/8, last 6/8, attempts: 2"
    assert me["streak"]["text"] == "Streak: 1 day in a row"  # the singular form
    assert me["groups"] == []
    body = json.dumps(me)
    assert TOKEN not in body and headers["Authorization"][4:] not in body


async def test_urdu_learner_reads_urdu_right_to_left(served: Served,
                                                     quizzes: dict[str, Quiz]) -> None:
    await served.engine.set_language(Actor("telegram", "3", None, "Ayesha"), "ur")
    await play(served.engine, quizzes, Actor("telegram", "3", None, "Ayesha"), wrong={0},
               sure=True)
    status, me = await served.get("/api/me", served.tma(3, "Ayesha", language_code="en"))
    assert status == 200 and isinstance(me, dict)
    assert me["lang"] == "ur" and me["dir"] == "rtl"
    first = quizzes["parallelism"].questions[0]
    assert strip_isolates(me["misses"][0]["explanation"]) == first.explanation.get("ur")
    assert (me["sure"]["answered"], me["sure"]["correct"], me["sure"]["percent"]) == (8, 7, 88)
    assert "88" in me["sure"]["text"] and me["sure"]["text"] != me["sure"]["text"].encode(
        "ascii", "ignore").decode()  # Urdu


async def test_a_groups_weakest_questions_come_first_and_the_rest_are_counted(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    """What to go over next: the questions answered worst, weakest first (of equals, the one
    more members answered), WEAKEST_LISTED of them and how many more, each naming its quiz;
    not every missed question in file order (73 in a 40-member group, 30,000 px of phone).
    One answer says little: 0 of 1 comes after 1 of 3, before 2 of 3."""
    # parallelism-deep: Q1-Q4 missed by all three, Q5-Q8 by two, Q9-Q12 by one;
    # parallelism: Q1 missed by its only player. 13 questions with a wrong answer.
    for uid, misses in (("1", 12), ("2", 8), ("3", 4)):
        await play(served.engine, quizzes, Actor("telegram", uid, GROUP, f"M{uid}"),
                   quiz_id="parallelism-deep", wrong=set(range(misses)))
    await play(served.engine, quizzes, Actor("telegram", "1", GROUP, "M1"), wrong={0})
    served.members[(GROUP, "1")] = Role(True)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "M1"))
    assert status == 200 and isinstance(view, dict)
    weakest = view["weakest"]
    assert [(q["quiz"], q["label"]) for q in weakest["questions"]] == [
        *[("parallelism-deep", f"Q{n}") for n in range(1, 9)], ("parallelism", "Q1"),
        ("parallelism-deep", "Q9")]
    assert len(weakest["questions"]) == WEAKEST_LISTED
    assert (weakest["more"], weakest["more_text"]) == (3, "…and 3 more")
    title = quizzes["parallelism-deep"].title.get("en")
    assert weakest["questions"][0]["line"] == f"{title} · Q1: 0 of 3 right (0%)"
    assert weakest["questions"][4]["line"] == f"{title} · Q5: 1 of 3 right (33%)"
    assert all(q["wrong"]["count"] >= 1 for q in weakest["questions"])
    assert weakest["text"] == served_cat().raw("en", "dashboard.weakest")
    # In Urdu the label stands alone: "Q1: 3" in one left-to-right piece read as a label
    await served.engine.set_language(Actor("telegram", "1", None, "M1"), "ur")
    served.members[(GROUP, "1")] = Role(True)
    _, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "M1"))
    assert isinstance(view, dict)
    line = view["weakest"]["questions"][0]["line"]
    assert "\u2066Q1\u2069" in line and "\u20663\u2069" in line, line


async def test_a_question_one_member_missed_once_does_not_lead_a_big_groups_misses(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    """Twelve members played the main quiz and seven of them missed Q2; one member tried the
    long quiz and missed its Q1. The page's first miss was that Q1 (0 of 1 right, 0 %), over
    the question that tripped up most of the group (5 of 12 right)."""
    for n in range(12):
        await play(served.engine, quizzes, Actor("telegram", str(10 + n), GROUP, f"M{n}"),
                   wrong={1} if n < 7 else set())
    await play(served.engine, quizzes, Actor("telegram", "10", GROUP, "M0"),
               quiz_id="parallelism-deep", wrong={0})
    served.members[(GROUP, "10")] = Role(True)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(10, "M0"))
    assert status == 200 and isinstance(view, dict)
    lines = [q["line"] for q in view["weakest"]["questions"]]
    main, deep = (quizzes[q].title.get("en") for q in ("parallelism", "parallelism-deep"))
    assert lines == [f"{main} · Q2: 5 of 12 right (42%)", f"{deep} · Q1: 0 of 1 right (0%)"]


async def test_group_view_is_for_members_and_admins_see_rows_and_export(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    for uid, name, wrong in (("1", "Ada", {0}), ("2", "Bob", {0, 5})):
        await play(served.engine, quizzes, Actor("telegram", uid, GROUP, name), wrong=wrong)
    assert await served.get(f"/api/groups/{GROUP}") == (401, {"error": "signin"})
    stranger = served.tma(9, "Eve")
    assert await served.get(f"/api/groups/{GROUP}", stranger) == (403, {"error": "forbidden"})
    assert (await served.get(f"/api/groups/{GROUP}/export.csv", stranger))[0] == 403

    served.members[(GROUP, "1")] = Role(True)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "Ada"))
    assert status == 200 and isinstance(view, dict) and view["admin"] is False
    first = quizzes["parallelism"].questions[0]
    row = next(q for q in view["questions"] if q["id"] == first.id)
    assert (row["answered"], row["correct"]) == (2, 0)
    wrong = first.options[(first.correct + 1) % len(first.options)].text.get("en")
    assert row["wrong"] == {"option": wrong, "count": 2,
                            "line": f"Most chosen wrong answer: {wrong} (2×)"}
    assert view["members"]["count"] == 2 and "rows" not in view["members"]
    assert "order_text" not in view["members"]
    assert "export" not in view
    assert (await served.get(f"/api/groups/{GROUP}/export.csv", served.tma(1, "Ada")))[0] == 403

    served.members[(GROUP, "2")] = Role(True, admin=True)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(2, "Bob"))
    assert status == 200 and isinstance(view, dict) and view["admin"] is True
    assert [(r["name"], r["best"]) for r in view["members"]["rows"]] == [("Bob", 6),
                                                                          ("Ada", 7)]
    assert view["export"]["csv"] == f"/api/groups/{GROUP}/export.csv"
    async with served.http.get(served.url + view["export"]["csv"],
                               headers=served.tma(2, "Bob")) as r:
        assert r.status == 200 and r.content_type == "text/csv"
        assert "attachment" in r.headers["Content-Disposition"]
        lines = (await r.text()).splitlines()
    assert lines[0].startswith("platform,user_id,display_name,quiz_id")
    assert sum(",Ada," in line for line in lines) == 8
    assert sum(",Bob," in line for line in lines) == 8
    status, exported = await served.get(f"/api/groups/{GROUP}/export.json", served.tma(2, "Bob"))
    assert status == 200 and isinstance(exported, dict)
    assert exported["chat"] == {"platform": "telegram", "chat_id": GROUP, "title": None}
    assert {r["display_name"] for r in exported["learners"]} == {"Ada", "Bob"}


async def test_configured_admins_get_the_admin_view_only_in_their_groups(served: Served) -> None:
    assert (await served.get(f"/api/groups/{GROUP}", served.tma(77, "Root")))[0] == 403
    served.members[(GROUP, "77")] = Role(True)
    served.clock.advance(MEMBER_SECONDS)  # the refusal was kept a minute
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(77, "Root"))
    assert status == 200 and isinstance(view, dict) and view["admin"] is True


async def test_membership_that_cannot_be_checked_is_503_not_a_guess(served: Served) -> None:
    async def down(group: str, user: str) -> Role:
        raise Unavailable("telegram: getChatMember failed")

    served.memberships.provide("telegram", down)
    assert await served.get(f"/api/groups/{GROUP}", served.tma(1, "Ada")) == (
        503, {"error": "unavailable"})
    served.memberships.withdraw("telegram")  # the adapter stopped
    assert (await served.get(f"/api/groups/{GROUP}", served.tma(1, "Ada")))[0] == 503
    assert (await served.get("/api/me", served.tma(1, "Ada")))[0] == 200


async def test_discord_link_is_exchanged_for_a_session_bound_to_its_server(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    await play(served.engine, quizzes, Actor("discord", "42", "9001", "Grace"))
    link = served.signer.link(Identity("discord", "42", "Grace", None, "9001", False))
    async with served.http.post(served.url + "/api/session",
                                headers={"Authorization": f"link {link}"}) as r:
        assert r.status == 200
        session = (await r.json())["session"]
    assert link not in session
    auth = {"Authorization": f"session {session}"}
    status, me = await served.get("/api/me", auth)
    assert status == 200 and isinstance(me, dict) and me["user"]["name"] == "Grace"
    assert me["groups"] == [{"id": "9001", "title": "Your study group",  # no name known yet
                             "manages": False, "note": ""}]
    status, view = await served.get("/api/groups/9001", auth)
    assert status == 200 and isinstance(view, dict) and view["admin"] is False
    assert (await served.get("/api/groups/9002", auth))[0] == 403
    assert (await served.get("/api/me", {"Authorization": f"session {link}"}))[0] == 401
    assert (await served.get("/api/me", {"Authorization": f"link {link}"}))[0] == 401
    served.clock.advance(LINK_SECONDS + 1)
    async with served.http.post(served.url + "/api/session",
                                headers={"Authorization": f"link {link}"}) as r:
        assert r.status == 401 and await r.json() == {"error": "expired"}
    assert (await served.get("/api/me", auth))[0] == 200  # the session lasts an hour
    served.clock.advance(3600)
    assert await served.get("/api/me", auth) == (401, {"error": "expired"})


async def test_the_page_ships_its_own_files_and_strings(served: Served,
                                                        catalogue: Catalogue) -> None:
    async with served.http.get(served.url + "/app") as r:
        assert r.status == 200 and r.content_type == "text/html"
        assert r.headers["Content-Security-Policy"] == CSP
        # framed by Telegram's web client only, never by any site at all
        assert CSP.endswith("; frame-ancestors https://web.telegram.org")
        page = await r.text()
    assert '<script src="/app/app.js"' in page and "https://" not in page
    strings = json.loads(page.split('id="strings">')[1].split("</script>")[0])
    assert strings["ur"]["dashboard.signin"].startswith("سائن")
    assert strings["en"]["dashboard.signin"] == catalogue.raw("en", "dashboard.signin")
    for name, kind in (("app.js", "text/javascript"), ("app.css", "text/css")):
        async with served.http.get(f"{served.url}/app/{name}") as r:
            assert r.status == 200 and r.content_type == kind
            assert "http://" not in (text := await r.text()) and "https://" not in text
    async with served.http.get(served.url + "/app/other.js") as r:
        assert r.status == 404


async def test_pages_show_names_and_scores_out_of_the_total_never_ids(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    from bot.features.chats import ChatTitles

    for uid, name, wrong in (("1", "Ada", {0}), ("2", "", {0, 5})):
        await play(served.engine, quizzes, Actor("telegram", uid, GROUP, name), wrong=wrong)
    chats = ChatTitles(served.store, served.clock)
    await chats.note("telegram", GROUP, "  Pipeline   Club ")
    served.members[(GROUP, "1")] = Role(True, admin=True)
    status, me = await served.get("/api/me", served.tma(1, "Ada"))
    assert status == 200 and isinstance(me, dict)
    assert me["groups"] == [{"id": GROUP, "title": "Pipeline Club", "manages": False,
                             "note": ""}]
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "Ada"))
    assert status == 200 and isinstance(view, dict)
    assert view["group"]["heading"] == "Study group · Pipeline Club"
    title = quizzes["parallelism"].title.get("en")
    assert {q["quiz_title"] for q in view["questions"]} == {title}
    rows = [(r["name"], r["quiz_title"], r["score"]) for r in view["members"]["rows"]]
    assert rows == [("👤", title, "6/8"), ("Ada", title, "7/8")]  # weakest first
    body = json.dumps(view)
    assert f'"{GROUP}"' in body  # only as the id the page links with, never shown as text
    assert GROUP not in view["group"]["heading"] and all(GROUP not in r["name"]
                                                        for r in view["members"]["rows"])
    # A rename is kept; the next read of the group's figures shows it.
    await chats.note("telegram", GROUP, "Pipeline Club 2")
    served.clock.advance(60)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "Ada"))
    assert isinstance(view, dict) and view["group"]["title"] == "Pipeline Club 2"


async def test_a_groups_title_keeps_its_own_direction_in_the_heading(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    """A title is whatever the group chose: in an Urdu heading (and in an English one when
    it is in Urdu) it keeps its own direction, so its emoji or its stop stays at its end."""
    from bot.features.chats import ChatTitles

    ada = Actor("telegram", "1", GROUP, "Ada")
    await play(served.engine, quizzes, ada)
    chats = ChatTitles(served.store, served.clock)
    await chats.note("telegram", GROUP, "Pipeline Club 🌍")
    served.members[(GROUP, "1")] = Role(True)
    await served.engine.set_language(ada, "ur")
    _, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "Ada"))
    assert isinstance(view, dict)
    assert view["group"]["heading"] == "مطالعاتی گروپ · \u2068Pipeline Club 🌍\u2069"
    await served.engine.set_language(ada, "en")
    await chats.note("telegram", GROUP, "مطالعہ گروپ!")
    served.clock.advance(60)
    _, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "Ada"))
    assert isinstance(view, dict)
    assert view["group"]["heading"] == "Study group · \u2068مطالعہ گروپ!\u2069"


async def test_admins_get_item_statistics_past_the_minimum_and_as_csv(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    # Top three (7/8) all pick the same distractor on Q1; the bottom three (4/8) miss Q2-Q5.
    plan = [{0}] * 3 + [{1, 2}] * 4 + [{1, 2, 3, 4}] * 3
    served.members[(GROUP, "1")] = Role(True, admin=True)
    served.members[(GROUP, "2")] = Role(True)
    for n, wrong in enumerate(plan[:9], 1):
        await play(served.engine, quizzes, Actor("telegram", str(n), GROUP, f"M{n}"),
                   wrong=wrong)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "M1"))
    assert status == 200 and isinstance(view, dict)
    [waiting] = view["items"]["quizzes"]
    assert waiting["shown"] is False and waiting["questions"] == []
    assert waiting["text"] == "Shown once 10 members have finished this quiz here (now 9)."
    await play(served.engine, quizzes, Actor("telegram", "10", GROUP, "M10"), wrong=plan[9])
    await play(served.engine, quizzes, Actor("telegram", "1", GROUP, "M1"))  # a 2nd attempt
    served.clock.advance(60)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "M1"))
    assert isinstance(view, dict)
    [main] = view["items"]["quizzes"]
    assert main["shown"] and main["learners"] == 10  # first attempts only
    q1, q2 = main["questions"][:2]
    first = quizzes["parallelism"].questions[0]
    distractor = (first.correct + 1) % len(first.options)
    assert (q1["difficulty"], q1["discrimination"]) == (0.7, -1.0)
    assert q1["flag"] is not None and q1["flag"].startswith("⚠ Likely bad key: " + "ABCD"[
        distractor] + ")")
    picked = {o["letter"]: (o["upper"], o["lower"]) for o in q1["options"]}
    assert picked["ABCD"[distractor]] == (100, 0) and picked["ABCD"[first.correct]] == (0, 100)
    assert (q2["difficulty"], q2["discrimination"], q2["flag"]) == (0.3, 1.0, None)
    assert q2["line"] == "30% right · D +1.00"
    async with served.http.get(served.url + view["items"]["csv"],
                               headers=served.tma(1, "M1")) as r:
        assert r.status == 200 and r.content_type == "text/csv"
        rows = (await r.text()).splitlines()
    assert rows[0].startswith("quiz_id,quiz_title,question,question_id,members,difficulty")
    assert len(rows) == 1 + sum(len(q.options) for q in quizzes["parallelism"].questions)
    assert rows[1].split(",")[4:7] == ["10", "0.7", "-1.0"]  # numbers, not text
    # Members see no item statistics, and cannot download them.
    status, member = await served.get(f"/api/groups/{GROUP}", served.tma(2, "M2"))
    assert isinstance(member, dict) and "items" not in member
    assert (await served.get(view["items"]["csv"], served.tma(2, "M2")))[0] == 403


async def test_the_learner_page_opens_on_a_summary_whose_numbers_agree(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    status, new = await served.get("/api/me", served.tma(5, "Newcomer"))
    assert status == 200 and isinstance(new, dict) and new["new"] is True
    entry = new["summary"]["next"]
    assert entry["text"] == f"Next: {entry['title']}. Send /quiz {entry['quiz']} to the bot."
    ada = Actor("telegram", "1", None, "Ada")
    await play(served.engine, quizzes, ada, wrong={0, 1, 2})  # 5/8: not passed yet
    status, me = await served.get("/api/me", served.tma(1, "Ada"))
    assert isinstance(me, dict) and me["new"] is False
    summary = me["summary"]
    assert summary["due_today"] == me["due"]["forecast"][0]["count"]  # one number, twice
    assert summary["due_now"] <= summary["due_today"]
    assert summary["best"] == [{"quiz": "parallelism", "title": quizzes["parallelism"].title
                                .get("en"), "score": "5/8", "badge": ""}]  # 7/8 earns it
    assert summary["next"]["quiz"] == "parallelism"  # again, until 75 %
    await play(served.engine, quizzes, ada)
    _, me = await served.get("/api/me", served.tma(1, "Ada"))
    assert isinstance(me, dict)
    following = quizzes["parallelism"].next
    assert me["summary"]["next"]["quiz"] == (following or me["summary"]["next"]["quiz"])
    assert me["summary"]["next"]["quiz"] != "parallelism"


async def test_configured_admins_see_problem_reports_and_resolve_them(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    from bot.domain.payloads import ReportPayload
    from bot.ops.reader import open_reader
    from bot.present.reporting import format_overview
    from bot.store.commands.report_sql import overview

    ada = Actor("telegram", "1", None, "Ada")
    prompt = await served.engine.start(ada, "parallelism")
    await play(served.engine, quizzes, ada)
    await served.engine.press(ada, ReportPayload.about("1", prompt.session_id, 2, "u"))
    await served.engine.reports.note(ada, "Which bubble?")
    status, me = await served.get("/api/me", served.tma(1, "Ada"))
    assert isinstance(me, dict) and "reports" not in me  # learners do not see the list
    status, root = await served.get("/api/me", served.tma(77, "Root"))
    assert status == 200 and isinstance(root, dict)
    [item] = root["reports"]["items"]
    assert root["reports"]["text"] == "1 open report"
    assert (item["label"], item["reason"], item["note"], item["by"]) == (
        "Q3", "The explanation is unclear", "Which bubble?", "Ada")
    assert item["title"] == quizzes["parallelism"].title.get("en")

    async with open_reader(served.store_url) as reader:
        text = format_overview(await reader.read(overview), quizzes)
    assert "open problem reports (1; resolve them on the dashboard)" in text
    assert ": unclear “Which bubble?”" in text

    path = f"/api/reports/{item['id']}/resolve"
    async with served.http.post(served.url + path, headers=served.tma(1, "Ada")) as r:
        assert r.status == 403  # only the configured admins
    async with served.http.post(served.url + path, headers=served.tma(77, "Root")) as r:
        assert r.status == 200 and await r.json() == {"resolved": True}
    async with served.http.post(served.url + path, headers=served.tma(77, "Root")) as r:
        assert await r.json() == {"resolved": False}  # once
    _, root = await served.get("/api/me", served.tma(77, "Root"))
    assert isinstance(root, dict) and root["reports"]["items"] == []


async def test_the_learner_page_maps_topics_and_confident_misses(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    ada = Actor("telegram", "5", None, "Ada")
    await play(served.engine, quizzes, ada, wrong={0}, sure=True)
    status, me = await served.get("/api/me", served.tma(5, "Ada"))
    assert status == 200 and isinstance(me, dict)
    first = quizzes["parallelism"].questions[0]
    [miss] = me["confident_misses"]
    assert miss["question"] == first.id and miss["line"].endswith("(1×)")
    topics = {t["topic"]: t for t in me["topics"]}
    assert set(topics) == {t for q in quizzes["parallelism"].questions for t in q.topics}
    assert me["topics"][0]["topic"] in first.topics  # the missed question's topic: weakest
    memory = topics["memory"]  # only the missed question carries it
    assert (memory["sure"], memory["sure_right"], memory["answered"]) == (1, 0, 1)
    assert memory["line"].startswith("▰") and "sure: 0/1 right" in memory["line"]
    assert memory["name"] != "memory"  # its name, not its id


async def test_stats_and_the_learner_page_agree(served: Served, quizzes: dict[str, Quiz]
                                               ) -> None:
    """One progress computation (`bot.features.progress`): /stats and the dashboard read
    the same due count, cards, streak and "sure" tally."""
    ada = Actor("telegram", "6", None, "Ada")
    await play(served.engine, quizzes, ada, wrong={0, 2}, sure=True)
    served.clock.advance(3 * 86400)  # some cards fall due
    stats = await served.engine.progress(ada)
    _, me = await served.get("/api/me", served.tma(6, "Ada"))
    assert isinstance(me, dict)
    assert stats.due_now > 0
    assert (me["due"]["now"], me["due"]["cards"]) == (stats.due_now, stats.cards)
    assert me["streak"]["days"] == stats.streak
    assert (me["sure"]["answered"], me["sure"]["correct"]) == (stats.sure_answered,
                                                               stats.sure_correct)
    assert [d["answered"] for d in me["streak"]["calendar"][-len(stats.history):]] == \
        [d.answered for d in stats.history]


async def test_a_discord_round_is_listed_with_its_channel_by_name(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    grace = Actor("discord", "42", "9001", "Grace")
    await play(served.engine, quizzes, grace)
    chats = ChatTitles(served.store, served.clock)
    await chats.note("discord", "9001", "Parallel Club")
    await chats.note("discord", "5005", channel_title("Parallel Club", "quiz-night"))
    await served.engine.rounds.start(grace, "5005", questions=1)  # in a channel of 9001
    link = served.signer.link(Identity("discord", "42", "Grace", None, "9001", False))
    async with served.http.post(served.url + "/api/session",
                                headers={"Authorization": f"link {link}"}) as r:
        auth = {"Authorization": f"session {(await r.json())['session']}"}
    status, view = await served.get("/api/groups/9001", auth)
    assert status == 200 and isinstance(view, dict)
    assert view["group"]["title"] == "Parallel Club"
    assert [r["channel"] for r in view["rounds"]] == ["Parallel Club · #quiz-night"]


async def cara_wins_a_two_question_round(served: Served) -> None:
    """Cara (user 1) hosts a two-question round of the seed quiz in GROUP and gets both
    right: a finished attempt of 2 questions, on the group's board."""
    from bot.store.commands import rounds_sql
    from bot.store.round_rows import NewPress, NewRound

    new = NewRound("telegram", GROUP, GROUP, "1", "Cara", "parallelism", "en", ("q1", "q2"),
                   ((0, 1, 2, 3), (0, 1, 2, 3)), 30, 0.0)
    rnd = await served.store.write(rounds_sql.create_round, new, served.clock())
    assert rnd is not None
    for qindex in (0, 1):
        at = served.clock() + 100 * qindex
        await served.store.write(rounds_sql.open_due_questions, "telegram", at)
        await served.store.write(rounds_sql.press_round,
                                 NewPress(rnd.id, qindex, "1", "Cara", 0, True, at + 1))
        await served.store.write(rounds_sql.reveal_due_questions, "telegram", at + 31)


async def test_a_tied_best_is_the_same_attempt_in_stats_the_catalogue_and_the_page(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    """2 of 8 alone, then 2 of 2 in a round: one rule picks the best (the board's: the
    earlier finish keeps a tie), so /stats, /quizzes and the page all say 2/8; /stats took
    the shorter attempt (2/2) and so disagreed with the other two."""
    cara = Actor("telegram", "1", GROUP, "Cara")
    assert await play(served.engine, quizzes, cara, wrong=set(range(2, 8))) == 2
    served.clock.advance(60)
    await cara_wins_a_two_question_round(served)
    stats = await served.engine.stats(cara, "parallelism")
    (entry,) = [e for e in (await served.engine.catalogue(cara)).entries
                if e.info.id == "parallelism"]
    status, me = await served.get("/api/me", served.tma(1, "Cara"))
    assert status == 200 and isinstance(me, dict)
    assert [(q["best"], q["best_total"]) for q in me["quizzes"] if q["attempts"]] == [(2, 8)]
    assert (stats.best_score, stats.best_total) == (entry.best, entry.best_total) == (2, 8)


async def test_a_best_from_a_short_round_is_out_of_its_own_questions(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    """Cara's only attempt is a two-question round she got right: 2/2 in the group's member
    table and on her own page (with no badge: that is for the whole quiz), never 2/8."""

    await play(served.engine, quizzes, Actor("telegram", "2", GROUP, "Bob"), wrong={0})
    await cara_wins_a_two_question_round(served)
    served.members[(GROUP, "1")] = Role(True, admin=True)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "Cara"))
    assert status == 200 and isinstance(view, dict)
    assert [(r["name"], r["score"], r["total"]) for r in view["members"]["rows"]] == [
        ("Bob", "7/8", 8), ("Cara", "2/2", 2)]
    # The members' mean best counts each best as its share: (7/8 + 2/2) / 2 of 8, not 4.5/8
    [summary] = view["members"]["quizzes"]
    assert (summary["members"], summary["mean_best"], summary["total"]) == (2, 7.5, 8)
    status, me = await served.get("/api/me", served.tma(1, "Cara"))
    assert status == 200 and isinstance(me, dict)
    assert [(b["score"], b["badge"]) for b in me["summary"]["best"]] == [("2/2", "")]
    assert [(q["best"], q["best_total"]) for q in me["quizzes"] if q["attempts"]] == [(2, 2)]


async def test_a_members_row_says_it_counts_this_group_where_stats_counts_every_chat(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    """Ada played once in the group and twice on her own: the admin's table says 1 attempt,
    best 6/8, her /stats 3 attempts, best 8/8. Both are right; the table says which it counts,
    so a teacher comparing the two is not left thinking one of them is wrong."""
    ada = Actor("telegram", "1", GROUP, "Ada")
    await play(served.engine, quizzes, ada, wrong={0, 1})
    for wrong in ({0}, set()):
        await play(served.engine, quizzes, Actor("telegram", "1", None, "Ada"), wrong=wrong)
    stats = await served.engine.stats(ada, "parallelism")
    assert (stats.attempts, stats.best_score) == (3, 8)
    served.members[(GROUP, "2")] = Role(True, admin=True)
    for lang in ("en", "ur"):
        await served.engine.set_language(Actor("telegram", "2", None, "Grace"), lang)
        served.clock.advance(60)
        status, view = await served.get(f"/api/groups/{GROUP}", served.tma(2, "Grace"))
        assert status == 200 and isinstance(view, dict)
        assert [(r["name"], r["attempts"], r["score"]) for r in view["members"]["rows"]] == [
            ("Ada", 1, "6/8")]
        said = strip_isolates(view["members"]["order_text"])
        assert said == strip_isolates(served.web.cat.t(lang, "dashboard.members_order"))
        assert "/stats" in said and ("this group only" in said if lang == "en"
                                     else "صرف اس گروپ" in said)


async def test_a_group_admin_reads_who_may_need_help_first(served: Served,
                                                          quizzes: dict[str, Quiz]) -> None:
    """In a lecture the member table comes after every chart; the first screen names the
    three lowest scores (each member once, full marks never), for admins only."""
    for uid, name, wrong in (("1", "Ada", set()), ("2", "Bob", {0, 1, 2, 3, 4, 5}),
                             ("3", "Cy", {0, 1}), ("4", "Dee7", {0, 1, 2, 3}),
                             ("5", "Eve", {0})):
        await play(served.engine, quizzes, Actor("telegram", uid, GROUP, name), wrong=wrong)
    await play(served.engine, quizzes, Actor("telegram", "2", GROUP, "Bob"),
               quiz_id="parallelism-deep", wrong={0})
    served.members[(GROUP, "1")] = Role(True, admin=True)
    served.members[(GROUP, "3")] = Role(True)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "Ada"))
    assert status == 200 and isinstance(view, dict)
    assert view["members"]["needs_help"] == (
        "Lowest scores so far: Bob (2/8), Dee7 (4/8), Cy (6/8)")  # Dee7 4/8 read as 74/8
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(3, "Cy"))
    assert status == 200 and isinstance(view, dict) and "needs_help" not in view["members"]
    await served.engine.set_language(Actor("telegram", "1", None, "Ada"), "ur")
    served.clock.advance(60)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "Ada"))
    assert isinstance(view, dict)
    assert strip_isolates(view["members"]["needs_help"]) == (
        "اب تک سب سے کم اسکور: Bob (2/8)، Dee7 (4/8)، Cy (6/8)")


async def test_nobody_is_named_when_everyone_has_full_marks(served: Served,
                                                           quizzes: dict[str, Quiz]) -> None:
    await play(served.engine, quizzes, Actor("telegram", "1", GROUP, "Ada"))
    served.members[(GROUP, "1")] = Role(True, admin=True)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "Ada"))
    assert status == 200 and isinstance(view, dict) and view["members"]["needs_help"] == ""


async def test_a_discord_learners_page_links_only_the_server_its_link_opens(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    """Grace played in two servers. Her link from /dashboard in a DM, or in server 9001,
    opens only what it was signed for: her page must not offer a server whose page then
    answers 'for its members only' (she is a member; the link is not for it)."""
    for server in ("9001", "9002"):
        await play(served.engine, quizzes, Actor("discord", "42", server, "Grace"))
    for guild, listed in ((None, []), ("9001", ["9001"])):
        link = served.signer.link(Identity("discord", "42", "Grace", None, guild, False))
        async with served.http.post(served.url + "/api/session",
                                    headers={"Authorization": f"link {link}"}) as r:
            session = (await r.json())["session"]
        auth = {"Authorization": f"session {session}"}
        status, me = await served.get("/api/me", auth)
        assert status == 200 and isinstance(me, dict)
        assert [g["id"] for g in me["groups"]] == listed
        for g in me["groups"]:
            assert (await served.get(f"/api/groups/{g['id']}", auth))[0] == 200


async def test_a_name_that_shows_nothing_is_the_same_silhouette_on_the_dashboard_and_in_chat(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    """A member with no name, or one that shows nothing (a Hangul filler, only direction
    controls), is 👤 on the dashboard as in the chats (`i18n.shown_name`, the one fallback):
    the table showed a blank, an admin's report list "(no name)", and the leaderboard the
    member's id."""
    from bot.domain.payloads import ReportPayload
    from bot.present.render import leaderboard_text

    names = {"1": "", "2": "\u3164", "3": "\u202e\u2066 \u200b", "4": "Ada"}
    for uid, name in names.items():
        await play(served.engine, quizzes, Actor("telegram", uid, GROUP, name),
                   wrong={0} if uid == "4" else {0, 5})
    served.members[(GROUP, "4")] = Role(True, admin=True)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(4, "Ada"))
    assert status == 200 and isinstance(view, dict)
    assert [r["name"] for r in view["members"]["rows"]] == ["👤", "👤", "👤", "Ada"]
    assert view["members"]["needs_help"] == "Lowest scores so far: 👤 (6/8), 👤 (6/8), 👤 (6/8)"
    status, me = await served.get("/api/me", served.tma(2, "\u3164"))
    assert status == 200 and isinstance(me, dict) and me["user"]["name"] == "👤"

    nameless = Actor("telegram", "1", None, "")
    prompt = await served.engine.start(nameless, "parallelism")
    await play(served.engine, quizzes, nameless)
    await served.engine.press(nameless, ReportPayload.about("1", prompt.session_id, 2, "u"))
    _, root = await served.get("/api/me", served.tma(77, "Root"))
    assert isinstance(root, dict) and [i["by"] for i in root["reports"]["items"]] == ["👤"]

    board = await served.engine.leaderboard(Actor("telegram", "4", GROUP, "Ada"), "parallelism")
    text = leaderboard_text(served_cat(), board)
    assert text.count("👤") == 3 and "1. Ada" in text
    assert not any(f". {uid}:" in text for uid in names)  # never an id


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_a_round_nobody_played_says_so_not_best_none(served: Served, lang: str) -> None:
    """A round stopped before anyone joined read 'Model and pipeline parallelism: best
    None/2, players: 0' on the group's page; it says nobody played, in both languages."""
    from bot.store.commands import rounds_sql
    from bot.store.round_rows import NewRound

    new = NewRound("telegram", GROUP, GROUP, "1", "Cara", "parallelism", lang, ("q1", "q2"),
                   ((0, 1, 2, 3), (0, 1, 2, 3)), 30, 0.0)
    rnd = await served.store.write(rounds_sql.create_round, new, served.clock())
    await served.store.write(rounds_sql.stop_round, rnd.id, served.clock() + 5)
    await served.engine.set_language(Actor("telegram", "1", None, "Cara"), lang)
    served.members[(GROUP, "1")] = Role(True, admin=True)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "Cara"))
    assert status == 200 and isinstance(view, dict)
    [row] = view["rounds"]
    title = served.engine.library.quizzes["parallelism"].title.get(lang)
    assert row["players"] == 0
    assert row["line"] == served.web.cat.t(lang, "dashboard.round_nobody", title=title)
    assert "None" not in row["line"] and title in row["line"]


async def test_a_score_charts_days_are_the_learners_own(served: Served,
                                                        quizzes: dict[str, Quiz]) -> None:
    """Ada (in Karachi, /remind ... +05:00) finished a quiz at 20:30 UTC on 15 January, 01:30
    on the 16th where she is, and again the next day: her score chart labelled the first
    '01-15', a day her own calendar and forecast (both in her offset) call the day before."""
    ada = Actor("telegram", "1", None, "Ada")
    await served.engine.remind(ada, "19:30", "+05:00")
    served.clock.now = 1_800_045_000.0  # 2027-01-15 20:30 UTC
    await play(served.engine, quizzes, ada, wrong={0})
    served.clock.advance(86400)
    await play(served.engine, quizzes, ada)
    status, me = await served.get("/api/me", served.tma(1, "Ada"))
    assert status == 200 and isinstance(me, dict)
    [chart] = [q["chart"] for q in me["quizzes"] if q["attempts"]]
    assert ">01-16<" in chart and ">01-17<" in chart and ">01-15<" not in chart, chart


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_what_the_group_gets_wrong_ends_with_what_to_do_next(
        served: Served, quizzes: dict[str, Quiz], lang: str) -> None:
    """The organiser read the group's weakest questions and was left there: the section now
    ends with the next step, a round of the weakest question's quiz, as the command to send
    in the group (one left-to-right piece); a Discord server's says /round start."""
    for n, wrong in enumerate(({1, 2}, {2})):
        await play(served.engine, quizzes, Actor("telegram", str(n + 1), GROUP, f"M{n}"),
                   wrong=wrong)
    await served.engine.set_language(Actor("telegram", "1", None, "M0"), lang)
    served.members[(GROUP, "1")] = Role(True)
    status, view = await served.get(f"/api/groups/{GROUP}", served.tma(1, "M0"))
    assert status == 200 and isinstance(view, dict)
    title = quizzes["parallelism"].title.get(lang)
    command = "\u2066/round parallelism\u2069"  # one piece: LTR in Urdu, one line
    assert view["weakest"]["next"] == served.web.cat.t(
        lang, "dashboard.weak_next", title=title, command=command)
    assert command in view["weakest"]["next"]
    grace = Actor("discord", "42", "9001", "Grace")
    await served.engine.set_language(grace, lang)
    await play(served.engine, quizzes, grace, wrong={3})
    link = served.signer.link(Identity("discord", "42", "Grace", None, "9001", False))
    async with served.http.post(served.url + "/api/session",
                                headers={"Authorization": f"link {link}"}) as r:
        auth = {"Authorization": f"session {(await r.json())['session']}"}
    status, view = await served.get("/api/groups/9001", auth)
    assert status == 200 and isinstance(view, dict)
    assert view["weakest"]["next"] == served.web.cat.t(lang, "dashboard.weak_next_server",
                                                       title=title)


async def test_the_page_says_how_to_open_another_groups_page(
        served: Served, quizzes: dict[str, Quiz]) -> None:
    """Grace plays in two Discord servers; a link opens only the server it was made in, so
    from 9001's link (or a DM's, which lists none) she had no way to 9002's page and nothing
    said how: her groups now end with how to open another one (/dashboard in that server;
    on Telegram, in that group). A learner who never played in a group is told nothing."""
    for server in ("9001", "9002"):
        await play(served.engine, quizzes, Actor("discord", "42", server, "Grace"))
    cat = served.web.cat
    for guild in (None, "9001"):
        link = served.signer.link(Identity("discord", "42", "Grace", None, guild, False))
        async with served.http.post(served.url + "/api/session",
                                    headers={"Authorization": f"link {link}"}) as r:
            auth = {"Authorization": f"session {(await r.json())['session']}"}
        status, me = await served.get("/api/me", auth)
        assert status == 200 and isinstance(me, dict)
        assert me["groups_hint"] == cat.t("en", "dashboard.groups_hint_server")
    await play(served.engine, quizzes, Actor("telegram", "7", GROUP, "Ada"))
    status, me = await served.get("/api/me", served.tma(7, "Ada"))
    assert status == 200 and isinstance(me, dict)
    assert me["groups_hint"] == cat.t("en", "dashboard.groups_hint")
    await play(served.engine, quizzes, Actor("telegram", "8", None, "Solo"))
    status, me = await served.get("/api/me", served.tma(8, "Solo"))
    assert status == 200 and isinstance(me, dict)
    assert (me["groups"], me["groups_hint"]) == ([], "")
