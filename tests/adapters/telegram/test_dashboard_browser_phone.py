"""The dashboard on a 360 px phone, as an organiser new to it reads it: whole names in the
member table, and the first screen of a group nobody has played in yet says what to do.

With `pytest --screenshots`, each view is kept in tests/artifacts/
(dashboard-phone-<view>-<lang>-360.png).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.app.dashboard_web import page_strings
from bot.present.i18n import strip_isolates
from tests.adapters.telegram.browser import (
    NEEDS_CHROMIUM,
    ON_SESSION_LOOP,
    session_loop_api,
    shoot,
)
from tests.adapters.telegram.dashboard_bot import dashboard_bot
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.test_dashboard_browser_layout import (
    ADMIN,
    GROUP,
    LONG,
    opened,
    seeded,
    wider_than_screen,
)

pytestmark = [NEEDS_CHROMIUM, ON_SESSION_LOOP]
api = session_loop_api()


async def split_words(page: Any, selector: str) -> list[str]:
    """The words (between spaces and hyphens) of each `selector` cell drawn over two lines or more
    though they would fit the table's width: "Maximilia|n". A wider word may break."""
    return list(await page.evaluate("""(selector) => {
        const out = [];
        for (const cell of document.querySelectorAll(selector)) {
            const text = cell.firstChild, s = text.data, style = getComputedStyle(cell);
            // a name may take the table's width; a heading, its own column's
            const room = (cell.tagName === 'TH' ? cell : cell.closest('table')).clientWidth -
                         parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
            for (const m of s.matchAll(/[^ -]+/g)) {  // a hyphen may end a line
                const word = m[0], range = document.createRange();
                range.setStart(text, m.index); range.setEnd(text, m.index + word.length);
                const rects = [...range.getClientRects()].filter(r => r.width > 0);
                const tops = new Set(rects.map(r => Math.round(r.top)));
                const wide = rects.reduce((sum, r) => sum + r.width, 0);
                if (tops.size > 1 && wide <= room) { out.push(word); }
            }
        }
        return out;
    }""", selector))


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_the_member_table_keeps_names_whole_on_a_phone(
        tmp_path: Path, api: FakeBotAPI, chromium: Any, lang: str) -> None:
    """Five columns in 360 px left a name a fifth of the line: "Maximilia|n", "Worthing|ton"
    in every row of a long table. A name has the row's first line to itself; its quiz, attempts,
    best and last played stand under it, under headings that line up with them."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        page = await opened(chromium, running, ADMIN, lang, 360, f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "ready"
        names = await page.locator("#member-table td.name").all_text_contents()
        assert LONG in names
        assert await split_words(page, "#member-table td.name, #member-table th") == []
        assert await wider_than_screen(page) == []
        columns = await page.evaluate("""() => {
            const lefts = row => [...row.children].slice(1)
                .map(c => Math.round(c.getBoundingClientRect().left));
            return [lefts(document.querySelector('#member-table thead tr')),
                    lefts(document.querySelector('#member-table tbody tr'))];
        }""")
        assert columns[0] == columns[1], columns  # each heading above its figures
        await page.locator("#member-table h2").evaluate("h => h.scrollIntoView()")
        await shoot(page, f"dashboard-phone-member-table-{lang}-360", full_page=False)
        await page.context.close()


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_a_groups_address_opened_outside_the_bot_offers_no_dead_end(
        tmp_path: Path, api: FakeBotAPI, chromium: Any, lang: str) -> None:
    """A group's page opened in a browser (a bookmark, a forwarded address): what to do
    (/dashboard to the bot), and not "Back to my progress", a link to the learner's page,
    which cannot open without a sign-in either."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        cat = running.app.catalogue
        page = await opened(chromium, running, None, lang, 360, f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "error"
        said = strip_isolates(await page.locator("#error p").first.text_content() or "")
        assert said == strip_isolates(page_strings(cat)[lang]["dashboard.signin_none"])
        assert await page.locator("#error a, #error button").count() == 0
        await shoot(page, f"dashboard-phone-outside-group-{lang}-360")
        await page.context.close()


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_each_download_is_named_for_its_group_and_what_it_holds(
        tmp_path: Path, api: FakeBotAPI, chromium: Any, lang: str) -> None:
    """The results and the question statistics both saved as "quizbot-results.csv" (the
    second as "quizbot-results (1).csv"): each file says whose it is and what it holds."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        cat = running.app.catalogue
        assert running.app.chats is not None
        await running.app.chats.note("telegram", GROUP, 'Pipeline Club: "spring"/2026')
        page = await opened(chromium, running, ADMIN, lang, 360, f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "ready"
        names = []
        for button in ("#member-table button", "#items button"):
            async with page.expect_download() as info:
                await page.locator(button).filter(has_text="CSV").click()
            names.append((await info.value).suggested_filename)
        group = "Pipeline Club spring 2026"
        assert names == [f"{group} - {cat.raw(lang, 'dashboard.file_results')}.csv",
                         f"{group} - {cat.raw(lang, 'dashboard.file_items')}.csv"]
        await page.context.close()
