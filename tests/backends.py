"""Fixtures that run a test on each store backend: `store_url` is sqlite or postgres."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from bot.store import open_url
from bot.store.protocol import Store

Opener = Callable[[], Awaitable[Store]]
BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL of an empty database of each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'quiz.db'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
async def open_store(store_url: str) -> AsyncIterator[Opener]:
    """Opens stores on the one database (as separate processes would); closes them all."""
    opened: list[Store] = []

    async def opener() -> Store:
        store = await open_url(store_url, pool_size=8)
        opened.append(store)
        return store

    yield opener
    for store in opened:
        await store.close()


@pytest.fixture
async def backend_store(open_store: Opener) -> Store:
    """One store on an empty database, of each backend (modules alias it as `store`)."""
    return await open_store()
