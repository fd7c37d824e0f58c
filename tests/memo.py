"""Loading the same files twice in one test process gives the same result: remember it.

Each bot a test starts (`open_app`) loads the shipped quizzes, sampling every computed question,
and the UI strings; so do many fixtures. That was most of the CPU of the tests that run the real
python-telegram-bot or discord.py. Here a load is remembered under what it reads: the exact
bytes of every file under the folders it is given (and, for quizzes, the check it ran), so a
test that writes or changes a quiz or a locale file gets a fresh load, and a load that finds a
problem is never remembered (it raises again, as before). Quizzes are frozen dataclasses; each
caller gets its own dict."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from bot.domain.quiz import load as quiz_load
from bot.present.i18n import LOCALES_DIR, Catalogue


def fingerprint(paths: Iterable[Path]) -> tuple[tuple[str, str], ...]:
    """(path, sha256 of its bytes) of every file under `paths`, sorted; a missing path counts."""
    found: list[tuple[str, str]] = []
    for root in paths:
        root = Path(root)
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for path in files:
            try:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                digest = "missing"
            found.append((str(path.resolve()), digest))
    return tuple(found)


def remembering_load_all(load_all: Callable[..., Any]) -> Callable[..., Any]:
    cached: dict[tuple[Any, ...], dict[str, Any]] = {}

    def load(paths: Iterable[Path], *, check: Any = None, passes: Any = None
             ) -> tuple[dict[str, Any], list[str]]:
        paths = list(paths)
        if passes is not None:  # the cache under test: load through it, remember nothing
            return load_all(paths, check=check, passes=passes)  # type: ignore[no-any-return]
        key = (fingerprint(paths), check)
        if key in cached:
            return dict(cached[key]), []
        quizzes, problems = load_all(paths, check=check)
        if not problems:
            cached[key] = dict(quizzes)
        return quizzes, problems
    return load


def remembering_catalogue(load: Callable[..., Catalogue]) -> Callable[..., Catalogue]:
    cached: dict[tuple[Any, ...], Catalogue] = {}

    def remembered(directory: Path = LOCALES_DIR, default: str = "en") -> Catalogue:
        key = (fingerprint([Path(directory)]), default)
        if key not in cached:
            cached[key] = load(directory, default)
        return cached[key]
    return remembered


_PATCH = pytest.MonkeyPatch()


def pytest_configure(config: pytest.Config) -> None:
    """Remember from the start: test modules load the shipped quizzes while they are collected
    (each such load parsed every file again, half a second of CPU in every test process)."""
    _PATCH.setattr(quiz_load, "load_all", remembering_load_all(quiz_load.load_all))
    _PATCH.setattr(Catalogue, "load", staticmethod(remembering_catalogue(Catalogue.load)))


def pytest_unconfigure(config: pytest.Config) -> None:
    _PATCH.undo()
