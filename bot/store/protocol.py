"""The store port: two doors, `read` and `write`, through which every command runs.

The command modules (`bot.store.commands.*_sql`) are the store's interface: each operation
is written once there, as a generator of statements for both dialects, and run by
`await store.read(sessions_sql.get_session, session_id)` (one read, no writes) or
`await store.write(sessions_sql.record_answer, answer)` (one transaction). ParamSpec carries
each command's signature through `read` and `write`, so mypy checks the arguments as if the
command were a method. The rules that decide what a tap does live in SQL inside the commands,
so that any number of processes on one database agree: the database is the only truth.
`SQLiteStore` and `PostgresStore` are the two executors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, Protocol, TypeVar

from bot.store.command import Command

P = ParamSpec("P")
T = TypeVar("T")


class Store(Protocol):
    """Runs store commands; SQLite and PostgreSQL implement it."""

    # Called with the duration in seconds of each committed write transaction (metrics).
    on_commit: Callable[[float], None] | None

    async def read(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run the read-only command `fn(*args, **kwargs)` (what is committed; no writes)."""

    async def write(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs
                    ) -> T:
        """Run `fn(*args, **kwargs)` in one write transaction. The executor may run it again
        after a rollback, so a command decides only from what it reads."""

    async def close(self) -> None:
        """Finish queued writes and close every connection."""


__all__ = ["Store"]
