"""Headless Chromium (Debian's, driven by Playwright) for the dashboard's browser tests.

One browser per test process (the `chromium` fixture in conftest.py), shared by its browser
tests; each test opens contexts of its own (cookies, storage, viewport), so no test sees
another's pages. Playwright's connection belongs to the event loop that started it, so these
tests, and the async fixtures they use, run on the session's loop: `ON_SESSION_LOOP` and
`session_loop_api`. Skipped, saying why, only when no Chromium binary is installed
(`.ci/run` installs it).
"""

from __future__ import annotations

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
