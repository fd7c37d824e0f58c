"""The composition root: config in, a running engine on an open store out."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Protocol

from bot.app.config import Config
from bot.app.metrics import Metrics
from bot.app.web import Web
from bot.domain.learning import Memory
from bot.domain.observer import Observer
from bot.domain.product_limits import DEFAULT_CLOSE_HOURS, DEFAULT_REVEAL_SECONDS, DEFAULT_SECONDS
from bot.domain.quiz import Quiz, load_quizzes
from bot.domain.quiz.load import Passes
from bot.features.chats import ChatTitles
from bot.features.daily import Dailies
from bot.features.dashboard.auth import Signer, derive_secret
from bot.features.dashboard.membership import Memberships
from bot.features.engine import Engine
from bot.features.groups import Groups
from bot.features.housekeeping import PRUNE_KIND, Housekeeping
from bot.features.installed import POLL_SECONDS, Installed
from bot.features.jobs import Clock, Scheduler
from bot.features.library import Library
from bot.features.reminders import Reminders, Sender
from bot.features.reports import Reports
from bot.features.review import SpacedReview, reminder_kind
from bot.features.rewards import Rewards
from bot.features.round_jobs import RoundJobs
from bot.features.rounds import Rounds
from bot.features.sessions import Sessions
from bot.features.typed_chat import TypedChat
from bot.present.i18n import Catalogue
from bot.present.limits import check_rendered_sizes
from bot.store import open_store
from bot.store.protocol import Store
from bot.store.sqlite import path_from_url
from bot.store.sqlite_lock import hold

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class App:
    """What every adapter is handed: the engine (the one door to every feature: adapters
    call its methods, never a service's), the UI strings, the config."""

    config: Config
    engine: Engine
    catalogue: Catalogue
    store: Store  # for what is no feature: the webhook's inbox, the health check
    # The one job runner (started and stopped with the app): what is due, once across
    # processes. Each adapter serves its rounds' posts through `round_jobs`.
    scheduler: Scheduler
    round_jobs: RoundJobs
    metrics: Metrics = field(default_factory=Metrics)
    # The HTTP servers: add routes while building, `quizbot run` starts them (bot.app.web).
    web: Web = field(default_factory=Web)
    # The dashboard (web.port and web.public_url): adapters tell it who is in which group
    # and sign Discord's links with `signer`.
    memberships: Memberships = field(default_factory=Memberships)
    signer: Signer = field(default_factory=lambda: Signer(b"", time.time))
    # Chat titles the adapters note from updates (pages and reports show names, not ids).
    chats: ChatTitles | None = None


class Adapter(Protocol):
    """A platform front end; `quizbot run` starts and stops each one."""

    name: str

    async def start(self) -> None: ...
    async def stop(self) -> None: ...
    async def wait_stopped(self) -> None:
        """Return if the adapter stops on its own (e.g. a revoked token), so the process
        exits instead of idling with no bot."""
    def connected(self) -> bool:
        """True while the platform connection is up (for /healthz)."""


def build_engine(
    store: Store,
    quizzes: Mapping[str, Quiz],
    *,
    languages: tuple[str, ...] = ("en", "ur"),
    default_lang: str = "en",
    default_quiz: str | None = None,
    shuffle_questions: bool = False,
    admins: Mapping[str, frozenset[str]] | None = None,
    rng: random.Random | None = None,
    reload: Callable[[], Mapping[str, Quiz]] | None = None,
    observer: Observer | None = None,
    clock: Callable[[], float] = time.time,
    memory: Memory | None = None,
    due_titles: Mapping[str, str] | None = None,
    round_seconds: int = DEFAULT_SECONDS,
    reveal_seconds: float = DEFAULT_REVEAL_SECONDS,
    daily_close_hours: float = DEFAULT_CLOSE_HOURS,
    wake: Callable[[], None] = lambda: None,
) -> Engine:
    """Every feature service over `store`, wired once and handed complete to the `Engine`:
    the one place that says which service gets which. `clock` (epoch seconds) is the one
    clock they all stamp with; `wake` tells the scheduler a round job was written."""
    memory = memory or Memory()
    rng = rng or random.Random()
    library = Library(store, quizzes, languages=languages, default_lang=default_lang,
                      default_quiz=default_quiz, admins=admins, reload=reload,
                      due_titles=due_titles, clock=clock)
    spaced = SpacedReview(library, store, clock=clock, memory=memory, rng=rng)
    solo = Sessions(library, store, spaced, rng=rng, clock=clock,
                    shuffle_questions=shuffle_questions, observer=observer)
    groups = Groups(library, store, clock=clock)
    rounds = Rounds(library, groups, solo, store, memory=memory, clock=clock,
                    default_seconds=round_seconds, reveal_seconds=reveal_seconds, rng=rng,
                    wake=wake)
    return Engine(store=store, clock=clock, memory=memory, library=library, spaced=spaced,
                  solo=solo, groups=groups, rounds=rounds,
                  dailies=Dailies(rounds, close_hours=daily_close_hours),
                  rewards=Rewards(library, groups, store, clock),
                  installed=Installed(library, store, clock=clock),
                  reports=Reports(store, clock, library.language),
                  typed_chat=TypedChat(solo, store))


@asynccontextmanager
async def open_app(config: Config, *, clock: Clock = time.time,
                   passes: Passes | None = None) -> AsyncIterator[App]:
    """Load content, open the store, build the engine and the scheduler on one `clock`;
    close the store on exit.

    While open, the database's in-use lock is held shared (`quizbot restore` refuses then).
    Every web server asked for through `App.web` is stopped on exit. `passes`: the content
    check's passes of earlier starts (`quizbot play`/`list` keep them in the user's cache).
    """
    def load() -> dict[str, Quiz]:  # at start and on /reload: sizes checked for the platforms
        return load_quizzes([config.content_dir], check=check_rendered_sizes, passes=passes)

    quizzes = load()
    catalogue = Catalogue.load(default=config.default_language)
    metrics = Metrics()
    async with AsyncExitStack() as stack:
        store = await open_store(config)
        stack.push_async_callback(store.close)
        # Only once the file is known to be ours: a refused file's folder stays untouched.
        if config.storage_url.startswith("sqlite:"):
            stack.enter_context(hold(path_from_url(config.storage_url), exclusive=False))
        store.on_commit = metrics.observe_commit
        web = Web(config.web.listen, config.web.port)
        stack.push_async_callback(web.close)
        due_titles = {lang: catalogue.t(lang, "due.title") for lang in catalogue.languages}
        scheduler = Scheduler(store, clock=clock)
        scheduler.start()  # runs nothing until handlers are registered (`quizbot run`)
        stack.push_async_callback(scheduler.stop)
        engine = build_engine(
            store, quizzes, languages=catalogue.languages,
            default_lang=config.default_language, default_quiz=config.default_quiz,
            shuffle_questions=config.shuffle_questions, admins=config.admins,
            reload=load, due_titles=due_titles,
            observer=metrics, round_seconds=config.rounds.default_seconds,
            reveal_seconds=config.rounds.reveal_seconds,
            daily_close_hours=config.daily.close_hours, clock=clock, wake=scheduler.wake,
        )
        # Quizzes admins installed: served from the start, then kept in step (one read
        # every 30 s; bot.features.installed)
        await engine.installed.refresh()
        if (missing := engine.library.missing_default()) is not None:  # installed ones count
            log.warning("quiz.default: no quiz %r is shipped or installed; newcomers start with %r",
                        missing, engine.library.default_id)
        stack.callback(engine.installed.close)
        scheduler.every("installed quizzes", POLL_SECONDS, engine.installed.refresh)
        stack.push_async_callback(scheduler.stop)  # stopped before the installed ones close
        memberships = Memberships(engine.clock)
        signer = Signer(derive_secret(config.web_secret.reveal(), config.discord_token.reveal()),
                        engine.clock)
        if web.main is not None:  # the dashboard's modules load only when it is served
            from bot.app.dashboard_web import DashboardWeb
            from bot.features.dashboard.group_export import exporter_for
            from bot.features.dashboard.pages import Dashboard, quizzes_of

            dashboard = Dashboard(engine, store, catalogue, memberships,
                                  exporter=exporter_for(store, lambda: quizzes_of(engine)))
            DashboardWeb(dashboard, catalogue, bot_token=config.telegram_token.reveal(),
                         signer=signer, rate_limit=config.web.rate_limit,
                         refused=metrics.rate_limited).mount(web.main.add_route)
        yield App(config, engine, catalogue, store, scheduler,
                  RoundJobs(engine.rounds, scheduler), metrics, web, memberships, signer,
                  ChatTitles(store, engine.clock))


@asynccontextmanager
async def open_installed(config: Config, quizzes: Mapping[str, Quiz]) -> AsyncIterator[Installed]:
    """The quizzes installed in `config`'s database, for the commands that run without a bot
    (`quizbot quizzes`, `export-quiz`): the `Installed` service an engine on that store is
    built with, in step with the database; its pictures and the store closed on exit."""
    store = await open_store(config)
    try:
        installed = build_engine(store, quizzes).installed
        try:
            await installed.refresh()
            yield installed
        finally:
            installed.close()
    finally:
        await store.close()


async def serve_jobs(app: App, senders: Mapping[str, Sender]) -> None:
    """What the app's scheduler runs besides the adapters' round posts (`quizbot run`):
    reminders through `senders` (by platform), housekeeping (its daily job scheduled), the
    questions of the day."""
    engine, scheduler = app.engine, app.scheduler
    reminders = Reminders(engine, senders)
    for platform in senders:
        scheduler.register(reminder_kind(platform), reminders)
    housekeeping = Housekeeping(app.store, clock=engine.clock)
    await housekeeping.schedule()
    scheduler.register(PRUNE_KIND, housekeeping)
    scheduler.register(engine.dailies.kind, engine.dailies)  # each day's question

