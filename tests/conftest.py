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
