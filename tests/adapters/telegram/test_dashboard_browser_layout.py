"""The dashboard's layout measured in Chromium, as an organiser opens it on a phone: nothing
wider than the screen (a member's name is whatever they typed), tap targets a thumb can hit,
text that keeps its contrast in light and dark, and a group with no answers yet offers
nothing to download.

With `pytest --screenshots`, each view is kept in tests/artifacts/
(dashboard-layout-<view>-<lang>-<width>.png).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.app.dashboard_web import page_strings
from bot.domain.results import Actor
from bot.features.dashboard.membership import Role
from bot.present.i18n import strip_isolates
from tests.adapters.telegram import test_dashboard_browser_views as views
from tests.adapters.telegram.browser import (
    NEEDS_CHROMIUM,
    ON_SESSION_LOOP,
    session_loop_api,
    shoot,
)
from tests.adapters.telegram.dashboard_bot import DashboardBot, dashboard_bot
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.test_dashboard_browser_views import arabic_fonts_used
from tests.dashboard_support import play

GROUP = "-1001234567890"
EMPTY = "-1009876543210"
ADMIN, LONG_NAMED = 1002, 2001
# A name with nowhere to break, and one that breaks only between words.
UNBROKEN = "Supercalifragilisticexpialidocious_Engineer_2026_with_no_spaces_at_all"
LONG = "Maximilian Alexander Fitzgerald-Worthington the Third of Somewhere Far Away"
PHONES = {width: views.HEIGHTS[width] for width in (360, 390)}
THUMB = 44  # CSS px: Apple's 44 pt, a little under Material's 48 dp
AA = 4.5  # WCAG's contrast for body text
# Telegram Desktop's night theme, as Telegram passes it (tgWebAppThemeParams)
NIGHT = {"bg_color": "#17212b", "text_color": "#f5f5f5", "hint_color": "#708499",
         "link_color": "#6ab3f3", "button_color": "#5288c1", "button_text_color": "#ffffff",
         "secondary_bg_color": "#232e3c"}

pytestmark = [NEEDS_CHROMIUM, ON_SESSION_LOOP]
api = session_loop_api()


async def seeded(running: DashboardBot, lang: str) -> None:
    """An organiser (the group's admin) and two members with long names in one group; a
    second group with no answers yet, administered by the same organiser."""
    app = running.app
    engine, quizzes = app.engine, dict(app.engine.library.quizzes)
    organiser = Actor("telegram", str(ADMIN), GROUP, "Grace")
    await engine.set_language(organiser, lang)
    await play(engine, quizzes, organiser, wrong={1})
    await play(engine, quizzes, Actor("telegram", str(LONG_NAMED), GROUP, UNBROKEN),
               wrong={2, 3})
    await play(engine, quizzes, Actor("telegram", "2002", GROUP, LONG), wrong={3})
    await play(engine, quizzes, Actor("telegram", "2002", GROUP, LONG),
               quiz_id="parallelism-deep", wrong={0, 5})
    assert app.chats is not None
    await app.chats.note("telegram", GROUP, "Pipeline Club")
    await app.chats.note("telegram", EMPTY, "Newcomers")

    async def member(group: str, user: str) -> Role:
        if user == str(ADMIN):
            return Role(True, admin=True)
        return Role(group == GROUP and user in {str(LONG_NAMED), "2002"})

    app.memberships.provide("telegram", member)


async def opened(browser: Any, running: DashboardBot, user: int | None, lang: str,
                 width: int, query: str = "", **options: Any) -> Any:
    """`views.opened` as Grace, in the browser's language matching `lang`."""
    return await views.opened(browser, running, user, lang, width, query,
                              "ur-PK" if lang == "ur" else "en-US", name="Grace", **options)


async def wider_than_screen(page: Any) -> list[str]:
    """Every element reaching past the viewport's left or right edge (what would make the
    page scroll sideways), with where it reaches and the start of its text."""
    return list(await page.evaluate("""() => {
        const width = document.documentElement.clientWidth, out = [];
        for (const e of document.querySelectorAll('body *')) {
            const r = e.getBoundingClientRect();
            if (r.width && (r.right > width + 0.5 || r.left < -0.5)) {
                out.push(`${e.tagName} ${Math.round(r.left)}..${Math.round(r.right)} ` +
                         (e.textContent || '').slice(0, 30));
            }
        }
        if (document.documentElement.scrollWidth > width) { out.push('scrollWidth'); }
        return out;
    }"""))


async def low_contrast(page: Any, selector: str) -> dict[str, float]:
    """The text elements matching `selector` (outside charts) whose colour has less than AA
    contrast on the background they stand on: "TAG.class colour on background": ratio."""
    return dict(await page.evaluate("""([selector, aa]) => {
        const rgb = s => s.match(/[\\d.]+/g).map(Number);
        const lum = c => c.slice(0, 3).map(v => v / 255)
            .map(v => v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4))
            .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
        const under = e => {
            for (; e; e = e.parentElement) {
                const c = rgb(getComputedStyle(e).backgroundColor);
                if (c.length < 4 || c[3] > 0) { return c; }
            }
            return [255, 255, 255];
        };
        const out = {};
        for (const e of document.querySelectorAll(selector)) {
            if (e.closest('svg') || !e.textContent.trim()) { continue; }
            const fg = lum(rgb(getComputedStyle(e).color)), bg = lum(under(e));
            const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
            if (ratio < aa) {
                out[`${e.tagName}.${e.className} ${getComputedStyle(e).color} on ` +
                    under(e).join(',')] = Math.round(ratio * 100) / 100;
            }
        }
        return out;
    }""", [selector, AA]))


async def small_targets(page: Any) -> list[str]:
    """Every visible link, button and fold lower than a thumb (THUMB px)."""
    return list(await page.evaluate("""(thumb) => {
        const out = [];
        for (const e of document.querySelectorAll('a, button, summary')) {
            const r = e.getBoundingClientRect();
            if (r.width && r.height < thumb - 0.5) {
                out.push(`${e.tagName} ${Math.round(r.height)} px ` +
                         (e.textContent || '').slice(0, 30));
            }
        }
        return out;
    }""", THUMB))


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_nothing_is_wider_than_a_phone(tmp_path: Path, api: FakeBotAPI, chromium: Any,
                                             lang: str) -> None:
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        for width in PHONES:
            for user, query, view in ((ADMIN, f"?group={GROUP}", "group-admin"),
                                      (LONG_NAMED, f"?group={GROUP}", "group-member"),
                                      (ADMIN, "", "learner")):
                page = await opened(chromium, running, user, lang, width, query)
                assert await page.get_attribute("body", "data-state") == "ready"
                if view == "group-admin":  # the member table shows the names in full
                    names = await page.locator("table td").all_text_contents()
                    assert UNBROKEN in names and LONG in names
                await shoot(page, f"dashboard-layout-{view}-{lang}-{width}")
                assert await wider_than_screen(page) == [], view
                await page.context.close()


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_every_link_and_button_is_a_thumb_high(tmp_path: Path, api: FakeBotAPI,
                                                     chromium: Any, lang: str) -> None:
    """The group page (back link, folds, downloads), the learner's (links to their groups)
    and a group one is not in (back to one's own page); signed out, nothing to tap."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        for user, query in ((ADMIN, f"?group={GROUP}"), (ADMIN, ""), (None, ""),
                            (LONG_NAMED, f"?group={EMPTY}")):
            page = await opened(chromium, running, user, lang, 390, query)
            assert await page.locator("a, button, summary").count() >= (user is not None)
            assert await small_targets(page) == [], (user, query)
            await page.context.close()


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_an_empty_group_offers_its_admin_nothing_to_download(
        tmp_path: Path, api: FakeBotAPI, chromium: Any, lang: str) -> None:
    """No answers yet: what to do (send /quiz there), not a table of headings over nothing
    and buttons that download empty files."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        cat = running.app.catalogue
        page = await opened(chromium, running, ADMIN, lang, 390, f"?group={EMPTY}")
        assert await page.get_attribute("body", "data-state") == "ready"
        hints = [strip_isolates(h) for h in await page.locator("#view p.hint").all_text_contents()]
        assert strip_isolates(page_strings(cat)[lang]["dashboard.no_answers"]) in hints
        assert await page.locator("#view table").count() == 0
        assert await page.locator("#view button").count() == 0
        assert await page.locator("#items").count() == 0
        await shoot(page, f"dashboard-layout-group-empty-{lang}-390")
        await page.context.close()


async def test_a_groups_page_leads_with_how_the_group_is_doing(
        tmp_path: Path, api: FakeBotAPI, chromium: Any) -> None:
    """An organiser's first screen: the members' progress, then what the group gets wrong
    with the weakest questions before the charts of every question; the rounds after."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, "en")
        page = await opened(chromium, running, ADMIN, "en", 390, f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "ready"
        order = await page.evaluate("[...document.querySelectorAll('#view > section')]"
                                    ".map(s => s.id)")
        assert order[:3] == ["members", "wrong", "rounds"], order
        members = await page.locator("#members").bounding_box()
        assert members is not None and members["y"] + members["height"] <= PHONES[390]
        weakest = await page.locator("#wrong .miss").first.bounding_box()
        first_chart = await page.locator("#wrong svg.chart").first.bounding_box()
        assert weakest is not None and first_chart is not None
        assert weakest["y"] < first_chart["y"]
        await page.context.close()


async def test_text_keeps_its_contrast_in_light_and_dark(tmp_path: Path, api: FakeBotAPI,
                                                         chromium: Any) -> None:
    """Hints, right answers (green) and wrong ones (red) on the page and on its cards, in the
    light default, the system's dark, and Telegram's night theme (its own hint and button
    colours are Telegram's to choose); the error box's white text too."""
    ours = ".hint, .good, .bad, .good *, .bad *, tr.key td, #error, #error *"
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, "en")
        for scheme, theme, selector in (("light", None, ours), ("dark", None, ours),
                                        ("dark", NIGHT, ".good, .bad, tr.key td")):
            for user, query in ((ADMIN, ""), (ADMIN, f"?group={GROUP}"),
                                (LONG_NAMED, f"?group={EMPTY}")):
                page = await opened(chromium, running, user, "en", 390, query, scheme=scheme,
                                    theme=theme)
                await page.evaluate("document.querySelectorAll('details')"
                                    ".forEach(d => { d.open = true; })")
                assert await page.locator(".bad").count() >= 1 or query.endswith(EMPTY)
                assert await low_contrast(page, selector) == {}, (scheme, theme, query)
                await page.context.close()


async def test_urdu_names_on_an_english_page_fit_their_lines(tmp_path: Path, api: FakeBotAPI,
                                                            chromium: Any) -> None:
    """A group titled in Urdu on an English page: its heading is set in Naskh, whose letters
    fit an English line height; Nastaliq (the Urdu page's face, with lines 2.4 high to match)
    drew the second line of a wrapped title over the first and over the link below."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, "en")
        assert running.app.chats is not None
        await running.app.chats.note("telegram", EMPTY, "گروپ جس میں ابھی کوئی نہیں")
        page = await opened(chromium, running, ADMIN, "en", 360, f"?group={EMPTY}")
        assert await page.get_attribute("body", "data-state") == "ready"
        fonts = await arabic_fonts_used(page, "#title")
        assert fonts.get("Noto Naskh Arabic", 0) > 0 and "Noto Nastaliq Urdu" not in fonts, fonts
        await shoot(page, "dashboard-layout-urdu-title-en-360")
        await page.context.close()


async def a_short_round(running: DashboardBot) -> None:
    """A two-question round in GROUP, hosted and answered by the organiser."""
    from bot.store.commands import rounds_sql
    from bot.store.round_rows import NewPress, NewRound

    store, now = running.app.store, running.app.engine.clock()
    new = NewRound("telegram", GROUP, GROUP, str(ADMIN), "Grace", "parallelism", "en",
                   ("q1", "q2"), ((0, 1, 2, 3), (0, 1, 2, 3)), 30, 0.0)
    rnd = await store.write(rounds_sql.create_round, new, now - 600)
    assert rnd is not None
    for qindex in (0, 1):
        at = now - 600 + 100 * qindex
        await store.write(rounds_sql.open_due_questions, "telegram", at)
        await store.write(rounds_sql.press_round,
                          NewPress(rnd.id, qindex, str(ADMIN), "Grace", 0, True, at + 1))
        await store.write(rounds_sql.reveal_due_questions, "telegram", at + 31)


async def test_a_rounds_time_reads_as_one_piece_in_urdu(tmp_path: Path, api: FakeBotAPI,
                                                        chromium: Any) -> None:
    """A round's time in a right-to-left line is one piece, in its own direction: the page
    writes it in Urdu ('3 دسمبر، 2026، 13:35 UTC', the reader's zone), so it reads right to
    left from its day and month, the year left of the month; forced left to right, as the
    bare '2026-12-01 13:35 UTC' once needed, it read from its zone ('UTC 13:35 ،2026')."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, "ur")
        await a_short_round(running)
        page = await opened(chromium, running, ADMIN, "ur", 390, f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "ready"
        [line] = await page.locator("#rounds li").all_text_contents()
        started = line.split(" · ")[0]
        assert started.startswith("\u2068") and started.endswith("\u2069"), repr(line)
        order = await page.evaluate("""() => {
            const t = document.querySelector('#rounds li').firstChild, s = t.textContent;
            const at = i => { const r = document.createRange(); r.setStart(t, i);
                              r.setEnd(t, i + 1); return r.getBoundingClientRect().left; };
            return [at(s.search(/[0-9]{4}/)), at(s.search(/[\u0600-\u06ff]/))];
        }""")
        assert order[0] < order[1], order  # the year left of the month: right to left
        await shoot(page, "dashboard-layout-rounds-ur-390")
        await page.context.close()


async def test_a_link_to_a_group_keeps_its_titles_direction(tmp_path: Path, api: FakeBotAPI,
                                                            chromium: Any) -> None:
    """On an Urdu page the link to a group titled 'مطالعہ گروپ!' ends with its '!' (at
    the left); the page's template set the title left to right, '!' first."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, "ur")
        assert running.app.chats is not None
        await running.app.chats.note("telegram", GROUP, "مطالعہ گروپ!")
        page = await opened(chromium, running, ADMIN, "ur", 390)
        assert await page.get_attribute("body", "data-state") == "ready"
        where = await page.evaluate("""() => {
            const a = [...document.querySelectorAll('#view p > a')]
                .find(a => a.textContent.includes('!'));
            const t = a.firstChild, s = t.textContent;
            const at = i => { const r = document.createRange(); r.setStart(t, i);
                              r.setEnd(t, i + 1); return r.getBoundingClientRect().left; };
            return [at(s.indexOf('!')), at(s.indexOf('م'))];
        }""")
        assert where[0] < where[1], where  # "!" after the title: left of its first letter
        await page.context.close()


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_an_organiser_reads_who_may_need_help_on_the_first_screen(
        tmp_path: Path, api: FakeBotAPI, chromium: Any, lang: str) -> None:
    """The member table comes after every chart; the first screen names the lowest scores
    and a link there jumps to the table, keeping the sign-in in the URL (a reload after it
    still signs in)."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        page = await views.opened(chromium, running, ADMIN, lang, 360, f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "ready"
        line = page.locator("#members .needs-help")
        box = await line.bounding_box()
        assert box is not None and box["y"] + box["height"] <= PHONES[360]
        said = strip_isolates(await line.text_content() or "")
        named = said.split(":", 1)[1].strip()
        assert named.startswith(UNBROKEN[:20]) and "6/8" in named  # the weakest first
        assert named.index("Grace") < named.index(LONG[:20])  # 7/8 each: Grace played first
        url = page.url
        await page.locator("#members a").click()
        table = await page.locator("#member-table").bounding_box()
        assert table is not None and -1 <= table["y"] < PHONES[360] / 2  # scrolled to it
        assert page.url == url
        await page.reload()
        await page.wait_for_selector("body[data-state=ready]", timeout=15_000)
        await page.context.close()


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_a_group_of_many_shows_a_page_and_how_to_see_more(
        tmp_path: Path, api: FakeBotAPI, chromium: Any, lang: str) -> None:
    """A group of 61 rows on a phone (390 px): the first 50, "Showing 50 of 61" and a
    "Show 11 more" button that adds the rest; the search box, the order and the "Last
    played" column fit the screen beside the longest names."""
    async with dashboard_bot(tmp_path, api) as running:
        await seeded(running, lang)
        engine, quizzes = running.app.engine, dict(running.app.engine.library.quizzes)
        for n in range(57):
            name = f"Student {n}" if lang == "en" else f"طالب علم {n}"
            await play(engine, quizzes, Actor("telegram", str(3000 + n), GROUP, name))
        cat = running.app.catalogue
        page = await opened(chromium, running, ADMIN, lang, 390, f"?group={GROUP}")
        assert await page.get_attribute("body", "data-state") == "ready"
        assert await page.locator("#member-table tbody tr").count() == 50
        showing = page.locator("#member-table .showing")
        assert strip_isolates(await showing.text_content() or "") == strip_isolates(cat.t(
            lang, "dashboard.showing", shown="50", total="61"))
        more = page.locator("#member-table button.more")
        assert strip_isolates(await more.text_content() or "") == strip_isolates(
            cat.t(lang, "dashboard.show_more", count=11))
        assert await wider_than_screen(page) == []
        assert await small_targets(page) == []
        await page.locator("#member-table h2").evaluate("h => h.scrollIntoView()")
        await shoot(page, f"dashboard-member-table-{lang}-390", full_page=False)
        await more.click()
        await page.wait_for_selector('#member-table[data-rows="61"]', timeout=10_000)
        assert await more.is_hidden()
        assert strip_isolates(await showing.text_content() or "") == strip_isolates(cat.t(
            lang, "dashboard.showing", shown="61", total="61"))
        names = await page.locator("#member-table td.name").all_text_contents()
        assert len(names) == 61 and len(set(names)) == 60  # one member played two quizzes
        assert UNBROKEN in names and LONG in names  # in full
        await shoot(page, f"dashboard-layout-member-table-{lang}-390")
        await page.context.close()
