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

