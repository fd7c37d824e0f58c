"""One connection to either store outside the bot: `quizbot stats|export|check|backup|restore`
and copy-db.

The operations commands must not change what they look at: they never migrate, never
create a database, and on SQLite never add a `-wal` file. So they do not open the `Store`
(which migrates on open) but a `Reader` (`open_reader`): one read-only connection, checked
to be an exact quizbot database first, that runs the store's read commands
(`bot.store.commands`) with the store's own executors (`run_sync` on SQLite, `run_async` on
PostgreSQL). copy-db drives the same `Reader` on each end, and also streams a table from it
(`scan`) and bulk-inserts into it (`insert`), inside `snapshot()` or `transaction()`.

On SQLite the connection comes from `open_checked` (a file exactly quizbot's, or OpsError),
which SQLite's backup and restore (`bot.ops.sqlite_backup`) open their files with too; a read
that finds damaged pages ends in one line (`refusing_damage`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from bot.domain.errors import EmptyDatabase, OpsError
from bot.store.command import Command, Rows, Stmt, postgres_sql, run_async, run_sync
from bot.store.commands.report_sql import summary
from bot.store.migrate import NotOurs, migrations, open_examined, postgres_version
from bot.store.urls import redact, remedy, scheme_of, scrubbed, split_password

P = ParamSpec("P")
T = TypeVar("T")
CHUNK = 5000  # rows a scan hands over at a time (a table may not fit in memory)
Rowset = list[tuple[Any, ...]]


@dataclass(frozen=True)
class Reader:
    """Runs commands, as `Store.read` does, on one connection of either dialect."""

    run: Callable[[Command[Any]], Awaitable[Any]]
    scan: Callable[[str], AsyncIterator[list[Any]]]  # a SELECT's rows, CHUNK at a time
    insert: Callable[[str, list[str], Rowset], Awaitable[Any]]  # rows into (table, columns)
    snapshot: Callable[[], AbstractAsyncContextManager[Any]]  # one view for every read
    transaction: Callable[[], AbstractAsyncContextManager[Any]]  # one write transaction

    async def read(self, fn: Callable[P, Command[T]], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run the command `fn(*args, **kwargs)`."""
        result: T = await self.run(fn(*args, **kwargs))
        return result


def on_sqlite(conn: sqlite3.Connection) -> Reader:
    """A reader on one sqlite3 connection (autocommit, any thread): every call on a worker
    thread, one at a time; rows by column name, as the store's commands read them."""
    conn.row_factory = sqlite3.Row

    async def scan(sql: str) -> AsyncIterator[list[Any]]:
        cursor = await asyncio.to_thread(conn.execute, sql)
        while chunk := await asyncio.to_thread(cursor.fetchmany, CHUNK):
            yield chunk

    @contextlib.asynccontextmanager
    async def between(begin: str, end: str) -> AsyncIterator[None]:
        await asyncio.to_thread(conn.execute, begin)  # WAL: one view for every read inside
        try:
            yield
        except BaseException:
            await asyncio.to_thread(conn.execute, "ROLLBACK")
            raise
        await asyncio.to_thread(conn.execute, end)

    return Reader(lambda command: asyncio.to_thread(run_sync, conn, command), scan,
                  lambda table, cols, rows: asyncio.to_thread(
                      conn.executemany, f"INSERT INTO {table} ({', '.join(cols)}) "
                      f"VALUES ({', '.join('?' * len(cols))})", rows),
                  lambda: between("BEGIN", "ROLLBACK"),
                  lambda: between("BEGIN IMMEDIATE", "COMMIT"))


def on_postgres(conn: Any) -> Reader:
    """A reader on one asyncpg connection."""

    async def fetch(stmt: Stmt) -> Rows:
        return list(await conn.fetch(postgres_sql(stmt.sql), *stmt.params))

    async def scan(sql: str) -> AsyncIterator[list[Any]]:
        cursor = await conn.cursor(sql)  # a cursor needs the snapshot's transaction
        while chunk := await cursor.fetch(CHUNK):
            yield chunk

    return Reader(lambda command: run_async(command, fetch), scan,
                  lambda table, cols, rows: conn.copy_records_to_table(table, records=rows,
                                                                      columns=cols),
                  lambda: conn.transaction(isolation="repeatable_read", readonly=True),
                  conn.transaction)


# What a maintainer does about a damaged file, by the role it plays in the command.
LIVE_DAMAGED = ("stop the bot, move the file aside and restore the latest backup "
                "(quizbot restore PATH)")
BACKUP_DAMAGED = "choose another backup"
# ... and about a file that is not (exactly) a quizbot database; it is left as it is.
LIVE_REFUSED = ("check that storage.url in the --config file names quizbot's database; "
                "the file was left as it is")
BACKUP_REFUSED = "choose a file that quizbot backup wrote"


@contextlib.asynccontextmanager
async def open_reader(url: str, password: str = "") -> AsyncIterator[Reader]:
    """A read-only reader on the database `url` names, in one snapshot; OpsError (or
    StoreRefused) when it is not a quizbot database this quizbot can read."""
    if scheme_of(url) != "postgresql":
        from bot.store.sqlite import path_from_url

        # exactly quizbot's, or OpsError
        path = path_from_url(url)
        with open_checked(path) as conn, refusing_damage(path):
            yield on_sqlite(conn)
        return
    async with connected(url, password) as pg:
        reader = on_postgres(pg)
        async with reader.snapshot():
            latest = migrations("postgres")[-1][0]
            if not await reader.read(postgres_version, redact(url), latest):
                raise EmptyDatabase(f"{redact(url)}: is not a quizbot database (it is empty)")
            yield reader


@contextlib.contextmanager
def open_checked(db: Path, *, quick: bool = False, what_to_do: str = LIVE_REFUSED
                 ) -> Iterator[sqlite3.Connection]:
    """A read-only connection to an exact quizbot database (`migrate.open_examined`), closed
    on exit; OpsError for anything else, ending in `what_to_do` (`quick`: its pages checked
    too). `on_sqlite` runs the reader's commands on it, on a worker thread.

    A read-only connection to a WAL database makes a -wal and a -shm file when none is
    there and cannot delete them: made by root, they would stop the bot's own user from
    opening the database. So when the look made them they go again (`_drop_side_files`)."""
    if not db.is_file():
        raise OpsError(f"{db}: no such database file; {what_to_do}")
    had_side_files = any(side.exists() for side in _side_files(db))
    wal, shm = _side_files(db)
    # A folder this user cannot write (a read-only mount, another user's folder) takes no
    # -shm file, which a locking read of a WAL database needs. With no -wal there, no
    # connection has the file open (a WAL connection always has one): read it immutable,
    # as the store's own look does (`migrate._examine_file`).
    unwritable = not os.access(db.parent, os.W_OK)
    if unwritable and wal.exists() and not shm.exists():
        raise OpsError(f"{db}: cannot be read from here: it is in use (its -wal file is "
                       f"there) and this user cannot write its folder {db.parent} for the "
                       "-shm file a reader needs; run the command as the user the bot runs "
                       "as, or stop the bot first")
    try:
        try:
            conn, version = open_examined(db, immutable=unwritable and not wal.exists(),
                                          quick=quick)
        except (NotOurs, sqlite3.Error) as exc:
            raise OpsError(f"{db}: refused: {exc}; {what_to_do}") from None
        try:
            if not version:  # as a first start that failed (a full disk) leaves it
                raise EmptyDatabase(f"{db}: refused: it is a SQLite database, but not "
                                    f"quizbot's (it has no tables); {what_to_do}")
            yield conn
        finally:
            conn.close()
    finally:
        if not had_side_files:
            _drop_side_files(db)


def _side_files(db: Path) -> tuple[Path, Path]:
    return Path(f"{db}-wal"), Path(f"{db}-shm")


def _drop_side_files(db: Path) -> None:
    """SQLite's own clean-up: the last connection to close on a WAL database folds the -wal
    in and deletes both files. A read-only one may not, so a plain connection that writes
    nothing closes last; while another process has the database open, it is not the last
    and the files stay."""
    if any(side.exists() for side in _side_files(db)):
        with contextlib.suppress(sqlite3.Error), contextlib.closing(
                sqlite3.connect(db, timeout=0)) as plain:
            plain.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()




@contextlib.contextmanager
def refusing_damage(db: Path, what_to_do: str = LIVE_DAMAGED) -> Iterator[None]:
    """OpsError naming `db` and `what_to_do` when a read inside finds its pages damaged.

    The open's look (`open_checked`) reads the schema, not every page: a damaged table is
    found only when a command reads it (SQLite's SQLITE_CORRUPT or SQLITE_NOTADB), and
    must end in one line, not a traceback. Any other error is not damage and passes on."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if exc.sqlite_errorcode & 0xFF not in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
            raise
        raise OpsError(f"{db}: refused: it is corrupt ({exc}); {what_to_do}") from None


def inspect(db: Path) -> tuple[int, int, int, int] | None:
    """`quizbot check` of a SQLite file: (schema version, users, sessions, answers), None
    when the file is not created yet; OpsError when the bot would refuse it."""
    if not db.exists() or db.stat().st_size == 0:
        parent = next((p for p in (db.parent, *db.parent.parents) if p.exists()), Path("/"))
        if not os.access(parent, os.W_OK):
            raise OpsError(f"{db}: does not exist and {parent} is not writable")
        return None
    with open_checked(db, quick=True) as conn, refusing_damage(db):
        return run_sync(conn, summary())


@contextlib.asynccontextmanager
async def connected(url: str, password: str = "") -> AsyncIterator[Any]:
    """One asyncpg connection to the PostgreSQL database `url` names (the password given, or
    the one in the URL); OpsError naming the database when there is none to be had."""
    import asyncpg

    bare, embedded = split_password(url)
    try:
        conn = await asyncpg.connect(bare, password=password or embedded or None, timeout=10)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        # InterfaceError: a URL asyncpg refuses before connecting (?sslmode=bogus), which
        # `quizbot check|stats|export|backup` printed as a traceback
        raise OpsError(f"{redact(url)}: cannot connect ({type(exc).__name__}: "
                       f"{scrubbed(exc, url, password)}){remedy(exc)}") from None
    try:
        yield conn
    finally:
        await conn.close()


__all__ = ["BACKUP_DAMAGED", "BACKUP_REFUSED", "LIVE_DAMAGED", "LIVE_REFUSED", "Reader",
           "connected", "inspect", "on_postgres", "on_sqlite", "open_checked", "open_reader",
           "refusing_damage"]
