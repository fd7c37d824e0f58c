"""The `Store` on PostgreSQL through asyncpg: a connection pool, one transaction per write.

Commands (`bot.store.commands`, shared with SQLite) run with `await conn.fetch` inside one
`conn.transaction()` at READ COMMITTED. That is enough because each rule is a guarded
statement, and where PostgreSQL must order writers that SQLite's single writer orders by
itself, the command takes row locks in one order (see `commands.sessions_sql` and
`commands.rounds_sql`), so writers cannot deadlock on each other; a deadlock or serialization
failure anyway (say, a manual UPDATE) is retried, the whole command again (a review's card
update is pure, so it may run twice).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import asyncpg

from bot.domain.errors import StoreRefused, StoreUnreachable
from bot.domain.secret import Secret
from bot.store.command import Command, Rows, Stmt, postgres_sql, run_async
from bot.store.migrate import migrate_postgres
from bot.store.urls import redact, remedy, scrubbed

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")
RETRIES = 3
CLOSE_TIMEOUT = 10.0

_RETRYABLE = (asyncpg.exceptions.DeadlockDetectedError,
              asyncpg.exceptions.SerializationError)
# The server is not there (down, restarting, the network cut): no command's fault, and it
# passes; asyncpg's pool opens new connections once the server answers again.
_UNREACHABLE = (OSError, asyncpg.exceptions.PostgresConnectionError,
                asyncpg.exceptions.AdminShutdownError, asyncpg.exceptions.CrashShutdownError,
                asyncpg.exceptions.CannotConnectNowError)


class PostgresStore:
    """Store on one PostgreSQL database, shared by any number of processes."""

    def __init__(self, url: str, pool: Any) -> None:
        self.url = url  # redacted: safe to show
        self._pool = pool
        self.commits = 0  # write transactions committed by this process
        self.on_commit: Callable[[float], None] | None = None  # metrics: seconds per write
        self._down = False  # the server stopped answering (logged once until it is back)

    def __repr__(self) -> str:
        return f"PostgresStore({self.url!r})"

    @classmethod
    async def open(cls, url: str, *, password: Secret | None = None, pool_size: int = 10,
                   setting: str = "storage.url") -> PostgresStore:
        """Connect, refuse a database that is not ours (untouched), migrate, pool.

        `url` should come without a password (pass it as `password`); one left in the URL
        still works, and is redacted from every message.
        """
        shown = redact(url)
        secret = password.reveal() if password else None
        try:  # any failure of the server's is one line naming the database
            conn = await asyncpg.connect(url, password=secret or None)
            try:
                await migrate_postgres(functools.partial(_fetch, conn), conn, shown, setting)
            finally:
                await conn.close()
            pool = await create_pool(url, password=secret, size=pool_size)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise StoreRefused(f"Cannot use the database {shown}: "
                               f"{scrubbed(exc, url, secret)}{remedy(exc)}") from None
        log.info("storage: %s (pool of %d)", shown, pool_size)
        return cls(shown, pool)

    async def read(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run a read-only command on a pooled connection (autocommit: each statement sees
        what is committed)."""
        try:
            async with self._pool.acquire() as conn:
                result = await run_async(fn(*args, **kwargs), functools.partial(_fetch, conn))
        except _UNREACHABLE as exc:
            raise self._unreachable(exc) from None
        self._reached()
        return result

    async def write(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs
                    ) -> T:
        """Run a command in one transaction; run it again, whole, after a deadlock."""
        for attempt in range(RETRIES):
            try:
                started = time.perf_counter()
                async with self._pool.acquire() as conn, conn.transaction():
                    result = await run_async(fn(*args, **kwargs),
                                             functools.partial(_fetch, conn))
                self.commits += 1
                if self.on_commit is not None:
                    self.on_commit(time.perf_counter() - started)
                self._reached()
                return result
            except _UNREACHABLE as exc:
                raise self._unreachable(exc) from None
            except _RETRYABLE as exc:
                if attempt == RETRIES - 1:
                    raise
                log.info("retrying a write after %s", type(exc).__name__)
                await asyncio.sleep(0.01 * (attempt + 1))
        raise AssertionError("unreachable")

    def _unreachable(self, exc: BaseException) -> StoreUnreachable:
        """The error a learner's request gets while the server does not answer; the log
        says so once per outage, not once per request."""
        if not self._down:
            self._down = True
            log.warning("storage: PostgreSQL at %s does not answer (%s: %s); requests are "
                        "refused with 'try again in a minute' until it does", self.url,
                        type(exc).__name__, exc)
        return StoreUnreachable(type(exc).__name__)

    def _reached(self) -> None:
        if self._down:
            self._down = False
            log.warning("storage: PostgreSQL at %s answers again", self.url)

    async def close(self) -> None:
        """Wait for writes in flight (bounded), then close every connection."""
        try:
            await asyncio.wait_for(self._pool.close(), CLOSE_TIMEOUT)
        except TimeoutError:
            log.warning("storage: connections still busy after %.0f s; terminating",
                        CLOSE_TIMEOUT)
            self._pool.terminate()


async def create_pool(url: str, *, password: str | None, size: int) -> Any:
    """The store's connection pool (the scale benchmark's baseline uses the same)."""
    return await asyncpg.create_pool(url, password=password or None, min_size=min(2, size),
                                     max_size=size, reset=_keep_session)


async def _keep_session(conn: Any) -> None:
    """Nothing to reset on release: quizbot changes no session state (no SET, LISTEN or
    session-level advisory lock), and asyncpg itself still rolls back a transaction left
    open. Skipping the default reset query saves a round trip on every pooled call."""


async def _fetch(conn: Any, stmt: Stmt) -> Rows:
    if stmt.many:
        await conn.executemany(postgres_sql(stmt.sql), stmt.params)
        return []
    return list(await conn.fetch(postgres_sql(stmt.sql), *stmt.params))
