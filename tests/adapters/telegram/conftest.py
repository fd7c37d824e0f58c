"""Fixtures: a fake Bot API, the adapter running against it, and the quiz's answer key."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from adapters.telegram import TelegramAdapter
from bot.app.compose import open_app
from bot.app.config import load_config
from bot.domain.quiz import Quiz
from tests.adapters.telegram.browser import ARGS, CHROMIUM
from tests.adapters.telegram.fake_bot_api import FakeBotAPI
from tests.adapters.telegram.support import TOKEN, AnswerKey, BotFactory, Running, write_config


@pytest.fixture
def key(quizzes: dict[str, Quiz]) -> AnswerKey:
    return AnswerKey(quizzes["parallelism"])


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    async with FakeBotAPI(TOKEN) as fake:
        yield fake


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium() -> AsyncIterator[Any]:
    """One headless Chromium per test process, shared by its browser tests (browser.py):
    a launch is seconds of CPU, a new context per test keeps the tests apart."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@pytest.fixture
def start_bot(tmp_path: Path, api: FakeBotAPI) -> BotFactory:
    """`async with start_bot(**telegram_settings) as running:` runs the adapter in-process."""
    @asynccontextmanager
    async def run(*, admins: list[int] | None = None, **telegram: Any) -> AsyncIterator[Running]:
        env = {"TELEGRAM_BOT_TOKEN": TOKEN}
        config = load_config(write_config(tmp_path, api, admins=admins, **telegram), env=env)
        async with open_app(config) as app:
            adapter = TelegramAdapter(app)
            await adapter.start()
            try:
                yield Running(app, adapter)
            finally:
                await adapter.stop()
    return run


@pytest.fixture
async def bot(start_bot: BotFactory) -> AsyncIterator[Running]:
    async with start_bot() as running:
        yield running


@pytest.fixture(autouse=True)
def no_errors_logged(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Any ERROR record (an exception that reached a log) fails the test, unless the test
    consumed it with `caplog.clear()`."""
    # INFO, not DEBUG: python-telegram-bot formats every Bot API result at DEBUG (a fifth of
    # these tests' CPU); the tests of DEBUG logging set DEBUG themselves.
    caplog.set_level(logging.INFO)
    yield
    records = caplog.get_records("call") + caplog.get_records("teardown")
    errors = [r for r in records if r.levelno >= logging.ERROR]
    assert not errors, "errors logged: " + "; ".join(
        f"{r.name}: {r.getMessage()} {r.exc_text or ''}" for r in errors)
