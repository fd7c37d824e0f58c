"""The group page on a phone (360 px) after a round of a teacher's own quiz (a photosynthesis
sheet, in English only), read by its organiser in English and in Urdu.

With `pytest --screenshots`, each view is kept in tests/artifacts/
(dashboard-foreign-<view>-<lang>-360.png).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.domain.results import Actor
from bot.features.dashboard.membership import Role
from bot.store.commands import rounds_sql
from bot.store.round_rows import NewPress, NewRound
from tests.adapters.telegram.browser import (
    NEEDS_CHROMIUM,
    ON_SESSION_LOOP,
    session_loop_api,
    shoot,
)
from tests.adapters.telegram.dashboard_bot import DashboardBot, dashboard_bot
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.test_dashboard_browser_organiser import CLUB, TESS, opened

pytestmark = [NEEDS_CHROMIUM, ON_SESSION_LOOP]
api = session_loop_api()

SHEET = (b"question,option1,option2,option3,correct\n"
         b"Where do the light reactions of photosynthesis happen?,Thylakoid membranes,"
         b"Stroma,Mitochondrial matrix,1\n"
         b"Which gas is released?,Oxygen,Carbon dioxide,Nitrogen,1\n"
         b"What absorbs the light?,Chlorophyll,Keratin,Insulin,1\n"
         b"What is made?,Glucose,Protein,Fat,1\n")
PLAYERS = (("11", "Ada"), ("12", "Bilal Ahmed Khan"), ("13", "Zara"))


async def after_a_round(running: DashboardBot, lang: str) -> None:
    """Tess (admin) installed the sheet, made it Biology 9B's quiz and ran a round of it;
    three members played, each missing some questions."""
    app = running.app
    tess = Actor("telegram", str(TESS), CLUB, "Tess")
    await app.engine.set_language(tess, lang)
    await app.engine.install(Actor("telegram", str(TESS), None, "Tess"), SHEET,
                             "photosynthesis.csv")
    assert app.chats is not None
    await app.chats.note("telegram", CLUB, "Biology 9B")
    await app.engine.set_group(tess, admin=True, quiz="photosynthesis")
    ids = tuple(q.id for q in app.engine.library.quiz("photosynthesis").questions)
    store, now = app.store, app.engine.clock()
    rnd = await store.write(rounds_sql.create_round, NewRound(
        "telegram", CLUB, CLUB, str(TESS), "Tess", "photosynthesis", lang, ids,
        tuple((0, 1, 2) for _ in ids), 30, 0.0), now - 900)
    assert rnd is not None
    for number in range(len(ids)):
        at = now - 900 + 100 * number
        await store.write(rounds_sql.open_due_questions, "telegram", at)
        for user, name in PLAYERS:
            right = (int(user) + number) % 3 != 0
            await store.write(rounds_sql.press_round, NewPress(
                rnd.id, number, user, name, 0 if right else 1, right, at + 1))
        await store.write(rounds_sql.reveal_due_questions, "telegram", at + 31)

    async def member(group: str, user: str) -> Role:
        return Role(True, admin=user == str(TESS))

    app.memberships.provide("telegram", member)


@pytest.mark.parametrize("lang", ["en", "ur"])
async def test_an_english_only_question_ends_with_its_own_question_mark(
        tmp_path: Path, api: FakeBotAPI, chromium: Any, lang: str) -> None:
    """On the Urdu page the sheet's questions read '?Which gas is released' and
    '...happen in a plant ?cell': each word run was isolated, its question mark left
    outside to take the page's right-to-left direction. A question in English only is one
    left-to-right piece, its mark at its end."""
    async with dashboard_bot(tmp_path, api, admins=[TESS]) as running:
        await after_a_round(running, lang)
        page = await opened(chromium, running, TESS, lang, f"?group={CLUB}")
        count = await page.locator("#wrong .miss p.q").count()
        assert count == 4
        for index in range(count):
            # each drawn character of the question: (character, x, y)
            glyphs = await page.evaluate("""(i) => {
                const p = document.querySelectorAll('#wrong .miss p.q')[i];
                const walk = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
                const range = document.createRange(), out = [];
                for (let t = walk.nextNode(); t; t = walk.nextNode()) {
                    for (let k = 0; k < t.data.length; k++) {
                        if (!t.data[k].trim() || '\u2066\u2068\u2069'.includes(t.data[k])) {
                            continue;
                        }
                        range.setStart(t, k); range.setEnd(t, k + 1);
                        const r = range.getBoundingClientRect();
                        out.push([t.data[k], Math.round(r.x), Math.round(r.y)]);
                    }
                }
                return out; }""", index)
            last_line = max(y for _, _, y in glyphs)
            on_it = [(c, x) for c, x, y in glyphs if y == last_line]
            # the mark ends the sentence: after its last word, the rightmost on its line
            assert on_it[-1][0] == "?" and on_it[-1][1] == max(x for _, x in on_it), on_it
        await shoot(page, f"dashboard-foreign-group-{lang}-360")
        await page.context.close()
