"""Numbered schema migrations per dialect, and opening a SQLite file safely.

Migrations are `bot/store/migrations/<dialect>/NNNN_name.sql`, applied in order at start,
each in its own transaction, and recorded in `schema_migrations`. A quizbot database carries
`PRAGMA application_id = APPLICATION_ID` (migration 0004 sets it). A file that is not ours
(not SQLite, another application's id, corrupt, someone else's tables, a newer schema) is
refused after a look that cannot write: the header is read as bytes, and SQLite opens the file
with `immutable=1`, which takes no locks and creates no `-wal`/`-shm` files.
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
from importlib import resources
from pathlib import Path

from bot.domain.errors import StoreRefused, StoreUnavailable

log = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"
HEADER_SIZE = 100
APPLICATION_ID_OFFSET = 68  # big-endian 32-bit integer in the SQLite file header
APPLICATION_ID = 0x71626F74  # "qbot"
VERSION_TABLE_COLUMNS = ("version", "name", "applied_at")
INSPECTIONS = 4
BUSY_MS = 5000
# Every table the migrations create (besides schema_migrations), parents before children:
# copy-db copies them in this order, reading their columns from the migrated database.
TABLES = ("users", "rounds", "sessions", "answers", "best_scores", "round_questions",
          "round_members", "dailies", "rewards", "reward_grants",  # parents first
          "round_answers", "cards", "reviews", "learner_settings", "jobs", "inbox", "chats",
          "used_links", "installed_quizzes", "group_settings", "problem_reports",
          "question_messages")


def migrations(dialect: str = "sqlite") -> list[tuple[int, str, str]]:
    """(version, name, sql) for every numbered file of the dialect, in order."""
    found = []
    for entry in (resources.files("bot.store") / "migrations" / dialect).iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append((int(name[:4]), name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def refuse(path: object, why: str) -> StoreRefused:
    """The error for a database we will not open; it says nothing was changed."""
    return StoreRefused(
        f"Refusing to open {path}: {why}. The file was left untouched; move it aside or point "
        f"storage.url at another file.")


def application_id(header: bytes) -> int:
    """The application_id in a SQLite header (0 when the file never set one)."""
    return int.from_bytes(header[APPLICATION_ID_OFFSET:APPLICATION_ID_OFFSET + 4], "big")


def _header(path: Path) -> tuple[bytes, bool]:
    """The file's first 100 bytes, and whether a -wal file lies beside it."""
    with path.open("rb") as fh:
        return fh.read(HEADER_SIZE), Path(f"{path}-wal").exists()


def readonly_uri(path: Path, *, immutable: bool) -> str:
    """A URI that opens `path` read-only (`immutable`: no locks, no -wal/-shm files)."""
    uri = f"{path.absolute().as_uri()}?mode=ro"
    return uri + "&immutable=1" if immutable else uri


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
        version = schema_version(conn)
        latest = migrations("sqlite")[-1][0]
        if version > latest:
            raise NotOurs(f"its schema is version {version}, newer than this quizbot "
                          f"understands ({latest}); upgrade quizbot")
        problem = schema_problem(conn, version)
    except sqlite3.OperationalError as exc:
        raise NotOurs(f"it cannot be read ({exc})") from None
    except sqlite3.DatabaseError as exc:
        raise NotOurs(f"it is corrupt ({exc})") from None
    except UnicodeDecodeError:  # an error message quoting scribbled bytes
        raise NotOurs("it is corrupt (it reads unreadable bytes)") from None
    if problem:
        raise NotOurs(problem)
    return version


def schema_version(conn: sqlite3.Connection) -> int:
    """MAX(version) recorded in schema_migrations."""
    return int(conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] or 0)


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


def _examine_file(path: Path) -> int:
    header, has_wal = _header(path)
    check_header(header)
    # A live database always has a -wal file beside it; only then can someone be writing it
    # (another quizbot process creating it this very moment, its header not yet
    # checkpointed), and only then is a locking read-only open needed (it adds no file).
    # Anything else is read immutable: no locks, no journal, no sidecar files.
    try:
        conn = sqlite3.connect(readonly_uri(path, immutable=not has_wal), uri=True,
                               isolation_level=None)
    except sqlite3.Error as exc:
        raise NotOurs(f"it cannot be read ({exc})") from None
    with contextlib.closing(conn):
        conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        conn.execute("BEGIN")  # one snapshot: another process may be migrating it
        return examine(conn, quick=True)


async def inspect_sqlite(path: Path) -> int:
    """Check an existing file without writing to it (`examine`); return its schema version.

    A file marked as ours may be being written by another quizbot process this very moment
    (one that started together with us): what looks torn is looked at again, with the
    locking read-only open once its -wal is there, before it is refused.
    """
    for attempt in range(INSPECTIONS):
        try:
            return await asyncio.to_thread(_examine_file, path)
        except NotOurs as exc:
            if attempt == INSPECTIONS - 1 or application_id(_header(path)[0]) != APPLICATION_ID:
                raise refuse(path, str(exc)) from None
            await asyncio.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")


def check_writable(path: Path) -> None:
    """Raise StoreUnavailable, naming the cause, unless `path` can be created or written.

    Creates missing folders (that is not touching anyone's file); writes nothing else.
    """
    if path.is_dir():
        raise StoreUnavailable(
            f"storage.url points at {path}, which is a folder; name a file inside it, "
            f"e.g. sqlite:///{path / 'quizbot.db'}")
    folder = path.parent if str(path.parent) else Path(".")
    for ancestor in (folder, *folder.parents):
        if ancestor.exists() and not ancestor.is_dir():
            raise StoreUnavailable(
                f"cannot create the database {path}: {ancestor} is a file, not a folder; "
                "point storage.url somewhere else")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreUnavailable(
            f"cannot create the folder {folder} for the database: {_reason(exc)}; create it "
            "or point storage.url somewhere quizbot may write") from None
    if path.exists() and not os.access(path, os.W_OK):
        raise StoreUnavailable(
            f"the database {path} is read-only{_fs_note(path)}; quizbot must write to it: "
            "make it writable (or its filesystem) or point storage.url at a copy")
    if not os.access(folder, os.W_OK | os.X_OK):
        what = "the database" if path.exists() else "a new database"
        raise StoreUnavailable(
            f"the folder {folder} is read-only{_fs_note(folder)}; quizbot must create {what}'s "
            f"-wal and -shm files beside it: make the folder writable or point storage.url "
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


def migrate_sqlite(db: sqlite3.Connection, known: list[tuple[int, str, str]],
                   where: object = "the database") -> None:
    """Apply every migration newer than the recorded version, in one write transaction.

    The version is read inside `BEGIN IMMEDIATE`, under the database's write lock: of any
    number of processes starting together on a new or an old file, the first migrates and
    the others, waiting on the lock (busy_timeout), find the migrations recorded. `db` is in
    autocommit mode (isolation_level=None): the transaction here is explicit. Synchronous:
    the store runs it on its connection's thread (`SQLiteThread.run`).
    """
    # Rebuilding a table (SQLite's only way to change a CHECK) drops the old one, which with
    # foreign keys on would cascade into the rows that reference it. SQLite's documented
    # recipe: keys off outside the transaction, check them before COMMIT, back on after.
    keys_on = bool(db.execute("PRAGMA foreign_keys").fetchone()[0])
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute("BEGIN IMMEDIATE")
    try:
        if not db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")  # ours, before any table
        db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
            "name TEXT NOT NULL, applied_at REAL NOT NULL)")
        applied = {r[0] for r in db.execute("SELECT version FROM schema_migrations")}
        if applied and max(applied) > known[-1][0]:
            raise refuse(where, f"its schema is version {max(applied)}, newer than this "
                                f"quizbot understands ({known[-1][0]}); upgrade quizbot")
        for version, name, sql in known:
            if version in applied:
                continue
            for statement in statements(sql):
                db.execute(statement)
            db.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)",
                       (version, name, time.time()))
            log.info("applied migration %s", name)
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


def statements(sql: str) -> list[str]:
    """Split a SQLite migration file into statements (sqlite3 knows the grammar)."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    return out
