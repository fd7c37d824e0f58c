"""Store commands, each written once: a generator that yields statements and gets rows back.

A command is a plain generator function: it yields `Stmt`s (SQL with `?` placeholders, and
its parameters), receives each statement's rows (`RETURNING` rows included), and returns
its result. It decides everything from what it reads inside its transaction (guarded
updates, `ON CONFLICT`), so an executor may run it again after a rollback.

Two executors drive commands: SQLite's synchronously inside the group-commit batch on the
writer's thread (`run_sync`), PostgreSQL's with `await conn.fetch` inside one transaction
(`run_async`, also every read). The dialects differ only here:

- placeholders: `?` (or `?N`) become `$n` on PostgreSQL (`postgres_sql`, cached);
- lock clauses: `FOR UPDATE [SKIP LOCKED]` and `FOR NO KEY UPDATE` are dropped on SQLite
  (`sqlite_sql`), whose `BEGIN IMMEDIATE` already serialises writers; a statement that is
  only a row lock (`lock(...)`) is not sent to SQLite at all.

Everything else is SQL both dialects run alike: flags are INTEGER 0/1 and lists are JSON
text on both (schema version 8), and a parameter whose type PostgreSQL cannot infer is
written `CAST(? AS ...)`.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Awaitable, Callable, Generator, Sequence
from typing import Any, NamedTuple, TypeVar

T = TypeVar("T")
Rows = list[Any]  # sqlite3.Row or asyncpg.Record: both index by column name
_LOCK = re.compile(r"\s+FOR\s+(?:NO\s+KEY\s+)?UPDATE(?:\s+SKIP\s+LOCKED)?")
_PLACEHOLDER = re.compile(r"\?(\d*)")


class Stmt(NamedTuple):
    """One statement of a command (a tuple: the answer path builds several per tap)."""

    sql: str
    params: Sequence[Any] = ()
    many: bool = False  # `params` is a list of parameter tuples (executemany); no rows back
    lock_only: bool = False  # a row lock PostgreSQL needs and SQLite's write lock makes moot


Command = Generator[Stmt, Rows, T]
CommandFn = Callable[..., Command[T]]


def q(sql: str, *params: Any) -> Stmt:
    """A statement whose rows the command gets back."""
    return Stmt(sql, params)


def many(sql: str, rows: Sequence[Sequence[Any]]) -> Stmt:
    """One statement run once per parameter tuple."""
    return Stmt(sql, rows, True)


def lock(sql: str, *params: Any) -> Stmt:
    """A `SELECT ... FOR [NO KEY] UPDATE` that orders PostgreSQL writers (SQLite: skipped)."""
    return Stmt(sql, params, False, True)


@functools.lru_cache(maxsize=2048)
def sqlite_sql(sql: str) -> str:
    """The statement for SQLite: no row-lock clauses."""
    return _LOCK.sub("", sql)


@functools.lru_cache(maxsize=2048)
def postgres_sql(sql: str) -> str:
    """The statement for PostgreSQL: `?` -> `$1, $2, ...` in order, `?N` -> `$N`."""
    counter = iter(range(1, 1 << 16))
    return _PLACEHOLDER.sub(lambda m: f"${m.group(1) or next(counter)}", sql)


def run_sync(db: sqlite3.Connection, command: Command[T]) -> T:
    """Drive a command on a sqlite3 connection (the group commit's writer thread)."""
    try:
        sql, params, several, lock_only = next(command)
        while True:
            rows: Rows = []
            if several:
                db.executemany(sqlite_sql(sql), params)
            elif not lock_only:
                rows = db.execute(sqlite_sql(sql), params).fetchall()
            sql, params, several, lock_only = command.send(rows)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def run_async(command: Command[T], fetch: Callable[[Stmt], Awaitable[Rows]]) -> T:
    """Drive a command with `fetch` running each statement (PostgreSQL, SQLite reads)."""
    try:
        stmt = next(command)
        while True:
            stmt = command.send(await fetch(stmt))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def one(rows: Rows) -> Any:
    """The first row, or None."""
    return rows[0] if rows else None


__all__ = ["Command", "CommandFn", "Rows", "Stmt", "lock", "many", "one", "postgres_sql", "q",
           "run_async", "run_sync", "sqlite_sql"]
