"""Pytest fixtures for a real PostgreSQL: one server per test session, a database per test."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator

import pytest

from bot.store import open_url
from tests.backends import run_apart
from tests.pgserver import URL_ENV, create_database, drop_database, server_bin, throwaway_server

NO_SERVER = (f"PostgreSQL tests skipped: {URL_ENV} is not set and no server binary was found "
             "under /usr/lib/postgresql/*/bin or on PATH (apt-get install postgresql)")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A superuser URL: $QUIZBOT_TEST_POSTGRES_URL, or a throwaway server started here."""
    url = os.environ.get(URL_ENV)
    if url:
        yield url
        return
    if server_bin() is None:
        pytest.skip(NO_SERVER)
    with throwaway_server(fsync=False) as started:
        yield started


@pytest.fixture
async def postgres_url(postgres_server: str) -> AsyncIterator[str]:
    """The URL of a new, empty database, dropped after the test."""
    url = await create_database(postgres_server)
    yield url
    await drop_database(postgres_server, url)


@pytest.fixture(scope="session")
def postgres_template(postgres_server: str) -> Iterator[str]:
    """The name of a database the store created and migrated, once per test process (and
    dropped at its end): `migrated_postgres_url` copies it instead of running every migration
    again for each test. Migrating an empty database is tested on its own (postgres_url,
    tests/bot/store/test_migrations.py and test_postgres.py)."""
    async def create() -> str:
        url = await create_database(postgres_server, prefix="template")
        await (await open_url(url, pool_size=1)).close()
        return url
    url = run_apart(create)
    yield url.rsplit("/", 1)[1]
    run_apart(lambda: drop_database(postgres_server, url))


@pytest.fixture
async def migrated_postgres_url(postgres_server: str, postgres_template: str
                                ) -> AsyncIterator[str]:
    """The URL of a new database as the store leaves a fresh one (migrated, holding nothing),
    dropped after the test."""
    url = await create_database(postgres_server, template=postgres_template)
    yield url
    await drop_database(postgres_server, url)
