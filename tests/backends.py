"""Fixtures that run a test on each store backend: `store_url` is sqlite or postgres."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bot.store import open_url
from bot.store.protocol import Store

Opener = Callable[[], Awaitable[Store]]
T = TypeVar("T")
BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file the store created and migrated, once per test process: a test's store
    starts as a copy of it (byte for byte what a fresh open leaves behind), not by running
    every migration again. Creating and migrating a file is tested on its own
    (tests/bot/store/test_migrate.py, test_migrations.py, test_store.py)."""
    path = tmp_path_factory.mktemp("template") / "quiz.db"

    async def create() -> None:
        await (await open_url(f"sqlite:///{path}")).close()
    run_apart(create)
    leftovers = [p.name for p in path.parent.iterdir() if p != path]
    assert not leftovers, f"closing the template store left {leftovers}"
    return path


def run_apart(job: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to its end on its own loop and thread (a session fixture may be set up
    while a test's loop runs)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, job()).result()


def migrated_sqlite(template: Path, folder: Path, name: str = "quiz.db") -> Path:
    """A copy of the migrated template at folder/name."""
    return Path(shutil.copyfile(template, folder / name))


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL of a database of each backend, migrated and holding nothing (as a fresh open
    leaves it)."""
    if request.param == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        return f"sqlite:///{migrated_sqlite(template, tmp_path)}"
    return str(request.getfixturevalue("migrated_postgres_url"))


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
