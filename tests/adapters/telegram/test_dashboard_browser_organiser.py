"""The dashboard as an organiser who runs rounds reads it on a phone in Telegram: the way from
one group's page to another's, times in their own time zone, a screen reader told only what
changed, and Telegram's own theme colours kept only where they stay readable.

With `pytest --screenshots`, each view is kept in tests/artifacts/
(dashboard-organiser-<view>-<lang>-360.png).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.app.dashboard_web import page_strings
from bot.domain.results import Actor
from bot.features.dashboard.membership import Role
from bot.present.i18n import strip_isolates
from bot.store.commands import rounds_sql
from bot.store.round_rows import NewRound
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
from tests.adapters.telegram.test_dashboard_browser_layout import low_contrast
from tests.dashboard_support import init_data, play, telegram_fragment

pytestmark = [NEEDS_CHROMIUM, ON_SESSION_LOOP]
api = session_loop_api()

CLUB, NINE = "-1001111111111", "-1002222222222"
TESS, ADA = 3001, 3002  # Tess hosts rounds in both groups and plays none; Ada plays
ROUND_AT = 1_796_303_700.0  # 2026-12-03 13:15 UTC: 18:15 in Karachi, 08:15 in New York
# Telegram's light theme as its Android app passes it: a hint of 2.8:1 on white, a link
# and a button of 4.1:1 (WCAG AA asks 4.5:1 for text)
DAY = {"bg_color": "#ffffff", "text_color": "#000000", "hint_color": "#999999",
       "link_color": "#2481cc", "button_color": "#2481cc", "button_text_color": "#ffffff",
       "secondary_bg_color": "#f0f0f0"}


async def seeded(running: DashboardBot, lang: str) -> None:
    """Tess runs a round in each of two groups (Pipeline Club last) and answers nothing;
    Ada finished a quiz in the club. Tess administers both."""
    app = running.app
    engine, quizzes = app.engine, dict(app.engine.library.quizzes)
    tess = Actor("telegram", str(TESS), None, "Tess")
    await engine.set_language(tess, lang)
    await play(engine, quizzes, Actor("telegram", str(ADA), CLUB, "Ada"), wrong={1, 2})
    for chat, at in ((NINE, ROUND_AT - 86400), (CLUB, ROUND_AT)):
        new = NewRound("telegram", chat, chat, str(TESS), "Tess", "parallelism", lang,
                       ("q1", "q2"), ((0, 1, 2, 3), (0, 1, 2, 3)), 30, 0.0)
        rnd = await app.store.write(rounds_sql.create_round, new, at)
        await app.store.write(rounds_sql.stop_round, rnd.id, at + 60)
    assert app.chats is not None
    await app.chats.note("telegram", CLUB, "Pipeline Club")
    await app.chats.note("telegram", NINE, "Year 9")

    async def member(group: str, user: str) -> Role:
        return Role(True, admin=True) if user == str(TESS) else Role(user == str(ADA))

    app.memberships.provide("telegram", member)


async def opened(browser: Any, running: DashboardBot, user: int, lang: str, query: str = "",
                 *, zone: str = "UTC", theme: dict[str, str] | None = None) -> Any:
    """The Mini App at 360 px in time zone `zone`, signed in as `user`, once settled."""
    context = await browser.new_context(viewport={"width": 360, "height": 800},
                                        device_scale_factor=1, timezone_id=zone,
                                        locale="ur-PK" if lang == "ur" else "en-US")
    await context.route(lambda url: not url.startswith("http://127.0.0.1"),
                        lambda route: route.abort())
    page = await context.new_page()
    data = init_data(TOKEN, user, "Tess", auth_date=running.app.engine.clock(),
                     language_code=lang)
    await page.goto(f"{running.url}/app{query}#{telegram_fragment(data, theme)}")
    await page.wait_for_selector("body[data-state]", timeout=15_000)
    assert await page.get_attribute("body", "data-state") == "ready"
    return page


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_an_organiser_who_only_hosts_goes_from_one_group_to_the_other(
        tmp_path: Path, api: FakeBotAPI, chromium: Any, lang: str) -> None:
    """A teacher who runs rounds and answers none had a page with no groups on it ("Welcome"
    and nothing else): from one group's page, "Back to my progress" led nowhere, so their
    other group opened only from its chat. Their page leads with each group they host, the
    one hosted last first, above the welcome to a first quiz, and each link opens that
    group's page."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        page = await opened(chromium, running, TESS, lang, f"?group={NINE}")
        await page.locator("#who a").click()
        await page.wait_for_selector("#groups a")
        links = [strip_isolates(x) for x in await page.locator("#groups a").all_text_contents()]
        assert links == ["Pipeline Club", "Year 9"]
        groups = await page.locator("#groups").bounding_box()
        welcome = await page.locator("#welcome").bounding_box()
        assert groups and welcome and groups["y"] < welcome["y"]  # their point comes first
        hint = strip_isolates(await page.locator("#groups .groups-hint").text_content() or "")
        assert hint == strip_isolates(running.app.catalogue.t(lang, "dashboard.groups_hint"))
        await shoot(page, f"dashboard-organiser-groups-{lang}-360")
        await page.locator("#groups a").first.click()
        await page.wait_for_selector("#rounds li")
        heading = strip_isolates(await page.locator("#title").text_content() or "")
        assert "Pipeline Club" in heading
        await page.context.close()


@pytest.mark.parametrize(("zone", "hour"), [("Asia/Karachi", "18:15"),
                                            ("America/New_York", "08:15")])
@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_a_rounds_time_is_the_readers_own(tmp_path: Path, api: FakeBotAPI,
                                                chromium: Any, lang: str, zone: str,
                                                hour: str) -> None:
    """A round run at 18:15 in Karachi read '2026-12-03 13:15 UTC' on its teacher's phone
    there: the reader had to work out their own time. Rounds now show the time where the
    phone is, its zone named; the UTC time stays in the row's title."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        page = await opened(chromium, running, TESS, lang, f"?group={CLUB}", zone=zone)
        row = strip_isolates(await page.locator("#rounds li").first.text_content() or "")
        assert hour in row and "13:15 UTC" not in row, row
        assert await page.locator("#rounds li").first.get_attribute("title") == \
            "2026-12-03 13:15 UTC"
        await shoot(page, f"dashboard-organiser-rounds-{lang}-360")
        await page.context.close()


async def test_only_the_status_line_speaks_to_a_screen_reader(
        tmp_path: Path, api: FakeBotAPI, chromium: Any) -> None:
    """The whole page was one polite live region: a screen reader read the entire dashboard
    out when it loaded, and the member table again at each search. Only the loading line
    (role=status) and the error box (role=alert) are live; the view is not inside them."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, "en")
        page = await opened(chromium, running, TESS, "en", f"?group={CLUB}")
        live = await page.evaluate("""() => [...document.querySelectorAll(
            '[aria-live], [role=status], [role=alert], [role=log]')].map(e => e.id)""")
        assert sorted(live) == ["error", "status"]
        inside = await page.evaluate("""() => !!document.getElementById('view')
            .closest('[aria-live], [role=status], [role=alert], [role=log]')""")
        assert not inside
        await page.context.close()


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_telegrams_light_theme_keeps_hints_and_links_readable(
        tmp_path: Path, api: FakeBotAPI, chromium: Any, lang: str) -> None:
    """Telegram's light theme passes a hint colour of 2.8:1 on white and a link and button
    colour of 4.1:1: 'Weakest first', each weak question's quiz and number, the links and the
    buttons fell under WCAG AA. A theme colour is taken only where it keeps 4.5:1 on the page
    and on a card; Telegram's background and text still are."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        for query in ("", f"?group={CLUB}"):
            page = await opened(chromium, running, TESS, lang, query, theme=DAY)
            assert await low_contrast(page, ".hint, a, button, .button") == {}, query
            bg = await page.evaluate("getComputedStyle(document.body).backgroundColor")
            assert bg == "rgb(255, 255, 255)"
            await shoot(page, f"dashboard-organiser-theme{query and '-group'}-{lang}-360")
            await page.context.close()


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_what_the_group_gets_wrong_ends_with_the_next_step(
        tmp_path: Path, api: FakeBotAPI, chromium: Any, lang: str) -> None:
    """After the weakest questions, and before the charts of every question, the organiser
    reads what to do about them: a round of that quiz, its command left to right and on one
    line in Urdu too."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        page = await opened(chromium, running, TESS, lang, f"?group={CLUB}")
        step = page.locator("#wrong .next-step")
        assert "/round parallelism" in strip_isolates(await step.text_content() or "")
        last_miss = await page.locator("#wrong .miss").last.bounding_box()
        box, chart = await step.bounding_box(), await page.locator(
            "#wrong svg.chart").first.bounding_box()
        assert last_miss and box and chart and last_miss["y"] < box["y"] < chart["y"]
        glyphs = await command_glyphs(page, "#wrong .next-step", "/round parallelism")
        assert len({y for _, y in glyphs}) == 1, glyphs  # one line
        xs = [x for x, _ in glyphs]
        assert xs == sorted(xs), glyphs  # "/round parallelism", not "parallelism /round"
        await step.scroll_into_view_if_needed()
        await shoot(page, f"dashboard-organiser-next-step-{lang}-360", full_page=False)
        await page.context.close()


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_a_group_the_bot_left_says_to_add_it_back(
        tmp_path: Path, api: FakeBotAPI, chromium: Any, lang: str) -> None:
    """The page of a group the bot was removed from said 'for its members only' to its own
    teacher: it says the bot is no longer there and to add it back, with a way back to their
    own page and no 'Try again'."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)

        async def gone(group: str, user: str) -> Role:
            return Role(False, bot_gone=True)

        running.app.memberships.provide("telegram", gone)
        context = await chromium.new_context(viewport={"width": 360, "height": 800},
                                             locale="ur-PK" if lang == "ur" else "en-US")
        page = await context.new_page()
        data = init_data(TOKEN, TESS, "Tess", auth_date=running.app.engine.clock(),
                         language_code=lang)
        await page.goto(f"{running.url}/app?group={CLUB}#{telegram_fragment(data)}")
        await page.wait_for_selector("body[data-state=error]", timeout=15_000)
        said = strip_isolates(await page.locator("#error p").first.text_content() or "")
        assert said == strip_isolates(page_strings(running.app.catalogue)[lang]
                                      ["dashboard.bot_gone"])
        assert await page.locator("#error button").count() == 0
        assert await page.locator("#error a").count() == 1  # back to their own page
        await shoot(page, f"dashboard-organiser-bot-gone-{lang}-360")
        await context.close()


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_a_teacher_who_only_set_the_group_up_finds_it_labelled_on_a_phone(
        tmp_path: Path, api: FakeBotAPI, chromium: Any, lang: str) -> None:
    """Tess chose Year 9's quiz with /settings and neither plays nor hosts there: her page
    listed no group. It lists Year 9, "You manage this group" on its own line under the
    link (beside it, it ran into the name at 360 px)."""
    async with dashboard_bot(tmp_path, api) as running:
        app = running.app
        assert app.chats is not None
        await app.chats.note("telegram", NINE, "Year 9")
        await app.engine.set_group(Actor("telegram", str(TESS), NINE, "Tess"), admin=True,
                                   quiz="long-context")
        page = await opened(chromium, running, TESS, lang)
        link = page.locator("#groups a").first
        assert strip_isolates(await link.text_content() or "") == "Year 9"
        note = page.locator("#groups .manages")
        assert await note.text_content() == app.catalogue.t(lang, "dashboard.you_manage")
        box, under = await link.bounding_box(), await note.bounding_box()
        assert box and under and under["y"] >= box["y"] + box["height"] - 1
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360
        await shoot(page, f"dashboard-organiser-manages-{lang}-360")
        await page.context.close()
