"""The composition root: config in, a running engine on an open store out."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

from bot.config import Config
from bot.engine import Engine
from bot.i18n import Catalogue
from bot.quiz import load_quizzes
from bot.rounds import Rounds
from bot.store.sqlite import SQLiteStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class App:
    """What every adapter is handed: the engine, the UI strings, the config."""

    config: Config
    engine: Engine
    catalogue: Catalogue
    store: SQLiteStore
    rounds: Rounds | None = None  # study-group rounds; each adapter runs its driver


class Adapter(Protocol):
    """A platform front end; `quizbot run` starts and stops each one."""

    name: str

    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    async def wait_stopped(self) -> None:
        """Return if the adapter stops on its own (e.g. a revoked token), so the process
        exits instead of idling with no bot."""


@asynccontextmanager
async def open_app(config: Config) -> AsyncIterator[App]:
    """Load content, open the store, build the engine; close the store on exit."""
    quizzes = load_quizzes([config.content_dir])
    catalogue = Catalogue.load(default=config.default_language)
    store = await SQLiteStore.open(config.storage_url, synchronous=config.storage_synchronous)
    try:
        engine = Engine(
            store, quizzes, languages=catalogue.languages,
            default_lang=config.default_language, default_quiz=config.default_quiz,
            shuffle_questions=config.shuffle_questions, admins=config.admins,
            reload=lambda: load_quizzes([config.content_dir]),
        )
        rounds = Rounds(engine, store, default_seconds=config.rounds.default_seconds,
                        reveal_seconds=config.rounds.reveal_seconds)
        engine.rounds = rounds
        yield App(config, engine, catalogue, store, rounds)
    finally:
        await store.close()
