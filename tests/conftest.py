"""Shared fixtures: the shipped quizzes, a real SQLite store in a temp dir, an engine."""

from __future__ import annotations

import functools
import inspect
import logging
import random
import re
import shutil
import types
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.app.compose import build_engine
from bot.domain.quiz import Quiz, default_content_dir, load_quizzes
from bot.features.engine import Engine
from bot.present.i18n import Catalogue
from bot.store.sqlite import SQLiteStore

# Fixtures of these modules are everyone's: the store backends and their migrated templates,
# PostgreSQL, and the remembered loads of the shipped files.
pytest_plugins = ["tests.backends", "tests.pg_fixtures", "tests.memo"]

FIXTURES = Path(__file__).parent / "fixtures"
TESTS = Path(__file__).parent

# Tiers (markers registered in pyproject.toml), given here from what a test uses, so that a new
# test lands in the right tier without anyone remembering a decorator:
# - postgres: needs a PostgreSQL server (the postgres fixtures, or a store parametrized on it);
# - process: starts quizbot or another program (its code, or a helper of its module it calls,
#   spawns one), or lives in a folder of such tests;
# - browser: drives Chromium (a module named *browser*);
# - slow: runs the real python-telegram-bot or discord.py against a fake server (a second or
#   so each), or is marked by hand.
# The fast run for day-to-day work: -m "not slow and not process and not browser and not postgres".
PROCESS_DIRS = ("e2e", "scale", "deploy")
SPAWN_NAMES = {"subprocess", "create_subprocess_exec", "Popen"}  # or sys.executable
FAKE_SERVERS = {"api", "fake", "start_bot"}  # the fake Bot API and the fake Discord


@functools.cache
def _names(code: types.CodeType) -> frozenset[str]:
    """Every global and attribute name the code uses, its nested functions' included (read
    from the compiled code: collecting 1,600 tests by their source text took seconds)."""
    nested = (_names(c) for c in code.co_consts if isinstance(c, types.CodeType))
    return frozenset(code.co_names).union(*nested)


def _spawns_itself(code: types.CodeType) -> bool:
    names = _names(code)
    return bool(names & SPAWN_NAMES) or {"sys", "executable"} <= names


@functools.cache
def _spawning_helpers(module: types.ModuleType) -> frozenset[str]:
    """Names of the module's own functions and fixtures whose code spawns a process
    (decorated ones, such as context managers and fixtures, by the function they wrap)."""
    helpers = set()
    for name, obj in vars(module).items():
        function = inspect.unwrap(obj) if callable(obj) else None
        if inspect.isfunction(function) and function.__module__ == module.__name__ \
                and _spawns_itself(function.__code__):
            helpers.add(name)
    return frozenset(helpers)


def _spawns(item: pytest.Item) -> bool:
    """The test's code spawns a process, or it calls or requests a function or fixture of
    its module that does."""
    code = getattr(getattr(item, "function", None), "__code__", None)
    if code is None:
        return False
    helpers = _spawning_helpers(item.module) if item.module is not None else frozenset()
    used = _names(code) | set(getattr(item, "fixturenames", ()))
    return _spawns_itself(code) or bool(used & helpers)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--screenshots", action="store_true",
                     help="keep a picture of every dashboard page the browser tests open, in "
                          "tests/artifacts/ (to look at them at a phone's width)")


def pytest_configure(config: pytest.Config) -> None:
    from tests.adapters.telegram.browser import SCREENSHOTS
    SCREENSHOTS["keep"] = bool(config.getoption("--screenshots"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        rel = item.path.relative_to(TESTS).parts
        params = getattr(getattr(item, "callspec", None), "params", {})
        fixtures = set(getattr(item, "fixturenames", ()))
        if "postgres_server" in fixtures or "postgres" in params.values():
            item.add_marker(pytest.mark.postgres)
        if rel[0] in PROCESS_DIRS or _spawns(item):
            item.add_marker(pytest.mark.process)
        if "browser" in rel[-1]:
            item.add_marker(pytest.mark.browser)
        if fixtures & FAKE_SERVERS:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _no_inherited_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test's output width is what it sets: pytest-xdist's workers export COLUMNS=80, which
    would wrap the terminal's piped (widthless) output in every `quizbot play` test."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(autouse=True)
def data_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user data folder (XDG_DATA_HOME, which platformdirs reads), fresh for each test and
    inherited by the processes it starts: `quizbot play` without --config keeps progress
    there, and no test touches the real home. The learner's database: `user_db()`."""
    home = tmp_path_factory.mktemp("data-home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    # the content check's passes `quizbot play` keeps: shared by this worker's tests
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache-home"))
    return home


def user_db() -> Path:
    """Where `quizbot play` without --config keeps this test's progress."""
    from adapters.cli.datadir import user_db as where

    return where()


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


SAMPLED = "parallelism-numbers"  # the shipped quiz of computed questions


@pytest.fixture(scope="session")
def process_content(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A content folder for `quizbot run` processes whose test is not about content: the
    shipped quizzes but the computed one, which every start samples (about a second of CPU a
    process; tests/content and the in-process bots load it in full). The quiz that named it
    as next names the one after it."""
    shipped = default_content_dir()
    folder = tmp_path_factory.mktemp("process-content") / "content"
    shutil.copytree(shipped, folder, ignore=shutil.ignore_patterns(f"{SAMPLED}.yaml"))
    after = re.search(r"^next: (\S+)$", (shipped / f"{SAMPLED}.yaml").read_text("utf-8"), re.M)
    assert after is not None, f"{SAMPLED}.yaml names no next quiz"
    for path in folder.glob("*.yaml"):
        text = path.read_text("utf-8")
        if f"\nnext: {SAMPLED}\n" in text:
            path.write_text(text.replace(f"\nnext: {SAMPLED}\n", f"\nnext: {after[1]}\n"),
                            "utf-8")
    return folder


@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    return Catalogue.load()


@pytest.fixture
async def store(tmp_path: Path, sqlite_template: Path) -> AsyncIterator[SQLiteStore]:
    """A SQLite store on its own file (a copy of the migrated template: tests/backends.py)."""
    from tests.backends import migrated_sqlite  # a plugin module: pytest imports it first

    s = await SQLiteStore.open(migrated_sqlite(sqlite_template, tmp_path))
    yield s
    await s.close()


@pytest.fixture
def engine(store: SQLiteStore, quizzes: dict[str, Quiz]) -> Engine:
    return build_engine(store, quizzes, rng=random.Random(7))
