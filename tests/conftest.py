"""Shared fixtures: the shipped quizzes, a real SQLite store in a temp dir, an engine."""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.domain.quiz import Quiz, default_content_dir, load_quizzes
from bot.features.engine import Engine
from bot.present.i18n import Catalogue
from bot.store.sqlite import SQLiteStore
from tests.backends import backend_store, open_store, store_url  # noqa: F401 - fixtures
from tests.pg_fixtures import postgres_server, postgres_url  # noqa: F401 - fixtures

FIXTURES = Path(__file__).parent / "fixtures"
TESTS = Path(__file__).parent

# Tiers (markers registered in pyproject.toml), given here from what a test uses, so that a new
# test lands in the right tier without anyone remembering a decorator:
# - postgres: needs a PostgreSQL server (the postgres fixtures, or a store parametrized on it);
# - process: starts quizbot or another program as a process (the folders and files below);
# - browser: drives Chromium (a module named *browser*).
# `slow` is set by hand on single tests that take seconds in-process.
PROCESS_DIRS = ("e2e", "scale", "deploy")
PROCESS_WORDS = ("process", "startup", "lifecycle", "workers")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        rel = item.path.relative_to(TESTS).parts
        params = getattr(getattr(item, "callspec", None), "params", {})
        fixtures = getattr(item, "fixturenames", ())
        if "postgres_server" in fixtures or "postgres" in params.values():
            item.add_marker(pytest.mark.postgres)
        if rel[0] in PROCESS_DIRS or any(w in rel[-1] for w in PROCESS_WORDS):
            item.add_marker(pytest.mark.process)
        if "browser" in rel[-1]:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """`quizbot` CLI calls configure the root logger; undo that after each test."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture(scope="session")
def quizzes() -> dict[str, Quiz]:
    return load_quizzes([default_content_dir()])


@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    return Catalogue.load()


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    s = await SQLiteStore.open(tmp_path / "quiz.db")
    yield s
    await s.close()


@pytest.fixture
def engine(store: SQLiteStore, quizzes: dict[str, Quiz]) -> Engine:
    return Engine(store, quizzes, rng=random.Random(7))
