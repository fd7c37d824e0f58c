"""Headless Chromium (Debian's, driven by Playwright) for the dashboard's browser tests.

One browser per test process (the `chromium` fixture in conftest.py), shared by its browser
tests; each test opens contexts of its own (cookies, storage, viewport), so no test sees
another's pages. Playwright's connection belongs to the event loop that started it, so these
tests, and the async fixtures they use, run on the session's loop: `ON_SESSION_LOOP` and
`session_loop_api`. Skipped, saying why, only when no Chromium binary is installed
(`.ci/run` installs it).

`pytest --screenshots` keeps a full-page picture of every view the tests open in
tests/artifacts/ (`shoot`), to look at the pages at a phone's width; without it the same
checks run and no picture is encoded (a fifth of these tests' time).
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.support import TOKEN

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"

NEEDS_CHROMIUM = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason=f"no Chromium at {CHROMIUM}: install Debian's chromium (apt-get install -y "
           "chromium; .ci/run does) to run the browser tests")
ON_SESSION_LOOP = pytest.mark.asyncio(loop_scope="session")
SCREENSHOTS = {"keep": False}  # set from `pytest --screenshots` (tests/conftest.py)


async def shoot(page: Any, name: str, *, full_page: bool = True) -> None:
    """With `pytest --screenshots`: the page as tests/artifacts/<name>.png (written aside,
    then moved into place, so a reader never sees half a picture)."""
    if not SCREENSHOTS["keep"]:
        return
    path = ARTIFACTS / f"{name}.png"
    ARTIFACTS.mkdir(exist_ok=True)
    tmp = path.with_suffix(".tmp.png")
    await page.screenshot(path=str(tmp), full_page=full_page)
    shutil.move(tmp, path)


def session_loop_api() -> Callable[..., Any]:
    """The fake Bot API fixture, `api`, on the session's loop where the browser tests run
    (a module's `api = session_loop_api()` overrides the function-loop one of conftest.py)."""
    @pytest_asyncio.fixture(loop_scope="session")
    async def api() -> AsyncIterator[FakeBotAPI]:
        async with FakeBotAPI(TOKEN) as fake:
            yield fake
    return api


async def command_glyphs(page: Any, selector: str, command: str) -> list[tuple[float, float]]:
    """Where each character of `command` is drawn in the first `selector` (x, y)."""
    return [tuple(p) for p in await page.evaluate("""([selector, command]) => {
        const node = document.querySelector(selector), range = document.createRange();
        const walk = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
        const texts = []; let all = "";
        for (let t = walk.nextNode(); t; t = walk.nextNode()) {
            texts.push([t, all.length]);
            all += t.data;
        }
        const start = all.indexOf(command), out = [];
        for (let i = start; i < start + command.length; i++) {
            const [t, from] = texts.filter(([t, f]) => f <= i).pop();
            range.setStart(t, i - from); range.setEnd(t, i - from + 1);
            const box = range.getBoundingClientRect();
            out.push([Math.round(box.x), Math.round(box.y)]);
        }
        return out; }""", [selector, command])]
