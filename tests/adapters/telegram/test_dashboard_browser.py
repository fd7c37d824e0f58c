"""The dashboard in a real browser (headless Chromium from Debian, driven by Playwright),
opened the way Telegram opens a Mini App: /app#tgWebAppData=<initData>&tgWebAppThemeParams=...

With `pytest --screenshots` each test keeps its page in tests/artifacts/ (git-ignored).
One browser per test process, a context of its own per test (tests/adapters/telegram/browser.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot.app.dashboard_web import page_strings
from bot.domain.results import Actor
from bot.features.dashboard.auth import Identity
from bot.present.i18n import strip_isolates
from tests.adapters.telegram.browser import (
    NEEDS_CHROMIUM,
    ON_SESSION_LOOP,
    command_glyphs,
    session_loop_api,
    shoot,
)
from tests.adapters.telegram.dashboard_bot import DashboardBot, dashboard_bot, finish_quiz
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.learners import Learner
from tests.adapters.telegram.support import TOKEN, AnswerKey
from tests.dashboard_support import init_data, telegram_fragment

GROUP = -1001234567890
PHONE = {"width": 390, "height": 844}  # a phone's CSS viewport
DARK = {"bg_color": "#17212b", "text_color": "#f5f5f5", "hint_color": "#708499",
        "link_color": "#6ab3f3", "button_color": "#5288c1", "button_text_color": "#ffffff",
        "secondary_bg_color": "#232e3c"}

pytestmark = [NEEDS_CHROMIUM, ON_SESSION_LOOP]
api = session_loop_api()


@pytest_asyncio.fixture(loop_scope="session")
async def page(chromium: Any) -> AsyncIterator[Any]:
    context = await chromium.new_context(viewport=PHONE, device_scale_factor=2)
    try:
        # Only our own server: a request anywhere else would be a page fetching at run time.
        await context.route(lambda url: not url.startswith("http://127.0.0.1"),
                            lambda route: route.abort())
        yield await context.new_page()
    finally:
        await context.close()


async def open_app(page: Any, running: DashboardBot, data: str | None, *,
                   query: str = "", theme: dict[str, str] | None = None) -> None:
    fragment = "" if data is None else "#" + telegram_fragment(data, theme)
    await page.goto("about:blank")  # a new fragment alone would not load the page again
    await page.goto(f"{running.url}/app{query}{fragment}")
    await page.wait_for_selector("body[data-state]", timeout=15_000)


async def test_learner_sees_name_and_score_after_a_quiz(tmp_path: Path, api: FakeBotAPI,
                                                        key: AnswerKey, page: Any) -> None:
    async with dashboard_bot(tmp_path, api) as running:
        learner = Learner(api, api.user(1001, "Alice", "Smith"))
        await finish_quiz(learner, key, wrong={1, 4})
        data = init_data(TOKEN, 1001, "Alice", auth_date=running.app.engine.clock())
        await open_app(page, running, data)
        assert await page.get_attribute("body", "data-state") == "ready"
        assert await page.text_content("#who") == "Alice Smith"
        score = page.locator("li.score[data-quiz=parallelism]")
        assert "best 6/8, last 6/8, attempts: 1" in (await score.text_content() or "")
        misses = page.locator(".miss")
        assert await misses.count() == 2
        explanation = key.quiz.questions[1].explanation.get("en")
        assert explanation in (await page.text_content("#view") or "")
        assert await page.locator("svg.chart").count() >= 3  # accuracy, forecast, calendar
        assert await page.get_attribute("html", "dir") == "ltr"
        assert len(await page.screenshot(full_page=True)) > 10_000  # drawn, not blank
        await shoot(page, "dashboard-learner-en")


async def test_urdu_page_is_right_to_left_in_telegrams_dark_theme(
        tmp_path: Path, api: FakeBotAPI, key: AnswerKey, page: Any) -> None:
    async with dashboard_bot(tmp_path, api) as running:
        cat = running.app.catalogue
        learner = Learner(api, api.user(3003, "Ayesha", language_code="ur"))
        await finish_quiz(learner, key, wrong={0}, lang="ur")
        data = init_data(TOKEN, 3003, "Ayesha", auth_date=running.app.engine.clock(),
                         language_code="ur")
        await open_app(page, running, data, theme=DARK)
        assert await page.get_attribute("body", "data-state") == "ready"
        assert await page.get_attribute("html", "dir") == "rtl"
        assert await page.get_attribute("html", "lang") == "ur"
        title = strip_isolates(await page.text_content("#title") or "")
        assert title == cat.raw("ur", "dashboard.title")
        assert await page.text_content("#who") == "Ayesha"
        view = strip_isolates(await page.text_content("#view") or "")
        assert key.quiz.questions[0].explanation.get("ur") in view
        background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background == "rgb(23, 33, 43)"  # Telegram's bg_color
        assert await page.evaluate("document.documentElement.classList.contains('dark')")
        await shoot(page, "dashboard-learner-ur-dark")


@pytest.mark.parametrize(("case", "said"), [("forged", "signin"), ("expired", "signin_expired"),
                                            ("missing", "signin_none")])
async def test_bad_init_data_gets_the_sign_in_error(tmp_path: Path, api: FakeBotAPI,
                                                    page: Any, case: str, said: str) -> None:
    """Each says what to do: a day-old Mini App page that its sign-in expired (open it anew
    from the bot), the page opened outside the bot that the bot opens it; no "Try again",
    which reloads the same sign-in (all three said "Sign-in failed" over "Try again")."""
    async with dashboard_bot(tmp_path, api) as running:
        now = running.app.engine.clock()
        data = {"forged": init_data(TOKEN, 1001, "Alice", auth_date=now, forged=True),
                "expired": init_data(TOKEN, 1001, "Alice", auth_date=now - 2 * 86400),
                "missing": None}[case]
        await open_app(page, running, data)
        assert await page.get_attribute("body", "data-state") == "error"
        error = page.locator("#error")
        assert await error.is_visible()
        assert await error.get_attribute("data-status") == "401"
        assert await error.locator("p").first.text_content() == running.app.catalogue.raw(
            "en", f"dashboard.{said}")
        assert await error.locator("button").count() == 0
        assert await page.locator("#view section").count() == 0
        await shoot(page, f"dashboard-signin-{case}")


async def test_group_page_for_members_and_403_for_others(tmp_path: Path, api: FakeBotAPI,
                                                         key: AnswerKey, page: Any) -> None:
    async with dashboard_bot(tmp_path, api) as running:
        cat = running.app.catalogue
        group = api.group_chat(GROUP, title="Pipeline Club")
        alice = api.user(1001, "Alice")
        # A solo quiz opened from the group counts there: /quiz in the group hands out the
        # deep link; /start with it in private plays it for the group.
        in_group = Learner(api, alice, group)
        since = in_group.mark()
        await in_group.send("/quiz parallelism")
        link = await in_group.reply(since)
        start = link["reply_markup"]["inline_keyboard"][0][0]["url"].split("start=")[1]
        private = Learner(api, alice)
        since = private.mark()
        await private.send(f"/start {start}")
        await finish_quiz_from(private, key, since, wrong={2})

        now = running.app.engine.clock()
        stranger = init_data(TOKEN, 4004, "Eve", auth_date=now)
        await open_app(page, running, stranger, query=f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "error"
        assert await page.get_attribute("#error", "data-status") == "403"
        assert await page.locator("#error p").first.text_content() == cat.raw(
            "en", "dashboard.forbidden")
        assert await page.locator("#error a").get_attribute("href") == "/app#" + \
            telegram_fragment(stranger)  # back to their own progress
        await shoot(page, "dashboard-group-403")

        member = init_data(TOKEN, 1001, "Alice", auth_date=now)
        await open_app(page, running, member, query=f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "ready"
        text = await page.text_content("#view") or ""
        missed = key.quiz.questions[2]
        wrong = {o.text.get("en") for i, o in enumerate(missed.options) if i != missed.correct}
        assert cat.raw("en", "dashboard.misconceptions") in text
        [pick] = await page.locator(".miss .bad").all_text_contents()  # one question missed
        prefix, suffix = "Most chosen wrong answer: ", " (1×)"
        assert pick.startswith(prefix) and pick.endswith(suffix)
        assert pick[len(prefix):-len(suffix)] in wrong
        assert await page.locator("table").count() == 0  # members see no per-member rows
        await shoot(page, "dashboard-group-member")

        api.members[(GROUP, 1002)] = "administrator"  # a chat admin sees every member
        admin = init_data(TOKEN, 1002, "Grace", auth_date=now)
        await open_app(page, running, admin, query=f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "ready"
        cells = await page.locator("table tr td").all_text_contents()
        assert cells[:4] == ["Alice", key.quiz.title.get("en"), "1", "7/8"]  # names, out of 8
        assert cells[4] == "just now" or cells[4].endswith(" ago")  # when Alice last played
        assert await page.text_content("#title") == "Study group · Pipeline Club"  # its title
        async with page.expect_download() as download_info:
            await page.get_by_role("button", name=cat.raw("en", "dashboard.export_csv")).click()
        download = await download_info.value
        saved = tmp_path / "export.csv"
        await download.save_as(str(saved))
        rows = saved.read_text(encoding="utf-8").splitlines()
        assert rows[0].startswith("platform,user_id,display_name") and len(rows) == 9
        assert all(",Alice," in row for row in rows[1:])
        await shoot(page, "dashboard-group-admin")


async def test_a_group_with_no_answers_yet_says_how_to_start(tmp_path: Path, api: FakeBotAPI,
                                                             page: Any) -> None:
    async with dashboard_bot(tmp_path, api) as running:
        cat = running.app.catalogue
        api.group_chat(GROUP, title="Pipeline Club")
        api.members[(GROUP, 1001)] = "member"
        member = init_data(TOKEN, 1001, "Alice", auth_date=running.app.engine.clock())
        await open_app(page, running, member, query=f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "ready"
        # The first box says what to do: not "Members who finished a quiz here: 0" over a
        # second box ("What the group gets wrong") that said it.
        first = page.locator("#view section").first
        assert await first.locator("h2").text_content() == cat.raw("en", "dashboard.members")
        assert await first.locator("p").all_text_contents() == [
            cat.raw("en", "dashboard.no_answers")]
        assert await page.locator("#wrong").count() == 0
        assert await page.locator("#view p.hint").all_text_contents() == [
            cat.raw("en", "dashboard.no_answers"), cat.raw("en", "dashboard.no_rounds")]
        await shoot(page, "dashboard-group-empty")


async def finish_quiz_from(learner: Learner, key: AnswerKey, since: int, wrong: set[int]
                           ) -> None:
    """Answer a quiz whose first question was already sent after `since`."""
    from tests.adapters.telegram.learners import is_question

    question = await learner.reply(since, is_question)
    for n in range(len(key.quiz.questions)):
        letter = key.wrong(question["text"]) if n in wrong else key.right(question["text"])
        since = learner.mark()
        await learner.press(question, letter)
        if n < len(key.quiz.questions) - 1:
            question = await learner.reply(since, is_question)
    await learner.reply(since, lambda m: "Finished" in m["text"])


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_a_lost_connection_says_to_check_it_not_that_the_server_failed(
        tmp_path: Path, api: FakeBotAPI, page: Any, lang: str) -> None:
    """The page loaded, then its request for the figures never reached the server (the
    phone went offline, a tunnel): what to check and "Try again", not "Something went wrong
    on our side" (the server never heard of it)."""
    async with dashboard_bot(tmp_path, api) as running:
        cat = running.app.catalogue
        data = init_data(TOKEN, 1001, "Alice", auth_date=running.app.engine.clock(),
                         language_code=lang)
        await page.route("**/api/**", lambda route: route.abort("internetdisconnected"))
        try:
            await open_app(page, running, data)
        finally:
            await page.unroute("**/api/**")
        assert await page.get_attribute("body", "data-state") == "error"
        error = page.locator("#error")
        assert await error.get_attribute("data-status") == "0"
        said = strip_isolates(await error.locator("p").first.text_content() or "")
        assert said == strip_isolates(cat.raw(lang, "dashboard.offline"))
        assert said != strip_isolates(cat.raw(lang, "error.generic"))
        assert await error.locator("button").count() == 1  # try again
        await shoot(page, f"dashboard-offline-{lang}")


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_an_empty_discord_servers_page_says_server_and_round_start(
        tmp_path: Path, api: FakeBotAPI, page: Any, lang: str) -> None:
    """Opened from Discord's /dashboard in a server nobody has played in yet: what to do
    there ('/round start' in one of its channels), not Telegram's 'Send /round in the
    group', a command Discord does not have."""
    async with dashboard_bot(tmp_path, api, web_secret="s" * 64) as running:
        cat = running.app.catalogue
        await running.app.engine.set_language(Actor("discord", "42", None, "Grace"), lang)
        link = running.app.signer.link(Identity("discord", "42", "Grace", None, "9001", False))
        await page.goto("about:blank")
        await page.goto(f"{running.url}/app?group=9001#link={link}")
        await page.wait_for_selector("body[data-state]", timeout=15_000)
        assert await page.get_attribute("body", "data-state") == "ready"
        hints = [strip_isolates(h) for h in await page.locator("#view p.hint").all_text_contents()]
        assert hints == [strip_isolates(page_strings(cat)[lang][f"dashboard.{key}_server"])
                         for key in ("no_answers", "no_rounds")]
        assert all("/round start" in h for h in hints[1:])
        await shoot(page, f"dashboard-discord-server-empty-{lang}")


@pytest.mark.parametrize(("lang", "platform"), [("ur", "discord"), ("ur", "telegram"),
                                                ("en", "discord")])
async def test_a_command_on_the_page_stays_whole_on_one_line(
        tmp_path: Path, api: FakeBotAPI, page: Any, lang: str, platform: str) -> None:
    """At a phone's width a line may end at a command: the browser broke it after its slash
    ('... میں /' then 'round start' on the next line), which reads as no command at all. A
    command on the page keeps together, left to right, in an Urdu line too."""
    async with dashboard_bot(tmp_path, api, web_secret="s" * 64) as running:
        if platform == "discord":
            await running.app.engine.set_language(Actor("discord", "42", None, "Grace"), lang)
            link = running.app.signer.link(Identity("discord", "42", "Grace", None, "9001",
                                                    False))
            fragment, command = f"link={link}", "/round start"
        else:
            api.group_chat(GROUP, title="Pipeline Club")
            api.members[(GROUP, 1001)] = "member"
            fragment = telegram_fragment(init_data(
                TOKEN, 1001, "Alice", auth_date=running.app.engine.clock(), language_code=lang))
            command = "/round"
        group = "9001" if platform == "discord" else str(GROUP)
        await page.goto("about:blank")
        await page.goto(f"{running.url}/app?group={group}#{fragment}")
        await page.wait_for_selector("body[data-state]", timeout=15_000)
        assert await page.get_attribute("body", "data-state") == "ready"
        glyphs = await command_glyphs(page, "#rounds p.hint", command)
        assert len({y for _, y in glyphs}) == 1, glyphs  # one line
        xs = [x for x, _ in glyphs]
        assert xs == sorted(xs), glyphs  # left to right: "/round start", not "start /round"
        await shoot(page, f"dashboard-command-whole-{platform}-{lang}")


async def test_a_failed_download_shows_its_error_where_the_admin_is(
        tmp_path: Path, api: FakeBotAPI, key: AnswerKey, page: Any) -> None:
    """The download buttons sit at the bottom of a long page; when the file cannot be fetched
    (here the connection drops) the error box at the top scrolls into view, titled with the
    group, instead of appearing off-screen while the button seems to do nothing."""
    async with dashboard_bot(tmp_path, api) as running:
        group = api.group_chat(GROUP, title="Pipeline Club")
        api.members[(GROUP, 1002)] = "administrator"
        for uid, name in ((1001, "Alice"), (1003, "Bob")):
            learner = Learner(api, api.user(uid, name), group)
            since = learner.mark()
            await learner.send("/quiz parallelism")
            link = await learner.reply(since)
            start = link["reply_markup"]["inline_keyboard"][0][0]["url"].split("start=")[1]
            private = Learner(api, api.user(uid, name))
            since = private.mark()
            await private.send(f"/start {start}")
            await finish_quiz_from(private, key, since, wrong={2})
        admin = init_data(TOKEN, 1002, "Grace", auth_date=running.app.engine.clock())
        await open_app(page, running, admin, query=f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "ready"
        await page.route("**/export.csv", lambda route: route.abort("internetdisconnected"))
        button = page.get_by_role("button", name=running.app.catalogue.raw(
            "en", "dashboard.export_csv"))
        await button.scroll_into_view_if_needed()
        await button.click()
        await page.wait_for_selector("#error:not([hidden])")
        assert await page.get_attribute("#error", "data-status") == "0"
        assert await page.locator("#error").is_visible()
        assert await page.locator("#error p").first.evaluate(
            "p => { const r = p.getBoundingClientRect(); "
            "return r.top >= 0 && r.bottom <= innerHeight; }")
        await shoot(page, "dashboard-group-download-failed")


async def test_a_groups_page_that_cannot_load_is_titled_as_the_group_page(
        tmp_path: Path, api: FakeBotAPI, page: Any) -> None:
    """A teacher opening the group's page offline reads 'Your study group' over the error,
    not 'Your progress', the learner's own page they did not open."""
    async with dashboard_bot(tmp_path, api) as running:
        cat = running.app.catalogue
        data = init_data(TOKEN, 1002, "Grace", auth_date=running.app.engine.clock())
        await page.route("**/api/**", lambda route: route.abort("internetdisconnected"))
        try:
            await open_app(page, running, data, query=f"?group={GROUP}")
        finally:
            await page.unroute("**/api/**")
        assert await page.get_attribute("body", "data-state") == "error"
        assert await page.text_content("#title") == cat.raw("en", "dashboard.group_untitled")
