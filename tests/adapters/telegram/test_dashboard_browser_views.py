"""Every dashboard view in Chromium, in English and Urdu, at a phone's width (390 px) and a
desktop's (1,280 px), with three weeks of play behind it; with `pytest --screenshots` each
view is kept in tests/artifacts/ (dashboard-<view>-<lang>-<width>.png).

What each checks is what a reader sees: names (never ids), the summary on the first screen,
collapsed details, a visible 0 %, two columns on a wide screen, error pages with a way on,
and Urdu drawn in an Arabic-script Noto font (a machine without fonts-noto-core fails here
instead of keeping screenshots full of empty boxes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.app.dashboard_web import page_strings
from bot.domain.results import Actor
from bot.features.dashboard.membership import Role
from bot.present.i18n import strip_isolates
from tests.adapters.telegram.browser import (
    NEEDS_CHROMIUM,
    ON_SESSION_LOOP,
    command_glyphs,
    session_loop_api,
    shoot,
)
from tests.adapters.telegram.dashboard_bot import DashboardBot, dashboard_bot
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.support import TOKEN
from tests.dashboard_support import init_data, play, telegram_fragment

GROUP = "-1001234567890"
HEIGHTS = {360: 800, 390: 844, 1280: 900}  # a phone's screen for its width; a laptop's
WIDTHS = {width: HEIGHTS[width] for width in (390, 1280)}
ARABIC_FONTS = ("Noto Nastaliq Urdu", "Noto Naskh Arabic", "Noto Sans Arabic")
DAY = 86400.0

pytestmark = [NEEDS_CHROMIUM, ON_SESSION_LOOP]
api = session_loop_api()


async def seeded(running: DashboardBot, lang: str) -> None:
    """Three weeks of play: Ada (or Ayesha in Urdu) in the group and alone, nine more
    members, a group title; member 1002 administers the group."""
    app = running.app
    engine, quizzes = app.engine, dict(app.engine.library.quizzes)
    plan = [{0}] * 3 + [{1, 2}] * 4 + [{1, 2, 3, 4}] * 3
    learner = Actor("telegram", "1001", GROUP, "Ada" if lang == "en" else "عائشہ")
    admin = Actor("telegram", "1002", GROUP, "Grace")
    for who in (learner, admin):
        await engine.set_language(who, lang)
    for n, wrong in enumerate(plan):
        who = learner if n == 0 else admin if n == 1 else Actor(
            "telegram", str(2000 + n), GROUP, f"Member {n}")
        await play(engine, quizzes, who, wrong=wrong)
    alone = Actor("telegram", "1001", None, learner.display_name)
    await play(engine, quizzes, alone, wrong={1, 2, 5})
    await play(engine, quizzes, alone, quiz_id="parallelism-deep", wrong={0, 3})
    await play(engine, quizzes, alone, wrong={5})
    assert app.chats is not None
    await app.chats.note("telegram", GROUP, "Pipeline Club" if lang == "en" else "پائپ لائن کلب")
    members = {"1001": Role(True), "1002": Role(True, admin=True)}

    async def member(group: str, user: str) -> Role:
        return members.get(user, Role(False)) if group == GROUP else Role(False)

    app.memberships.provide("telegram", member)


async def opened(browser: Any, running: DashboardBot, user: int | None, lang: str,
                 width: int, query: str = "", locale: str = "en-US", *, name: str = "Ada",
                 scheme: str = "light", theme: dict[str, str] | None = None) -> Any:
    """The Mini App page at `width`, signed in as Telegram user `user` (None: signed out),
    once it has settled (ready or an error); only 127.0.0.1 is reachable."""
    context = await browser.new_context(viewport={"width": width, "height": HEIGHTS[width]},
                                        device_scale_factor=1, color_scheme=scheme,
                                        locale=locale)
    await context.route(lambda url: not url.startswith("http://127.0.0.1"),
                        lambda route: route.abort())
    page = await context.new_page()
    fragment = ""
    if user is not None:
        data = init_data(TOKEN, user, name, auth_date=running.app.engine.clock(),
                         language_code=lang)
        fragment = "#" + telegram_fragment(data, theme)
    await page.goto(f"{running.url}/app{query}{fragment}")
    await page.wait_for_selector("body[data-state]", timeout=15_000)
    return page


async def arabic_fonts_used(page: Any, selector: str) -> dict[str, int]:
    """The platform fonts Chromium drew `selector`'s text with, and their glyph counts."""
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("DOM.enable")
    await cdp.send("CSS.enable")
    root = await cdp.send("DOM.getDocument")
    node = await cdp.send("DOM.querySelector", {"nodeId": root["root"]["nodeId"],
                                                "selector": selector})
    fonts = await cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})
    return {f["familyName"]: f["glyphCount"] for f in fonts["fonts"]}


async def two_columns(page: Any) -> bool:
    """Whether the page's sections stand side by side somewhere."""
    return bool(await page.evaluate("""() => {
        const tops = [...document.querySelectorAll('#view > section')]
            .map(s => Math.round(s.getBoundingClientRect().top));
        return new Set(tops).size < tops.length;
    }"""))


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_every_view_at_both_widths(tmp_path: Path, api: FakeBotAPI, chromium: Any,
                                         lang: str) -> None:
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        cat = running.app.catalogue
        for width in WIDTHS:
            # The learner: the summary first, the details folded.
            page = await opened(chromium, running, 1001, lang, width)
            assert await page.get_attribute("body", "data-state") == "ready"
            assert await page.get_attribute("html", "dir") == ("rtl" if lang == "ur" else "ltr")
            summary = page.locator("#summary")
            assert await summary.is_visible()
            box = await summary.bounding_box()
            assert box is not None and box["y"] + box["height"] <= WIDTHS[width]  # screen 1
            assert await page.locator("details.quiz-detail").count() >= 2
            assert await page.locator("details.quiz-detail[open]").count() == 0
            assert GROUP not in (await page.text_content("#view") or "")
            assert await page.locator("svg .stub").count() >= 1  # a 0 % question shows
            assert await two_columns(page) == (width >= 1000)
            if lang == "ur":
                fonts = await arabic_fonts_used(page, "#title")
                assert any(fonts.get(f, 0) > 0 for f in ARABIC_FONTS), fonts
            await shoot(page, f"dashboard-learner-{lang}-{width}")
            await page.context.close()

            # A new learner: a welcome, no praise for nothing.
            page = await opened(chromium, running, 5005, lang, width)
            assert await page.locator("#welcome").is_visible()
            assert cat.raw(lang, "dashboard.no_misses") not in (
                await page.text_content("body") or "")
            await shoot(page, f"dashboard-new-{lang}-{width}")
            await page.context.close()

            # The group, as a member and as its admin.
            for user, view in ((1001, "group-member"), (1002, "group-admin")):
                page = await opened(chromium, running, user, lang, width, f"?group={GROUP}")
                assert await page.get_attribute("body", "data-state") == "ready"
                title = await page.text_content("#title") or ""
                assert ("Pipeline Club" if lang == "en" else "پائپ لائن کلب") in title
                assert GROUP not in (await page.text_content("body") or "")
                if view == "group-admin":
                    assert await page.locator("#items details.item").count() >= 8
                    assert await page.locator("#items details.item.flagged").count() >= 1
                await shoot(page, f"dashboard-{view}-{lang}-{width}")
                await page.context.close()

            # Errors say what to do and offer a way on.
            # Signed out, the page speaks the browser's language (en-US, ur-PK).
            for user, query, view in ((5005, f"?group={GROUP}", "403"), (None, "", "signin")):
                page = await opened(chromium, running, user, lang, width, query,
                                    locale="ur-PK" if lang == "ur" else "en-US")
                assert await page.get_attribute("body", "data-state") == "error"
                # a group you are not in: back to your own page; opened outside the bot: the
                # way is /dashboard; no "Try again" that can't help either
                assert await page.locator("#error a").count() == (view == "403")
                assert await page.locator("#error button").count() == 0
                assert await page.get_attribute("html", "dir") == (
                    "rtl" if lang == "ur" else "ltr")
                if view == "signin":
                    said = await page.text_content("#error") or ""
                    assert cat.raw(lang, "dashboard.signin_none") in strip_isolates(said)
                    # read, not tapped: in Urdu the command is isolated, its slash in front
                    assert ("\u2066/dashboard\u2069" in said) == (lang == "ur")
                await shoot(page, f"dashboard-error-{view}-{lang}-{width}")
                await page.context.close()


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_an_organiser_finds_a_member_in_a_long_table(tmp_path: Path, api: FakeBotAPI,
                                                           chromium: Any, lang: str) -> None:
    """Ten members or more: a search box over the member table (a phone's web view has no
    find-in-page), answered by the server; no match says so and offers everyone again; an
    order by when each last played. A member sees no table."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        cat = running.app.catalogue
        strings = page_strings(cat)[lang]
        page = await opened(chromium, running, 1002, lang, 360, f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "ready"
        table = page.locator("#member-table")

        async def shown() -> list[str]:
            return await page.locator("#member-table td.name").all_text_contents()

        async def answered(find: str, order: str = "weakest") -> None:
            await page.wait_for_selector(  # the rows shown answer this search and order
                f'#member-table[data-find="{find}"][data-order="{order}"]:not([aria-busy])',
                timeout=10_000)

        everyone = await shown()
        assert len(everyone) >= 10
        assert strip_isolates(await page.locator("#member-table th").last.text_content()
                              or "") == strip_isolates(strings["dashboard.col_played"])
        played = await page.locator("#member-table td.played").all_text_contents()
        assert set(map(strip_isolates, played)) == {strip_isolates(
            cat.t(lang, "dashboard.ago_now"))}  # everyone played moments ago
        find = page.locator("input.find")
        box = await find.bounding_box()
        assert box is not None and box["height"] >= 44
        await find.fill("member 7")
        await answered("member 7")
        assert await shown() == ["Member 7"]
        ada = "Ada" if lang == "en" else "عائشہ"
        await find.fill(ada)
        await answered(ada)
        assert await shown() == [ada]
        await find.fill("Zed")
        await find.press("Enter")
        await answered("Zed")
        assert await shown() == []
        none = table.locator(".none")
        assert strip_isolates(await none.locator("p").text_content() or "") == strip_isolates(
            strings["dashboard.find_none"])
        await none.locator("button").click()  # "Show everyone"
        await answered("")
        assert await shown() == everyone and await find.input_value() == ""
        await shoot(page, f"dashboard-find-member-{lang}-360")
        # Who stopped: the one who played first leads; who played last, the other way.
        await page.locator("#member-table select").select_option("idle")
        await answered("", "idle")
        assert (await shown())[0] == ada
        await page.locator("#member-table select").select_option("recent")
        await answered("", "recent")
        assert (await shown())[0] == "Member 9"
        await page.context.close()
        page = await opened(chromium, running, 1001, lang, 360, f"?group={GROUP}")
        assert await page.locator("input.find").count() == 0
        await page.context.close()


async def test_a_command_in_a_servers_sentence_reads_left_to_right_in_urdu(
        tmp_path: Path, api: FakeBotAPI, chromium: Any) -> None:
    """A sentence the server words (not the page's own strings) may name a command: in
    Urdu, 'کسی رکن کے /stats میں' showed 'stats/', its slash on the wrong side."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, "ur")
        page = await opened(chromium, running, 1002, "ur", 360, f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "ready"
        glyphs = await command_glyphs(page, "#member-table p.hint", "/stats")
        assert len({y for _, y in glyphs}) == 1 and [x for x, _ in glyphs] == sorted(
            x for x, _ in glyphs), glyphs
        await page.context.close()
