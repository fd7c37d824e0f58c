"""Numbered schema migrations for both dialects, and the look before a database is used.

Migrations are `bot/store/migrations/<dialect>/NNNN_name.sql`, recorded in
`schema_migrations`. One command, `migrate`, applies what is missing, statement by statement
through the store's executors, in one write transaction: SQLite's under `BEGIN IMMEDIATE`
with foreign keys switched off around it (`migrate_sqlite`), PostgreSQL's under an advisory
lock (`migrate_postgres`), so of several processes starting together the first migrates and
the others find the migrations recorded. A database that is not ours is refused before a
statement that writes runs. On SQLite a quizbot file carries `PRAGMA application_id =
APPLICATION_ID` (migration 0004 sets it); a file that is not ours (not SQLite, another
application's id, corrupt, someone else's tables, a newer schema) is refused after a look
that cannot write: the header is read as bytes, and SQLite opens the file with
`immutable=1`, which takes no locks and creates no `-wal`/`-shm` files. On PostgreSQL a
database is ours when its schema is empty or holds our `schema_migrations` table.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import functools
import logging
import os
import sqlite3
import time
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from bot.domain.errors import StoreRefused, StoreUnavailable
from bot.store.command import Command, Rows, Stmt, q, run_async, run_sync
from bot.store.urls import scheme_of

log = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"
HEADER_SIZE = 100
APPLICATION_ID_OFFSET = 68  # big-endian 32-bit integer in the SQLite file header
APPLICATION_ID = 0x71626F74  # "qbot"
VERSION_TABLE_COLUMNS = ("version", "name", "applied_at")
PG_VERSION_TABLE = {"version": "integer", "name": "text", "applied_at": "double precision"}
# Any constant; only quizbot takes it, so it cannot collide with another application's lock
# unless that application picked the same 63-bit number.
MIGRATION_LOCK = 0x71_75_69_7A_62_6F_74  # "quizbot"
# Before both dialects shared one numbering, PostgreSQL's files were 0001 (SQLite's 1-3) and
# 0002 (SQLite's 5-6); databases that recorded them are renumbered, rows and all, in place.
RENUMBERED = {(1, "0001_init.sql"): (3, "0003_init.sql"),
              (2, "0002_rounds_learning.sql"): (6, "0006_rounds_learning.sql")}
INSPECTIONS = 4
BUSY_MS = 5000
# Every table the migrations create (besides schema_migrations), parents before children:
# copy-db copies them in this order, reading their columns from the migrated database.
TABLES = ("users", "rounds", "sessions", "answers", "best_scores", "round_questions",
          "round_members", "dailies", "rewards", "reward_grants",  # parents first
          "round_answers", "cards", "reviews", "learner_settings", "jobs", "inbox", "chats",
          "used_links", "installed_quizzes", "group_settings", "problem_reports",
          "question_messages", "group_managers")


def migrations(dialect: str = "sqlite") -> list[tuple[int, str, str]]:
    """(version, name, sql) for every numbered file of the dialect, in order."""
    found = []
    for entry in (resources.files("bot.store") / "migrations" / dialect).iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append((int(name[:4]), name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def refuse(where: object, why: str, setting: str = "storage.url") -> StoreRefused:
    """The error for a database we will not open (a SQLite file, or a PostgreSQL URL that
    must already be redacted); it says nothing was changed, and to point `setting` (what
    named the database: the config key, or a command's option) elsewhere."""
    if isinstance(where, str) and scheme_of(where) == "postgresql":
        return StoreRefused(f"Refusing to use the database {where}: {why}. Nothing was written "
                            f"to it; point {setting} at an empty database or quizbot's own.")
    return StoreRefused(
        f"Refusing to open {where}: {why}. The file was left untouched; move it aside or point "
        f"{setting} at another file.")


def newer(version: int, latest: int) -> str:
    """Why a schema at `version` is refused: newer than this quizbot ('' when it is not)."""
    if version <= latest:
        return ""
    return (f"its schema is version {version}, newer than this quizbot understands "
            f"({latest}); upgrade quizbot")


def application_id(header: bytes) -> int:
    """The application_id in a SQLite header (0 when the file never set one)."""
    return int.from_bytes(header[APPLICATION_ID_OFFSET:APPLICATION_ID_OFFSET + 4], "big")


def _header(path: Path) -> bytes:
    """The file's first 100 bytes."""
    with path.open("rb") as fh:
        return fh.read(HEADER_SIZE)


class NotOurs(Exception):
    """Why a file is no quizbot database this quizbot may open (one clause: "it is ...")."""


def check_header(header: bytes) -> None:
    """NotOurs unless the first 100 bytes are a SQLite header with no other application's id."""
    if len(header) < HEADER_SIZE or not header.startswith(SQLITE_HEADER):
        raise NotOurs("it is not a SQLite database")
    app_id = application_id(header)
    if app_id not in (0, APPLICATION_ID):
        raise NotOurs(f"it is another application's SQLite database (application_id "
                      f"{app_id:#010x}, quizbot's is {APPLICATION_ID:#010x})")


def examine(conn: sqlite3.Connection, *, quick: bool) -> int:
    """The schema version of the database `conn` reads (0: an empty file), when it is exactly
    what quizbot's migrations make; NotOurs naming why not: corrupt (`quick`: PRAGMA
    quick_check), another program's, newer than this quizbot, or holding any table, index,
    trigger or view quizbot did not create. Reads only: the store's open, backup, restore,
    stats, export and check all decide with it."""
    try:
        if quick:
            verdict = [r[0] for r in conn.execute("PRAGMA quick_check")]
            if verdict != ["ok"]:
                raise NotOurs(f"it is corrupt ({'; '.join(verdict[:3])})")
        tables = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables and int(conn.execute("PRAGMA application_id").fetchone()[0]) == 0:
            return 0
        columns = tuple(r[1] for r in conn.execute("PRAGMA table_info(schema_migrations)"))
        if columns != VERSION_TABLE_COLUMNS:
            raise NotOurs("it is a SQLite database, but not quizbot's" + (
                " (its schema_migrations table is not ours)" if columns else ""))
        version = int(conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] or 0)
        problem = newer(version, migrations("sqlite")[-1][0]) or schema_problem(conn, version)
    except sqlite3.OperationalError as exc:
        raise NotOurs(f"it cannot be read ({exc})") from None
    except sqlite3.DatabaseError as exc:
        raise NotOurs(f"it is corrupt ({exc})") from None
    except UnicodeDecodeError:  # an error message quoting scribbled bytes
        raise NotOurs("it is corrupt (it reads unreadable bytes)") from None
    if problem:
        raise NotOurs(problem)
    return version


SchemaObject = tuple[str, str, str, str]  # type, name, table, SQL with white space folded
_APP_ID_SINCE = 4  # migration 0004 set the application id; older databases carry 0


def schema_of(conn: sqlite3.Connection) -> frozenset[SchemaObject]:
    """Every table, index, trigger and view (SQLite's own `sqlite_*` objects aside)."""
    rows = conn.execute("SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master "
                        "WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                        "AND name != 'schema_migrations'").fetchall()
    return frozenset((str(k), str(n), str(tb), " ".join(str(s).split())) for k, n, tb, s in rows)


@functools.cache
def expected_schema(version: int) -> frozenset[SchemaObject]:
    """The schema quizbot's own migrations 1..`version` make, built in memory."""
    with contextlib.closing(sqlite3.connect(":memory:", isolation_level=None)) as conn:
        for number, _, sql in migrations("sqlite"):
            if number > version:
                break
            conn.execute("BEGIN")
            for statement in statements(sql):
                conn.execute(statement)
            conn.execute("COMMIT")
        return schema_of(conn)


def schema_problem(conn: sqlite3.Connection, version: int) -> str | None:
    """Why this is not exactly a quizbot database at `version` (None when it is)."""
    recorded = [(int(v), str(n)) for v, n in conn.execute(
        "SELECT version, name FROM schema_migrations ORDER BY version")]
    if recorded != [(v, n) for v, n, _ in migrations("sqlite") if v <= version]:
        return ("it is a SQLite database, but not quizbot's (its schema_migrations table "
                "records migrations quizbot never had)")
    app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    if app_id != APPLICATION_ID and (version >= _APP_ID_SINCE or app_id != 0):
        return f"it is another application's database (application_id {app_id:#010x})"
    found, expected = schema_of(conn), expected_schema(version)
    extra = sorted(f"{kind} {name}" for kind, name, _, _ in found - expected)
    missing = sorted(f"{kind} {name}" for kind, name, _, _ in expected - found)
    if extra or missing:
        parts = ([f"has {', '.join(extra[:3])} that quizbot did not create"] if extra else []) \
            + ([f"lacks {', '.join(missing[:3])}"] if missing else [])
        return f"its schema is not quizbot's ({'; '.join(parts)})"
    return None


def open_examined(path: Path, *, immutable: bool, quick: bool
                  ) -> tuple[sqlite3.Connection, int]:
    """A read-only connection to the file (`immutable`: no locks, no -wal/-shm files) and
    its schema version, when it is exactly quizbot's (`check_header`, then `examine` in one
    snapshot: another process may be migrating it); NotOurs naming why not."""
    check_header(_header(path))
    uri = f"{path.absolute().as_uri()}?mode=ro" + ("&immutable=1" if immutable else "")
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise NotOurs(f"it cannot be read ({exc})") from None
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        conn.execute("BEGIN")
        version = examine(conn, quick=quick)
        conn.execute("COMMIT")
    except BaseException:
        conn.close()
        raise
    return conn, version


def _examine_file(path: Path) -> int:
    # A live database always has a -wal file beside it; only then can someone be writing it
    # (another quizbot process creating it this very moment, its header not yet
    # checkpointed), and only then is a locking read-only open needed (it adds no file).
    # Anything else is read immutable: no locks, no journal, no sidecar files.
    conn, version = open_examined(path, immutable=not Path(f"{path}-wal").exists(), quick=True)
    conn.close()
    return version


async def inspect_sqlite(path: Path, setting: str = "storage.url") -> int:
    """Check an existing file without writing to it (`examine`); return its schema version.

    A file marked as ours may be being written by another quizbot process this very moment
    (one that started together with us): what looks torn is looked at again, with the
    locking read-only open once its -wal is there, before it is refused.
    """
    for attempt in range(INSPECTIONS):
        try:
            return await asyncio.to_thread(_examine_file, path)
        except NotOurs as exc:
            if attempt == INSPECTIONS - 1 or application_id(_header(path)) != APPLICATION_ID:
                raise refuse(path, str(exc), setting) from None
            await asyncio.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


def check_writable(path: Path, setting: str = "storage.url") -> None:
    """Raise StoreUnavailable, naming the cause (and `setting`, what named the file), unless
    `path` can be created or written.

    Creates missing folders (that is not touching anyone's file); writes nothing else.
    """
    if path.is_dir():
        raise StoreUnavailable(
            f"{setting} points at {path}, which is a folder; name a file inside it, "
            f"e.g. sqlite:///{path / 'quizbot.db'}")
    folder = path.parent if str(path.parent) else Path(".")
    for ancestor in (folder, *folder.parents):
        if ancestor.exists() and not ancestor.is_dir():
            raise StoreUnavailable(
                f"cannot create the database {path}: {ancestor} is a file, not a folder; "
                f"point {setting} somewhere else")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreUnavailable(
            f"cannot create the folder {folder} for the database: {_reason(exc)}; create it "
            f"or point {setting} somewhere quizbot may write") from None
    if path.exists() and not os.access(path, os.W_OK):
        raise StoreUnavailable(
            f"the database {path} is read-only{_fs_note(path)}; quizbot must write to it: "
            f"make it writable (or its filesystem) or point {setting} at a copy")
    if not os.access(folder, os.W_OK | os.X_OK):
        what = "the database" if path.exists() else "a new database"
        raise StoreUnavailable(
            f"the folder {folder} is read-only{_fs_note(folder)}; quizbot must create {what}'s "
            f"-wal and -shm files beside it: make the folder writable or point {setting} "
            "elsewhere")


def _fs_note(path: Path) -> str:
    """' (a read-only filesystem)' when that is why, else ''."""
    try:
        flags = os.statvfs(path).f_flag
    except OSError:
        return ""
    return " (on a read-only filesystem)" if flags & os.ST_RDONLY else ""


def _reason(exc: OSError) -> str:
    if exc.errno == errno.EROFS:
        return "the filesystem is read-only"
    return exc.strerror or str(exc)


def migrate(dialect: str, known: list[tuple[int, str, str]], where: object,
            setting: str = "storage.url") -> Command[int]:
    """Apply every migration of `known` newer than the recorded version, inside the caller's
    write transaction; refuse (nothing written, naming `setting`) a database this quizbot
    does not know."""
    if dialect == "postgres":
        yield q("SELECT pg_advisory_xact_lock(?)", MIGRATION_LOCK)
        # Another worker may have migrated (or someone created tables) while we waited.
        yield from postgres_version(where, known[-1][0], setting)
    elif not (yield q("SELECT name FROM sqlite_master WHERE type = 'table'")):
        yield q(f"PRAGMA application_id = {APPLICATION_ID}")  # ours, before any table
    yield q("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
            "name TEXT NOT NULL, applied_at DOUBLE PRECISION NOT NULL)")
    if dialect == "postgres":
        for (old, old_name), (new, new_name) in RENUMBERED.items():
            yield q("UPDATE schema_migrations SET version = ?, name = ? WHERE version = ? "
                    "AND name = ?", new, new_name, old, old_name)
    applied = {int(r[0]) for r in (yield q("SELECT version FROM schema_migrations"))}
    if why := newer(max(applied, default=0), known[-1][0]):
        raise refuse(where, why, setting)
    for version, name, sql in known:
        if version not in applied:
            for statement in statements(sql):
                yield q(statement)
            yield q("INSERT INTO schema_migrations VALUES (?, ?, ?)", version, name, time.time())
            log.info("applied migration %s/%s", dialect, name)
    return known[-1][0]


def migrate_sqlite(db: sqlite3.Connection, known: list[tuple[int, str, str]],
                   where: object = "the database", setting: str = "storage.url") -> None:
    """`migrate` in one `BEGIN IMMEDIATE` transaction on the sqlite3 connection `db`.

    The version is read under the database's write lock: of any number of processes
    starting together on a new or an old file, the first migrates and the others, waiting
    on the lock (busy_timeout), find the migrations recorded. `db` is in autocommit mode
    (isolation_level=None): the transaction here is explicit. Synchronous: the store runs
    it on its connection's thread (`SQLiteThread.run`).
    """
    # Rebuilding a table (SQLite's only way to change a CHECK) drops the old one, which with
    # foreign keys on would cascade into the rows that reference it. SQLite's documented
    # recipe: keys off outside the transaction, check them before COMMIT, back on after.
    keys_on = bool(db.execute("PRAGMA foreign_keys").fetchone()[0])
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute("BEGIN IMMEDIATE")
    try:
        run_sync(db, migrate("sqlite", known, where, setting))
        broken = db.execute("PRAGMA foreign_key_check").fetchall()
        if broken:
            raise RuntimeError(f"a migration breaks foreign keys: {[tuple(b) for b in broken[:3]]}")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:  # a full disk may have rolled it back already
            db.execute("ROLLBACK")
        raise
    finally:
        if keys_on:
            db.execute("PRAGMA foreign_keys = ON")


def postgres_version(where: object, latest: int, setting: str = "storage.url"
                     ) -> Command[int]:
    """Our schema version in the connection's current PostgreSQL schema (0: empty); refused
    otherwise. Reads only the catalogue and `schema_migrations`."""
    tables = {r[0] for r in (yield q("SELECT table_name FROM information_schema.tables "
                                     "WHERE table_schema = current_schema()"))}
    if not tables:
        return 0
    if "schema_migrations" not in tables:
        raise refuse(where, f"it has tables ({', '.join(sorted(tables)[:5])}) but no "
                            "schema_migrations: it is not quizbot's", setting)
    columns = {r[0]: r[1] for r in (yield q(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = 'schema_migrations'"))}
    if columns != PG_VERSION_TABLE:
        raise refuse(where, "its schema_migrations table is not quizbot's "
                            f"(columns {', '.join(sorted(columns))})", setting)
    recorded = yield q("SELECT version, name FROM schema_migrations")
    version = max((RENUMBERED.get((int(v), n), (int(v), n))[0] for v, n in recorded), default=0)
    if why := newer(version, latest):
        raise refuse(where, why, setting)
    return version


async def migrate_postgres(fetch: Callable[[Stmt], Awaitable[Rows]], conn: Any, where: str,
                           setting: str = "storage.url") -> int:
    """Refuse a foreign or newer database, else migrate it (`migrate` on the asyncpg
    connection `conn`, whose statements `fetch` runs); return the version."""
    known = migrations("postgres")
    if await run_async(postgres_version(where, known[-1][0], setting), fetch) == known[-1][0]:
        return known[-1][0]  # the common case: no lock, no write
    async with conn.transaction():
        return await run_async(migrate("postgres", known, where, setting), fetch)


def statements(sql: str) -> list[str]:
    """Split a migration file into statements (sqlite3 knows the grammar; PostgreSQL's files
    use none that it does not, such as dollar-quoted bodies)."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    return out
