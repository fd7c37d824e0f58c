"""The `Store` on SQLite through aiosqlite: one writer connection, one reader connection.

Writes are units of work run by `GroupCommit` (one fsync for everything queued while the
previous COMMIT ran); each unit is the whole of one engine command, decided inside its
transaction by guarded statements. Reads use a second connection: in WAL mode it sees only
committed data and never waits on a write. Nothing is cached in the process, so several
processes may share one file (SQLite's locks order their write transactions).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import aiosqlite

from bot.domain.errors import ConfigError, StoreUnavailable
from bot.domain.results import SessionKind
from bot.store.group_commit import GroupCommit, fetchall, storage_hint
from bot.store.migrate import (
    check_writable,
    inspect_sqlite,
    migrate_sqlite,
    migrations,
    refuse,
)
from bot.store.protocol import (
    AnswerRow,
    BestRow,
    NewAnswer,
    NewSession,
    Recorded,
    SessionRow,
    Write,
    scopes_of,
)
from bot.store.read_batch import ReadBatch
from bot.store.sqlite_keep import KEEP_BEST_SQL
from bot.store.sqlite_learning import SQLiteLearning, apply_review
from bot.store.sqlite_rounds import SQLiteRounds

log = logging.getLogger(__name__)

SYNCHRONOUS = ("FULL", "NORMAL")
BUSY_TIMEOUT_MS = 5000

_SESSION_COLUMNS = (
    "s.id, s.platform, s.user_id, s.chat_id, s.quiz_id, s.kind, s.status, s.question_ids, "
    "s.option_orders, s.position, s.score, s.started_at, s.finished_at, u.lang, "
    "COALESCE(ls.confidence, 0) AS confidence, COALESCE(ls.utc_offset, 0) AS utc_offset, "
    "s.seed")
# The owner's language, confidence setting and UTC offset come with the session: a tap
# needs one read.
_SESSION_FROM = (
    "FROM sessions s JOIN users u ON u.platform = s.platform AND u.user_id = s.user_id "
    "LEFT JOIN learner_settings ls ON ls.platform = s.platform AND ls.user_id = s.user_id ")
_SESSION_SQL = f"SELECT {_SESSION_COLUMNS} {_SESSION_FROM}"


def path_from_url(url: str) -> Path:
    """`sqlite:///relative.db` or `sqlite:////absolute.db` (SQLAlchemy's form) to a path."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or len(url) == len(prefix):
        scheme = url.split(":", 1)[0] if ":" in url else "no scheme"
        raise ConfigError(
            "storage.url must look like sqlite:///data/quizbot.db or sqlite:////abs/path.db "
            f"(got a URL with {scheme!r})")
    return Path(unquote(url[len(prefix):]))


def session_of(row: Any) -> SessionRow | None:
    """A SessionRow from a row with the _SESSION_COLUMNS names, or None."""
    if row is None:
        return None
    return SessionRow(
        id=row["id"], platform=row["platform"], user_id=row["user_id"], chat_id=row["chat_id"],
        quiz_id=row["quiz_id"], kind=SessionKind(row["kind"]), status=row["status"],
        question_ids=tuple(json.loads(row["question_ids"])),
        option_orders=tuple(tuple(o) for o in json.loads(row["option_orders"])),
        position=row["position"], score=row["score"], started_at=row["started_at"],
        finished_at=row["finished_at"], lang=row["lang"],
        # sqlite3.Row and asyncpg.Record: `in` looks at values, keys() at names
        confidence=bool(row["confidence"]) if "confidence" in row.keys() else False,  # noqa: SIM118
        utc_offset=int(row["utc_offset"]) if "utc_offset" in row.keys() else None,  # noqa: SIM118
        seed=None if row["seed"] is None else int(row["seed"]))


def answer_of(session_id: int, position: int, row: Any) -> AnswerRow:
    return AnswerRow(session_id, position, row["question_id"], row["chosen"],
                     bool(row["correct"]))


class SQLiteStore(SQLiteRounds, SQLiteLearning):
    """Store on one SQLite file (the learning half in `sqlite_learning`, rounds in
    `sqlite_rounds`)."""

    def __init__(self, path: Path, writer: aiosqlite.Connection, reader: aiosqlite.Connection,
                 *, on_commit: Callable[[float], None] | None = None) -> None:
        self.path = path
        self._r = reader
        self._reads = ReadBatch(reader)
        self._w = writer
        self._writes = GroupCommit(writer, on_commit)

    @property
    def on_commit(self) -> Callable[[float], None] | None:
        """Called with each COMMIT's duration in seconds (metrics)."""
        return self._writes.on_commit

    @on_commit.setter
    def on_commit(self, callback: Callable[[float], None] | None) -> None:
        self._writes.on_commit = callback

    @property
    def commits(self) -> int:
        """Transactions committed so far (benchmarks and tests)."""
        return self._writes.commits

    @classmethod
    async def open(cls, url_or_path: str | Path, *, synchronous: str = "FULL",
                   on_commit: Callable[[float], None] | None = None) -> SQLiteStore:
        """Open (creating if needed) and migrate; refuse unusable files without touching them."""
        path = path_from_url(url_or_path) if isinstance(url_or_path, str) else url_or_path
        if synchronous.upper() not in SYNCHRONOUS:
            raise ConfigError(f"storage.synchronous must be full or normal, got {synchronous!r}")
        known = migrations("sqlite")
        latest = known[-1][0]
        if path.is_file() and path.stat().st_size > 0:
            version = await inspect_sqlite(path, known)
            if version > latest:
                raise refuse(path, f"its schema is version {version}, newer than this "
                                   f"quizbot understands ({latest}); upgrade quizbot")
        check_writable(path)
        conns: list[aiosqlite.Connection] = []
        try:
            for _ in ("writer", "reader"):
                conn = await aiosqlite.connect(path, isolation_level=None)
                conns.append(conn)
                conn.row_factory = aiosqlite.Row
                await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                await conn.execute("PRAGMA journal_mode = WAL")
                await conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
                await conn.execute("PRAGMA foreign_keys = ON")
            writer, reader = conns
            await migrate_sqlite(writer, known)
        except BaseException as exc:
            for conn in conns:  # an open aiosqlite thread would keep the process alive
                await conn.close()
            if isinstance(exc, sqlite3.OperationalError):
                raise StoreUnavailable(
                    f"cannot write the database {path}: {exc}; {storage_hint(exc)}") from None
            raise
        return cls(path, writer, reader, on_commit=on_commit)

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return await self._reads.all(sql, params)

    async def _one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = await self._all(sql, params)
        return rows[0] if rows else None

    # --- users ---------------------------------------------------------------------------

    async def touch_user(self, platform: str, user_id: str, display_name: str) -> str | None:
        """Create the user or update their name; return their chosen language, if any."""
        row = await self._one(
            "SELECT display_name, lang FROM users WHERE platform = ? AND user_id = ?",
            (platform, user_id))
        if row is not None and (row["display_name"] == display_name or not display_name):
            return row["lang"]  # type: ignore[no-any-return]

        def unit(db: sqlite3.Connection) -> str | None:
            rows = fetchall(db,
                "INSERT INTO users (platform, user_id, display_name, created_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (platform, user_id) "
                "DO UPDATE SET display_name = excluded.display_name RETURNING lang",
                (platform, user_id, display_name, time.time()))
            return next(iter(rows))["lang"]  # type: ignore[no-any-return]

        return await self._writes.run(unit)

    async def set_language(self, platform: str, user_id: str, lang: str) -> None:
        """Persist the user's language choice (creating the user if needed)."""
        def unit(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO users (platform, user_id, lang, created_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (platform, user_id) DO UPDATE SET lang = excluded.lang",
                (platform, user_id, lang, time.time()))

        await self._writes.run(unit)

    # --- sessions ------------------------------------------------------------------------

    async def get_session(self, session_id: int) -> SessionRow | None:
        """The session with this id, or None."""
        return session_of(await self._one(_SESSION_SQL + "WHERE s.id = ?", (session_id,)))

    async def active_session(self, platform: str, user_id: str, quiz_id: str
                             ) -> SessionRow | None:
        """The user's unfinished session of this quiz, if any."""
        return session_of(await self._one(
            _SESSION_SQL + "WHERE s.platform = ? AND s.user_id = ? AND s.quiz_id = ? "
            "AND s.status = 'active'", (platform, user_id, quiz_id)))

    async def last_finished(self, platform: str, user_id: str, quiz_id: str
                            ) -> SessionRow | None:
        """The user's most recently finished full attempt of this quiz."""
        return session_of(await self._one(
            _SESSION_SQL + "WHERE s.platform = ? AND s.user_id = ? AND s.quiz_id = ? "
            "AND s.kind = 'full' AND s.status = 'finished' "
            "ORDER BY s.finished_at DESC, s.id DESC LIMIT 1", (platform, user_id, quiz_id)))

    async def start_session(self, new: NewSession, *, replace: bool) -> SessionRow:
        """The active session unless `replace`; else abandon it and store `new` (one txn)."""
        n = new

        def unit(db: sqlite3.Connection) -> SessionRow:
            if not replace:
                rows = fetchall(db,
                    _SESSION_SQL + "WHERE s.platform = ? AND s.user_id = ? AND s.quiz_id = ? "
                    "AND s.status = 'active'", (n.platform, n.user_id, n.quiz_id))
                if rows:
                    found = session_of(next(iter(rows)))
                    assert found is not None
                    return found
            db.execute(
                "UPDATE sessions SET status = 'abandoned' WHERE platform = ? AND user_id = ? "
                "AND quiz_id = ? AND status = 'active'", (n.platform, n.user_id, n.quiz_id))
            rows = fetchall(db,
                "INSERT INTO sessions (platform, user_id, chat_id, quiz_id, kind, status, "
                "question_ids, option_orders, started_at, seed) "
                "VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?, ?) RETURNING id",
                (n.platform, n.user_id, n.chat_id, n.quiz_id, str(n.kind),
                 json.dumps(list(n.question_ids)), json.dumps([list(o) for o in n.option_orders]),
                 time.time(), n.seed))
            session_id = next(iter(rows))["id"]
            found = session_of(next(iter(fetchall(db,
                _SESSION_SQL + "WHERE s.id = ?", (session_id,)))))
            assert found is not None
            return found

        return await self._writes.run(unit)

    # --- answers -------------------------------------------------------------------------

    async def session_and_answer(self, session_id: int, position: int
                                 ) -> tuple[SessionRow | None, AnswerRow | None]:
        """The session and its answer at `position` (if any), in one read."""
        row = await self._one(
            f"SELECT {_SESSION_COLUMNS}, a.question_id AS a_question, a.chosen, a.correct "
            f"{_SESSION_FROM}"
            "LEFT JOIN answers a ON a.session_id = s.id AND a.position = ? WHERE s.id = ?",
            (position, session_id))
        if row is None:
            return None, None
        answer = None if row["chosen"] is None else AnswerRow(
            session_id, position, row["a_question"], row["chosen"], bool(row["correct"]))
        return session_of(row), answer

    async def answers(self, session_id: int) -> list[AnswerRow]:
        """Every answer of the session, in position order."""
        rows = await self._all(
            "SELECT position, question_id, chosen, correct FROM answers WHERE session_id = ? "
            "ORDER BY position", (session_id,))
        return [answer_of(session_id, r["position"], r) for r in rows]

    async def record_answer(self, answer: NewAnswer) -> Recorded:
        """Guarded advance, then the answer row, then (on the last question) the best score.

        The UPDATE only matches a session that is active and still at this position, so of
        two deliveries of one tap (or two processes, or a reset racing an answer) exactly one
        applies; the others find the stored answer (REPEAT) or nothing (STALE).
        """
        a = answer

        def unit(db: sqlite3.Connection) -> Recorded:
            now = time.time()
            advanced = fetchall(db,
                "UPDATE sessions SET position = position + 1, score = score + ?, "
                "status = CASE WHEN ? THEN 'finished' ELSE status END, "
                "finished_at = CASE WHEN ? THEN ? ELSE finished_at END "
                "WHERE id = ? AND position = ? AND status = 'active' RETURNING score",
                (int(a.correct), a.finished, a.finished, now, a.session_id, a.position))
            if not advanced:
                rows = fetchall(db,
                    "SELECT question_id, chosen, correct FROM answers "
                    "WHERE session_id = ? AND position = ?", (a.session_id, a.position))
                if rows:
                    stored = answer_of(a.session_id, a.position, next(iter(rows)))
                    return Recorded(Write.REPEAT, stored, 0)
                return Recorded(Write.STALE, None, 0)
            score = int(next(iter(advanced))["score"])
            db.execute(
                "INSERT INTO answers (session_id, position, question_id, chosen, correct, "
                "answered_at) VALUES (?, ?, ?, ?, ?, ?)",
                (a.session_id, a.position, a.question_id, a.chosen, int(a.correct), now))
            if a.finished and a.kind == SessionKind.FULL:
                db.executemany(
                    KEEP_BEST_SQL,
                    [(a.quiz_id, scope, a.platform, a.user_id, score, a.total, now)
                     for scope in scopes_of(a.platform, a.chat_id)])
            if a.review is not None:  # the learner's card moves with the answer, or not at all
                apply_review(db, a.review)
            stored = AnswerRow(a.session_id, a.position, a.question_id, a.chosen, a.correct)
            return Recorded(Write.APPLIED, stored, score)

        return await self._writes.run(unit)

    # --- stats and leaderboards -----------------------------------------------------------

    async def attempts(self, platform: str, user_id: str, quiz_id: str
                       ) -> tuple[int, int | None, int | None]:
        """(finished full attempts, best score, last score)."""
        row = await self._one(
            "SELECT COUNT(*) AS n, MAX(score) AS best, (SELECT score FROM sessions "
            "WHERE platform = ?1 AND user_id = ?2 AND quiz_id = ?3 AND kind = 'full' "
            "AND status = 'finished' ORDER BY finished_at DESC, id DESC LIMIT 1) AS last "
            "FROM sessions WHERE platform = ?1 AND user_id = ?2 AND quiz_id = ?3 "
            "AND kind = 'full' AND status = 'finished'", (platform, user_id, quiz_id))
        return int(row["n"]), row["best"], row["last"]

    async def question_stats(self, platform: str, user_id: str, quiz_id: str
                             ) -> dict[str, tuple[int, int]]:
        """question id -> (times answered, times right), over the user's full attempts."""
        rows = await self._all(
            "SELECT a.question_id, COUNT(*) AS n, SUM(a.correct) AS right FROM answers a "
            "JOIN sessions s ON s.id = a.session_id WHERE s.platform = ? AND s.user_id = ? "
            "AND s.quiz_id = ? AND s.kind = 'full' GROUP BY a.question_id",
            (platform, user_id, quiz_id))
        return {r["question_id"]: (int(r["n"]), int(r["right"])) for r in rows}

    async def best(self, quiz_id: str, scope: str, limit: int) -> list[BestRow]:
        """Top best scores in a scope, ties broken by the earlier finish."""
        rows = await self._all(
            "SELECT b.platform, b.user_id, u.display_name, b.score, b.total, b.finished_at "
            "FROM best_scores b JOIN users u ON u.platform = b.platform AND u.user_id = b.user_id "
            "WHERE b.quiz_id = ? AND b.scope = ? ORDER BY b.score DESC, b.finished_at ASC LIMIT ?",
            (quiz_id, scope, limit))
        return [BestRow(r["platform"], r["user_id"], r["display_name"], r["score"], r["total"],
                        r["finished_at"]) for r in rows]

    async def best_of(self, quiz_id: str, platform: str, user_id: str) -> int | None:
        """The user's global best score on this quiz."""
        row = await self._one(
            "SELECT score FROM best_scores WHERE quiz_id = ? AND scope = '' AND platform = ? "
            "AND user_id = ?", (quiz_id, platform, user_id))
        return int(row["score"]) if row else None

    async def reset_user(self, platform: str, user_id: str) -> int:
        """Delete the user's sessions, answers and scores (the language choice stays)."""
        def unit(db: sqlite3.Connection) -> int:
            for sql in ("DELETE FROM best_scores WHERE platform = ? AND user_id = ?",
                        "DELETE FROM cards WHERE platform = ? AND user_id = ?",
                        "DELETE FROM reviews WHERE platform = ? AND user_id = ?"):
                db.execute(sql, (platform, user_id))
            cur = db.execute("DELETE FROM sessions WHERE platform = ? AND user_id = ?",
                                   (platform, user_id))
            return cur.rowcount

        return await self._writes.run(unit)

    async def close(self) -> None:
        """Commit queued writes, then close both connections."""
        try:
            await self._writes.close()
        finally:
            await self._reads.close()
            await self._w.close()
            await self._r.close()
