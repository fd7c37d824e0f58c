"""The store port and its SQLite implementation on aiosqlite.

Writes go through one writer connection that groups whatever is queued into a single
transaction (group commit): each caller awaits the COMMIT that holds its write, so nothing
acknowledged is uncommitted, yet a thousand learners do not pay a thousand fsyncs. Hot
writes are plain statements, so a batch runs each distinct statement once with
`executemany` (one hop to the connection's thread for all learners in the batch). Reads use
a second connection; in WAL mode it sees only committed data and never waits on a write.

Writes in one batch must be independent of each other; the engine guarantees that by
serialising each session's answers (and each user's session changes) with a lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import unquote

import aiosqlite

from bot.errors import ConfigError, StoreRefused
from bot.results import SessionKind
from bot.tasks import spawn

log = logging.getLogger(__name__)

T = TypeVar("T")
Statements = tuple[tuple[str, tuple[Any, ...]], ...]  # run in order; batched by SQL text
Op = Callable[[aiosqlite.Connection], Awaitable[Any]] | Statements
SQLITE_HEADER = b"SQLite format 3\x00"
MAX_BATCH = 1024


@dataclass(frozen=True, slots=True)
class SessionRow:
    id: int
    platform: str
    user_id: str
    chat_id: str | None
    quiz_id: str
    kind: SessionKind
    status: str
    question_ids: tuple[str, ...]
    option_orders: tuple[tuple[int, ...], ...]
    position: int
    score: int
    started_at: float
    finished_at: float | None
    lang: str | None  # the owner's chosen language

    @property
    def active(self) -> bool:
        return self.status == "active"


@dataclass(frozen=True, slots=True)
class AnswerRow:
    session_id: int
    position: int
    question_id: str
    chosen: int  # index in the quiz file
    correct: bool


@dataclass(frozen=True, slots=True)
class NewAnswer:
    """Everything one accepted answer changes, written in one transaction."""

    session_id: int
    position: int
    question_id: str
    chosen: int
    correct: bool
    finished: bool
    # for best_scores when the session finishes a full attempt
    quiz_id: str = ""
    platform: str = ""
    user_id: str = ""
    chat_id: str | None = None
    total: int = 0
    kind: SessionKind = SessionKind.FULL


@dataclass(frozen=True, slots=True)
class BestRow:
    platform: str
    user_id: str
    display_name: str
    score: int
    total: int
    finished_at: float


class Store(Protocol):
    """What the engine needs from storage."""

    async def touch_user(self, platform: str, user_id: str, display_name: str) -> str | None: ...
    async def set_language(self, platform: str, user_id: str, lang: str) -> None: ...
    async def get_session(self, session_id: int) -> SessionRow | None: ...
    async def active_session(self, platform: str, user_id: str, quiz_id: str
                             ) -> SessionRow | None: ...
    async def last_finished(self, platform: str, user_id: str, quiz_id: str
                            ) -> SessionRow | None: ...
    async def create_session(self, platform: str, user_id: str, chat_id: str | None,
                             quiz_id: str, kind: SessionKind, question_ids: Sequence[str],
                             option_orders: Sequence[Sequence[int]]) -> int: ...
    async def get_answer(self, session_id: int, position: int) -> AnswerRow | None: ...
    async def answers(self, session_id: int) -> list[AnswerRow]: ...
    async def session_and_answer(self, session_id: int, position: int
                                 ) -> tuple[SessionRow | None, AnswerRow | None]: ...
    async def record_answer(self, answer: NewAnswer) -> None: ...
    async def attempts(self, platform: str, user_id: str, quiz_id: str
                       ) -> tuple[int, int | None, int | None]: ...
    async def question_stats(self, platform: str, user_id: str, quiz_id: str
                             ) -> dict[str, tuple[int, int]]: ...
    async def best(self, quiz_id: str, scope: str, limit: int) -> list[BestRow]: ...
    async def best_of(self, quiz_id: str, platform: str, user_id: str) -> int | None: ...
    async def reset_user(self, platform: str, user_id: str) -> int: ...
    async def close(self) -> None: ...


def path_from_url(url: str) -> Path:
    """`sqlite:///relative.db` or `sqlite:////absolute.db` (SQLAlchemy's form) to a path."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        raise ConfigError(
            f"storage.url must look like sqlite:///data/quizbot.db or sqlite:////abs/path.db, "
            f"got {url!r}")
    return Path(unquote(url[len(prefix):]))


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) for every numbered file in bot/migrations, in order."""
    found = []
    for entry in (resources.files("bot.store") / "migrations" / "sqlite").iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append((int(name[:4]), name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def _refuse(path: Path, why: str) -> StoreRefused:
    return StoreRefused(
        f"Refusing to open {path}: {why}. The file was left untouched; move it aside or point "
        f"storage.url at another file.")


async def _inspect(path: Path) -> int:
    """Check an existing file read-only; return its schema version. Never writes to it."""
    with path.open("rb") as fh:
        header = fh.read(16)
    if header != SQLITE_HEADER:
        raise _refuse(path, "it is not a SQLite database")
    try:
        uri = f"{path.absolute().as_uri()}?mode=ro"  # noqa: ASYNC240 - no I/O, just getcwd
        async with aiosqlite.connect(uri, uri=True) as db:
            rows = await db.execute_fetchall("PRAGMA quick_check")
            verdict = [r[0] for r in rows]
            if verdict != ["ok"]:
                raise _refuse(path, f"it is corrupt ({'; '.join(verdict[:3])})")
            tables = {r[0] for r in await db.execute_fetchall(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables:
                return 0
            if "schema_migrations" not in tables:
                raise _refuse(path, "it is a SQLite database, but not quizbot's")
            rows = await db.execute_fetchall("SELECT MAX(version) FROM schema_migrations")
            return int(next(iter(rows))[0] or 0)
    except sqlite3.DatabaseError as exc:
        raise _refuse(path, f"it is corrupt ({exc})") from exc


class SQLiteStore:
    """Store on SQLite: one writer connection with group commit, one reader connection."""

    def __init__(self, path: Path, writer: aiosqlite.Connection, reader: aiosqlite.Connection,
                 ) -> None:
        self.path = path
        self._w = writer
        self._r = reader
        self._queue: list[tuple[Op, asyncio.Future[Any]]] = []
        self._wakeup = asyncio.Event()
        self._closed = False
        self._task = spawn(self._write_loop(), name="sqlite-writer")
        self.commits = 0  # transactions committed, for benchmarks
        self.on_commit: Callable[[float], None] | None = None  # metrics hook (issue 14)

    @classmethod
    async def open(cls, url_or_path: str | Path, *, synchronous: str = "FULL") -> SQLiteStore:
        """Open (creating if needed) and migrate; refuse unusable files without touching them."""
        path = path_from_url(url_or_path) if isinstance(url_or_path, str) else url_or_path
        known = migrations()
        latest = known[-1][0]
        if path.exists() and path.stat().st_size > 0:
            version = await _inspect(path)
            if version > latest:
                raise _refuse(path, f"its schema is version {version}, newer than this "
                                    f"quizbot understands ({latest}); upgrade quizbot")
        path.parent.mkdir(parents=True, exist_ok=True)
        if synchronous.upper() not in ("FULL", "NORMAL", "OFF"):
            raise ConfigError(f"storage.synchronous must be full or normal, got {synchronous!r}")
        conns = []
        # The writer lets sqlite3 open each transaction with its first write (no BEGIN round
        # trip to the connection's thread); the reader stays in autocommit.
        for isolation in ("DEFERRED", None):
            conn = await aiosqlite.connect(path, isolation_level=isolation)
            conns.append(conn)
            await conn.execute("PRAGMA busy_timeout = 5000")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
            await conn.execute("PRAGMA foreign_keys = ON")
        writer, reader = conns
        await _migrate(writer, known)
        return cls(path, writer, reader)

    # --- the write path ------------------------------------------------------------------

    async def _write(self, op: Op) -> Any:
        """Run `op` inside the next group transaction; return once it is committed."""
        if self._closed:
            raise RuntimeError("store is closed")
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append((op, fut))
        self._wakeup.set()
        return await fut

    async def _write_loop(self) -> None:
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            while self._queue:
                batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
                await self._commit(batch)

    async def _commit(self, batch: list[tuple[Op, asyncio.Future[Any]]]) -> None:
        try:
            results = await self._run_batch([op for op, _ in batch])
            started = time.perf_counter()
            await self._w.commit()
            self.commits += 1
            if self.on_commit is not None:  # metrics hook (issue 14)
                self.on_commit(time.perf_counter() - started)
        except Exception:
            # One bad op must not sink its neighbours: roll back, then run each alone.
            await self._w.rollback()
            for op, fut in batch:
                await self._commit_one(op, fut)
            return
        for (_, fut), result in zip(batch, results, strict=True):
            if not fut.done():
                fut.set_result(result)

    async def _run_batch(self, ops: list[Op]) -> list[Any]:
        """Statement ops grouped by SQL text (one executemany each), then callable ops."""
        grouped: dict[str, list[tuple[Any, ...]]] = {}
        for op in ops:
            if isinstance(op, tuple):
                for sql, params in op:
                    grouped.setdefault(sql, []).append(params)
        for sql, rows in grouped.items():
            await self._w.executemany(sql, rows)
        return [True if isinstance(op, tuple) else await op(self._w) for op in ops]

    async def _commit_one(self, op: Op, fut: asyncio.Future[Any]) -> None:
        try:
            (result,) = await self._run_batch([op])
            await self._w.commit()
            self.commits += 1
        except Exception as exc:
            await self._w.rollback()
            if not fut.done():
                fut.set_exception(exc)
        else:
            if not fut.done():
                fut.set_result(result)

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return list(await self._r.execute_fetchall(sql, params))

    async def _fetchone(self, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = await self._fetchall(sql, params)
        return rows[0] if rows else None

    # --- users ---------------------------------------------------------------------------

    async def touch_user(self, platform: str, user_id: str, display_name: str) -> str | None:
        """Create or rename the user; return their chosen language (None if not chosen)."""
        row = await self._fetchone(
            "SELECT display_name, lang FROM users WHERE platform = ? AND user_id = ?",
            (platform, user_id))
        if row is not None and (row[0] == display_name or not display_name):
            return row[1]  # type: ignore[no-any-return]

        await self._write(((
            "INSERT INTO users (platform, user_id, display_name, created_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (platform, user_id) "
            "DO UPDATE SET display_name = excluded.display_name",
            (platform, user_id, display_name, time.time())),))
        return row[1] if row is not None else None

    async def set_language(self, platform: str, user_id: str, lang: str) -> None:
        """Persist the user's language choice."""
        await self._write(((
            "INSERT INTO users (platform, user_id, lang, created_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (platform, user_id) DO UPDATE SET lang = excluded.lang",
            (platform, user_id, lang, time.time())),))

    # --- sessions ------------------------------------------------------------------------

    _SESSION_SQL = (
        "SELECT s.id, s.platform, s.user_id, s.chat_id, s.quiz_id, s.kind, s.status, "
        "s.question_ids, s.option_orders, s.position, s.score, s.started_at, s.finished_at, "
        "u.lang FROM sessions s JOIN users u ON u.platform = s.platform AND u.user_id = s.user_id "
    )
    _SESSION_ANSWER_SQL = (
        _SESSION_SQL.replace(" FROM sessions s", ", a.chosen, a.correct, a.question_id "
                                                 "FROM sessions s")
        + "LEFT JOIN answers a ON a.session_id = s.id AND a.position = ? WHERE s.id = ?")

    @staticmethod
    def _session(row: Any) -> SessionRow | None:
        if row is None:
            return None
        return SessionRow(
            id=row[0], platform=row[1], user_id=row[2], chat_id=row[3], quiz_id=row[4],
            kind=SessionKind(row[5]), status=row[6], question_ids=tuple(json.loads(row[7])),
            option_orders=tuple(tuple(o) for o in json.loads(row[8])), position=row[9],
            score=row[10], started_at=row[11], finished_at=row[12], lang=row[13])

    async def get_session(self, session_id: int) -> SessionRow | None:
        """The session with this id, or None."""
        return self._session(await self._fetchone(
            self._SESSION_SQL + "WHERE s.id = ?", (session_id,)))

    async def active_session(self, platform: str, user_id: str, quiz_id: str
                             ) -> SessionRow | None:
        """The user's unfinished session of this quiz, if any."""
        return self._session(await self._fetchone(
            self._SESSION_SQL + "WHERE s.platform = ? AND s.user_id = ? AND s.quiz_id = ? "
            "AND s.status = 'active'", (platform, user_id, quiz_id)))

    async def last_finished(self, platform: str, user_id: str, quiz_id: str
                            ) -> SessionRow | None:
        """The user's most recently finished full attempt of this quiz."""
        return self._session(await self._fetchone(
            self._SESSION_SQL + "WHERE s.platform = ? AND s.user_id = ? AND s.quiz_id = ? "
            "AND s.kind = 'full' AND s.status = 'finished' ORDER BY s.finished_at DESC, s.id DESC "
            "LIMIT 1", (platform, user_id, quiz_id)))

    async def create_session(self, platform: str, user_id: str, chat_id: str | None,
                             quiz_id: str, kind: SessionKind, question_ids: Sequence[str],
                             option_orders: Sequence[Sequence[int]]) -> int:
        """Abandon any unfinished session of this quiz (kept in history) and start a new one."""
        async def op(db: aiosqlite.Connection) -> int:
            await db.execute(
                "UPDATE sessions SET status = 'abandoned' WHERE platform = ? AND user_id = ? "
                "AND quiz_id = ? AND status = 'active'", (platform, user_id, quiz_id))
            cur = await db.execute(
                "INSERT INTO sessions (platform, user_id, chat_id, quiz_id, kind, status, "
                "question_ids, option_orders, started_at) "
                "VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?)",
                (platform, user_id, chat_id, quiz_id, str(kind), json.dumps(list(question_ids)),
                 json.dumps([list(o) for o in option_orders]), time.time()))
            assert cur.lastrowid is not None
            return cur.lastrowid

        return int(await self._write(op))

    # --- answers -------------------------------------------------------------------------

    async def session_and_answer(self, session_id: int, position: int
                                 ) -> tuple[SessionRow | None, AnswerRow | None]:
        """The session and its answer at `position` (if any), in one read."""
        row = await self._fetchone(self._SESSION_ANSWER_SQL, (position, session_id))
        if row is None:
            return None, None
        answer = None if row[14] is None else AnswerRow(
            session_id, position, row[16], row[14], bool(row[15]))
        return self._session(row), answer


    async def get_answer(self, session_id: int, position: int) -> AnswerRow | None:
        """The recorded answer at this position of the session, if any."""
        row = await self._fetchone(
            "SELECT session_id, position, question_id, chosen, correct FROM answers "
            "WHERE session_id = ? AND position = ?", (session_id, position))
        return AnswerRow(row[0], row[1], row[2], row[3], bool(row[4])) if row else None

    async def answers(self, session_id: int) -> list[AnswerRow]:
        """Every answer of the session, in order."""
        rows = await self._fetchall(
            "SELECT session_id, position, question_id, chosen, correct FROM answers "
            "WHERE session_id = ? ORDER BY position", (session_id,))
        return [AnswerRow(r[0], r[1], r[2], r[3], bool(r[4])) for r in rows]

    async def record_answer(self, answer: NewAnswer) -> None:
        """Store the answer (a trigger advances the session); return once committed.

        A repeat of an answer already stored for (session, position) inserts nothing and so
        changes nothing.
        """
        a, now = answer, time.time()
        statements: list[tuple[str, tuple[Any, ...]]] = [
            ("INSERT INTO answers (session_id, position, question_id, chosen, correct, "
             "answered_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
             (a.session_id, a.position, a.question_id, a.chosen, int(a.correct), now)),
        ]
        if a.finished:
            statements.append((
                "UPDATE sessions SET status = 'finished', finished_at = ? "
                "WHERE id = ? AND status = 'active' AND position = ?",
                (now, a.session_id, a.position + 1)))
        if a.finished and a.kind == SessionKind.FULL:
            scopes = [""] + ([f"{a.platform}:{a.chat_id}"] if a.chat_id else [])
            statements += [(
                "INSERT INTO best_scores (quiz_id, scope, platform, user_id, score, total, "
                "finished_at) SELECT ?, ?, ?, ?, score, ?, ? FROM sessions "
                "WHERE id = ? AND status = 'finished' "
                "ON CONFLICT (quiz_id, scope, platform, user_id) DO UPDATE SET "
                "score = excluded.score, total = excluded.total, "
                "finished_at = excluded.finished_at WHERE excluded.score > best_scores.score",
                (a.quiz_id, scope, a.platform, a.user_id, a.total, now, a.session_id))
                for scope in scopes]
        await self._write(tuple(statements))

    # --- stats and leaderboards -----------------------------------------------------------

    async def attempts(self, platform: str, user_id: str, quiz_id: str
                       ) -> tuple[int, int | None, int | None]:
        """(finished full attempts, best score, last score)."""
        row = await self._fetchone(
            "SELECT COUNT(*), MAX(score), (SELECT score FROM sessions WHERE platform = ?1 AND "
            "user_id = ?2 AND quiz_id = ?3 AND kind = 'full' AND status = 'finished' "
            "ORDER BY finished_at DESC, id DESC LIMIT 1) FROM sessions WHERE platform = ?1 AND "
            "user_id = ?2 AND quiz_id = ?3 AND kind = 'full' AND status = 'finished'",
            (platform, user_id, quiz_id))
        return int(row[0]), row[1], row[2]

    async def question_stats(self, platform: str, user_id: str, quiz_id: str
                             ) -> dict[str, tuple[int, int]]:
        """question id -> (times answered, times right), over the user's full attempts."""
        rows = await self._fetchall(
            "SELECT a.question_id, COUNT(*), SUM(a.correct) FROM answers a "
            "JOIN sessions s ON s.id = a.session_id WHERE s.platform = ? AND s.user_id = ? "
            "AND s.quiz_id = ? AND s.kind = 'full' GROUP BY a.question_id",
            (platform, user_id, quiz_id))
        return {r[0]: (int(r[1]), int(r[2])) for r in rows}

    async def best(self, quiz_id: str, scope: str, limit: int) -> list[BestRow]:
        """Top best scores in a scope, ties broken by the earlier finish."""
        rows = await self._fetchall(
            "SELECT b.platform, b.user_id, u.display_name, b.score, b.total, b.finished_at "
            "FROM best_scores b JOIN users u ON u.platform = b.platform AND u.user_id = b.user_id "
            "WHERE b.quiz_id = ? AND b.scope = ? ORDER BY b.score DESC, b.finished_at ASC LIMIT ?",
            (quiz_id, scope, limit))
        return [BestRow(*r) for r in rows]

    async def best_of(self, quiz_id: str, platform: str, user_id: str) -> int | None:
        """The user's global best score on this quiz."""
        row = await self._fetchone(
            "SELECT score FROM best_scores WHERE quiz_id = ? AND scope = '' AND platform = ? "
            "AND user_id = ?", (quiz_id, platform, user_id))
        return int(row[0]) if row else None

    async def reset_user(self, platform: str, user_id: str) -> int:
        """Delete the user's sessions, answers and scores (the language choice stays)."""
        async def op(db: aiosqlite.Connection) -> int:
            await db.execute("DELETE FROM best_scores WHERE platform = ? AND user_id = ?",
                             (platform, user_id))
            cur = await db.execute("DELETE FROM sessions WHERE platform = ? AND user_id = ?",
                                   (platform, user_id))
            return cur.rowcount

        return int(await self._write(op))

    async def close(self) -> None:
        """Finish queued writes, stop the writer, close both connections."""
        if self._closed:
            return
        self._closed = True
        while self._queue:
            batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
            await self._commit(batch)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        await self._w.close()
        await self._r.close()


async def _migrate(db: aiosqlite.Connection, known: list[tuple[int, str, str]]) -> None:
    """Apply every migration newer than the recorded version, each in its own transaction."""
    await db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
        "name TEXT NOT NULL, applied_at REAL NOT NULL)")
    rows = await db.execute_fetchall("SELECT version FROM schema_migrations")
    applied = {r[0] for r in rows}
    for version, name, sql in known:
        if version in applied:
            continue
        await db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(sql):
                await db.execute(statement)
            await db.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)",
                             (version, name, time.time()))
            await db.execute("COMMIT")
        except Exception:
            await db.execute("ROLLBACK")
            raise
        log.info("applied migration %s", name)


def _statements(sql: str) -> list[str]:
    """Split a migration file into statements (sqlite3.complete_statement knows the grammar)."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    return out
