"""`quizbot copy-db`: every row from one store to another (SQLite <-> PostgreSQL).

Both ends are opened as `quizbot run` opens them first (refused if foreign or newer,
migrated to the current schema), so the copy is between identical schemas. The source is
read in one snapshot; the target is written in one transaction that first checks it is
empty and, before COMMIT, that it holds exactly as many rows per table (and the same sum of
scores) as the source: a failed or short copy leaves the target empty. Stop the bots on
the source first; answers written after the snapshot would not be copied.

Each end is one connection, a `bot.ops.reader.Reader`: the checks are a command
(`counts`) run with the store's executor, and rows move a chunk at a time (a table may not
fit in memory).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass

from bot.domain.errors import StoreRefused
from bot.domain.secret import Secret
from bot.ops.reader import Reader, connected, on_postgres, on_sqlite
from bot.store import open_url
from bot.store.command import Command, q
from bot.store.migrate import TABLES
from bot.store.sqlite import path_from_url
from bot.store.urls import redact, scheme_of

# Tables whose ids were copied as they were (buttons and jobs carry them): their identity
# sequences move past the copied ids.
IDENTITIES = ("sessions", "rounds", "jobs", "installed_quizzes", "problem_reports")


class CopyRefused(StoreRefused):
    """copy-db will not (or could not) copy; the target holds nothing of the source."""


@dataclass(frozen=True)
class Copied:
    """Rows per table that are now in the target (equal to the source's)."""

    rows: dict[str, int]
    score_sum: int


def counts() -> Command[tuple[dict[str, int], int]]:
    """Rows per table, and the sum of every session's score."""
    rows = yield q("SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {t})" for t in TABLES)
                   + ", (SELECT COALESCE(SUM(score), 0) FROM sessions)")
    *tables, scores = (int(n) for n in rows[0])
    return dict(zip(TABLES, tables, strict=True)), scores


def move_identities() -> Command[None]:
    """PostgreSQL: new rows continue after the copied ids (SQLite's follow MAX(id) anyway)."""
    for table in IDENTITIES:
        yield q(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)")


async def copy_db(source: str, target: str, *, source_password: Secret | None = None,
                  target_password: Secret | None = None,
                  named: tuple[str, str] = ("--from", "--to")) -> Copied:
    """Copy everything from `source` to the empty store `target` (URLs); verify counts.
    `named` says what gave each URL (an option, or a config's storage.url), for refusals."""
    source_named, target_named = named
    for flag, url in ((source_named, source), (target_named, target)):
        scheme = scheme_of(url)  # named, not shown: a URL may carry a password
        if scheme not in ("sqlite", "postgresql"):  # not "storage.url must be ..."
            raise CopyRefused(f"{flag} must be sqlite:///path/to.db or postgresql://user@host:"
                              f"port/db, got {f'a {scheme}: URL' if scheme else 'no scheme'}")
    if _same(source, target):
        raise CopyRefused(f"{source_named} and {target_named} name the same database")
    if scheme_of(source) == "sqlite" and not path_from_url(source).is_file():
        raise CopyRefused(f"there is no database file {path_from_url(source)} to copy from: "
                          f"check {source_named} (nothing was created or copied)")
    for flag, url, password in ((source_named, source, source_password),
                                (target_named, target, target_password)):  # refuse, or migrate
        await (await open_url(url, password=password, pool_size=1, setting=flag)).close()
    async with _end(source, source_password) as src, _end(target, target_password) as dst, \
            dst.transaction():
        copied = await _copy_into(dst, src, redact(target), target_named)
        if scheme_of(target) == "postgresql":
            await dst.read(move_identities)
        return copied


def _same(a: str, b: str) -> bool:
    if scheme_of(a) == scheme_of(b) == "sqlite":
        return path_from_url(a).resolve() == path_from_url(b).resolve()
    return redact(a) == redact(b)


@contextlib.asynccontextmanager
async def _end(url: str, password: Secret | None) -> AsyncIterator[Reader]:
    if scheme_of(url) != "sqlite":
        async with connected(url, password.reveal() if password else "") as pg:
            yield on_postgres(pg)
        return
    conn = sqlite3.connect(path_from_url(url), isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        yield on_sqlite(conn)
    finally:
        conn.close()


async def _copy_into(dst: Reader, src: Reader, shown: str, target_named: str) -> Copied:
    """Inside the target's transaction: check empty, copy, verify."""
    present, _ = await dst.read(counts)
    if any(present.values()):
        held = ", ".join(f"{n} {t}" for t, n in present.items() if n)
        raise CopyRefused(f"Refusing to copy into {shown}: it is not empty ({held}). Nothing "
                          f"was copied; point {target_named} at an empty database.")
    async with src.snapshot():
        expected = await src.read(counts)
        for table in TABLES:  # parents first; both ends have the same columns (migrations)
            async for chunk in src.scan(f"SELECT * FROM {table}"):
                await dst.insert(table, list(chunk[0].keys()), [tuple(r) for r in chunk])
    got = await dst.read(counts)
    if got != expected:
        raise CopyRefused(f"copy-db check failed: the source has {expected[0]} (score sum "
                          f"{expected[1]}), the target would have {got[0]} ({got[1]}); "
                          "rolled back, nothing was copied")
    return Copied(*got)


__all__ = ["Copied", "CopyRefused", "copy_db", "counts"]
