"""The `Store` on PostgreSQL through asyncpg: a connection pool, one transaction per write.

Every write method is one `async with conn.transaction()` at READ COMMITTED. That is enough
because each rule is a guarded statement: `record_answer`'s UPDATE only matches a session
that is active and at the answered position, and a second UPDATE of the same row waits for
the first to commit and then re-checks its WHERE against the new row, so of any number of
deliveries through any number of processes exactly one applies. `start_session` and
`reset_user` first lock the user's row (`FOR NO KEY UPDATE`), so one user's starts and resets
run one after another, while answers (whose foreign-key checks take only KEY SHARE) never
wait on them. Locks are always taken user -> session -> best score -> review -> card (and
round -> round question, see `postgres_rounds`), so writers cannot deadlock on each other; a
deadlock or serialization failure anyway (say, a manual UPDATE) is retried, the whole unit
again (a review's card update is pure, so it may run twice).

The learning half (cards, reviews, settings, jobs) is `postgres_learning`, rounds are
`postgres_rounds`; both mirror their SQLite counterparts statement for statement.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import asyncpg

from bot.domain.errors import StoreRefused
from bot.domain.results import SessionKind
from bot.domain.secret import Secret
from bot.store.pg_migrate import migrate_postgres
from bot.store.postgres_learning import PostgresLearning, apply_review
from bot.store.postgres_rounds import PostgresRounds
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
from bot.store.sqlite import answer_of, session_of
from bot.store.urls import redact, split_password

log = logging.getLogger(__name__)

T = TypeVar("T")
Conn = Any  # asyncpg.Connection (asyncpg ships no type hints)
RETRIES = 3
CLOSE_TIMEOUT = 10.0

_SESSION_COLUMNS = (
    "s.id, s.platform, s.user_id, s.chat_id, s.quiz_id, s.kind, s.status, "
    "s.question_ids::text AS question_ids, s.option_orders::text AS option_orders, "
    "s.position, s.score, s.started_at, s.finished_at, u.lang, "
    "COALESCE(ls.confidence, FALSE) AS confidence, COALESCE(ls.utc_offset, 0) AS utc_offset, "
    "s.seed")
# The owner's language, confidence setting and UTC offset come with the session: a tap
# needs one read (as on SQLite).
_SESSION_FROM = (
    "FROM sessions s JOIN users u ON u.platform = s.platform AND u.user_id = s.user_id "
    "LEFT JOIN learner_settings ls ON ls.platform = s.platform AND ls.user_id = s.user_id ")
_SESSION_SQL = f"SELECT {_SESSION_COLUMNS} {_SESSION_FROM}"
_RETRYABLE = (asyncpg.exceptions.DeadlockDetectedError,
              asyncpg.exceptions.SerializationError)


class PostgresStore(PostgresRounds, PostgresLearning):
    """Store on one PostgreSQL database, shared by any number of processes (the learning
    half in `postgres_learning`, rounds in `postgres_rounds`)."""

    def __init__(self, url: str, pool: Any) -> None:
        self.url = url  # redacted: safe to show
        self._pool = pool
        self.commits = 0  # write transactions committed by this process
        self.on_commit: Callable[[float], None] | None = None  # metrics: seconds per write

    def __repr__(self) -> str:
        return f"PostgresStore({self.url!r})"

    @classmethod
    async def open(cls, url: str, *, password: Secret | None = None, pool_size: int = 10,
                   ) -> PostgresStore:
        """Connect, refuse a database that is not ours (untouched), migrate, pool.

        `url` should come without a password (pass it as `password`); one left in the URL
        still works, and is redacted from every message.
        """
        shown = redact(url)
        secret = password.reveal() if password else None
        try:
            conn = await asyncpg.connect(url, password=secret or None)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise StoreRefused(f"Cannot use the database {shown}: "
                               f"{_scrub(exc, url, secret)}") from None
        try:
            await migrate_postgres(conn, shown)
        finally:
            await conn.close()
        try:
            pool = await asyncpg.create_pool(url, password=secret or None,
                                             min_size=min(2, pool_size), max_size=pool_size)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise StoreRefused(f"Cannot use the database {shown}: "
                               f"{_scrub(exc, url, secret)}") from None
        log.info("storage: %s (pool of %d)", shown, pool_size)
        return cls(shown, pool)

    async def _write(self, unit: Callable[[Conn], Awaitable[T]]) -> T:
        """Run `unit` in one transaction; retry it whole after a deadlock."""
        for attempt in range(RETRIES):
            try:
                started = time.perf_counter()
                async with self._pool.acquire() as conn, conn.transaction():
                    result = await unit(conn)
                self.commits += 1
                if self.on_commit is not None:
                    self.on_commit(time.perf_counter() - started)
                return result
            except _RETRYABLE as exc:
                if attempt == RETRIES - 1:
                    raise
                log.info("retrying a write after %s", type(exc).__name__)
                await asyncio.sleep(0.01 * (attempt + 1))
        raise AssertionError("unreachable")

    # --- users ---------------------------------------------------------------------------

    async def touch_user(self, platform: str, user_id: str, display_name: str) -> str | None:
        """Create the user or update their name; return their chosen language, if any."""
        row = await self._pool.fetchrow(
            "SELECT display_name, lang FROM users WHERE platform = $1 AND user_id = $2",
            platform, user_id)
        if row is not None and (row["display_name"] == display_name or not display_name):
            return _str_or_none(row["lang"])

        async def unit(db: Conn) -> str | None:
            return _str_or_none(await db.fetchval(
                "INSERT INTO users (platform, user_id, display_name, created_at) "
                "VALUES ($1, $2, $3, $4) ON CONFLICT (platform, user_id) "
                "DO UPDATE SET display_name = excluded.display_name RETURNING lang",
                platform, user_id, display_name, time.time()))

        return await self._write(unit)

    async def set_language(self, platform: str, user_id: str, lang: str) -> None:
        """Persist the user's language choice (creating the user if needed)."""
        async def unit(db: Conn) -> None:
            await db.execute(
                "INSERT INTO users (platform, user_id, lang, created_at) "
                "VALUES ($1, $2, $3, $4) "
                "ON CONFLICT (platform, user_id) DO UPDATE SET lang = excluded.lang",
                platform, user_id, lang, time.time())

        await self._write(unit)

    # --- sessions ------------------------------------------------------------------------

    async def get_session(self, session_id: int) -> SessionRow | None:
        """The session with this id, or None."""
        return session_of(await self._pool.fetchrow(_SESSION_SQL + "WHERE s.id = $1",
                                                    session_id))

    async def active_session(self, platform: str, user_id: str, quiz_id: str
                             ) -> SessionRow | None:
        """The user's unfinished session of this quiz, if any."""
        return session_of(await self._pool.fetchrow(
            _SESSION_SQL + "WHERE s.platform = $1 AND s.user_id = $2 AND s.quiz_id = $3 "
            "AND s.status = 'active'", platform, user_id, quiz_id))

    async def last_finished(self, platform: str, user_id: str, quiz_id: str
                            ) -> SessionRow | None:
        """The user's most recently finished full attempt of this quiz."""
        return session_of(await self._pool.fetchrow(
            _SESSION_SQL + "WHERE s.platform = $1 AND s.user_id = $2 AND s.quiz_id = $3 "
            "AND s.kind = 'full' AND s.status = 'finished' "
            "ORDER BY s.finished_at DESC, s.id DESC LIMIT 1", platform, user_id, quiz_id))

    async def start_session(self, new: NewSession, *, replace: bool) -> SessionRow:
        """The active session unless `replace`; else abandon it and store `new` (one txn).

        The user's row is locked first, so two starts of one user (two processes, a double
        tap) run one after the other: the second sees the first's session.
        """
        n = new

        async def unit(db: Conn) -> SessionRow:
            await db.execute("SELECT 1 FROM users WHERE platform = $1 AND user_id = $2 "
                             "FOR NO KEY UPDATE", n.platform, n.user_id)
            if not replace:
                found = session_of(await db.fetchrow(
                    _SESSION_SQL + "WHERE s.platform = $1 AND s.user_id = $2 "
                    "AND s.quiz_id = $3 AND s.status = 'active'",
                    n.platform, n.user_id, n.quiz_id))
                if found is not None:
                    return found
            await db.execute(
                "UPDATE sessions SET status = 'abandoned' WHERE platform = $1 "
                "AND user_id = $2 AND quiz_id = $3 AND status = 'active'",
                n.platform, n.user_id, n.quiz_id)
            session_id = await db.fetchval(
                "INSERT INTO sessions (platform, user_id, chat_id, quiz_id, kind, status, "
                "question_ids, option_orders, started_at, seed) "
                "VALUES ($1, $2, $3, $4, $5, 'active', $6::jsonb, $7::jsonb, $8, $9) "
                "RETURNING id",
                n.platform, n.user_id, n.chat_id, n.quiz_id, str(n.kind),
                json.dumps(list(n.question_ids)),
                json.dumps([list(o) for o in n.option_orders]), time.time(), n.seed)
            found = session_of(await db.fetchrow(_SESSION_SQL + "WHERE s.id = $1", session_id))
            assert found is not None
            return found

        return await self._write(unit)

    # --- answers -------------------------------------------------------------------------

    async def session_and_answer(self, session_id: int, position: int
                                 ) -> tuple[SessionRow | None, AnswerRow | None]:
        """The session and its answer at `position` (if any), in one read."""
        row = await self._pool.fetchrow(
            f"SELECT {_SESSION_COLUMNS}, a.question_id AS a_question, a.chosen, a.correct "
            f"{_SESSION_FROM}"
            "LEFT JOIN answers a ON a.session_id = s.id AND a.position = $1 WHERE s.id = $2",
            position, session_id)
        if row is None:
            return None, None
        answer = None if row["chosen"] is None else AnswerRow(
            session_id, position, row["a_question"], row["chosen"], bool(row["correct"]))
        return session_of(row), answer

    async def answers(self, session_id: int) -> list[AnswerRow]:
        """Every answer of the session, in position order."""
        rows = await self._pool.fetch(
            "SELECT position, question_id, chosen, correct FROM answers "
            "WHERE session_id = $1 ORDER BY position", session_id)
        return [answer_of(session_id, r["position"], r) for r in rows]

    async def record_answer(self, answer: NewAnswer) -> Recorded:
        """Guarded advance, then the answer row, then (on the last question) the best score."""
        a = answer

        async def unit(db: Conn) -> Recorded:
            now = time.time()
            score = await db.fetchval(
                "UPDATE sessions SET position = position + 1, score = score + $1, "
                "status = CASE WHEN $2 THEN 'finished' ELSE status END, "
                "finished_at = CASE WHEN $2 THEN $3::double precision ELSE finished_at END "
                "WHERE id = $4 AND position = $5 AND status = 'active' RETURNING score",
                int(a.correct), a.finished, now, a.session_id, a.position)
            if score is None:
                row = await db.fetchrow(
                    "SELECT question_id, chosen, correct FROM answers "
                    "WHERE session_id = $1 AND position = $2", a.session_id, a.position)
                if row is not None:
                    return Recorded(Write.REPEAT, answer_of(a.session_id, a.position, row), 0)
                return Recorded(Write.STALE, None, 0)
            await db.execute(
                "INSERT INTO answers (session_id, position, question_id, chosen, correct, "
                "answered_at) VALUES ($1, $2, $3, $4, $5, $6)",
                a.session_id, a.position, a.question_id, a.chosen, a.correct, now)
            if a.finished and a.kind == SessionKind.FULL:
                await db.executemany(
                    "INSERT INTO best_scores (quiz_id, scope, platform, user_id, score, total, "
                    "finished_at) VALUES ($1, $2, $3, $4, $5, $6, $7) "
                    "ON CONFLICT (quiz_id, scope, platform, user_id) DO UPDATE SET "
                    "score = excluded.score, total = excluded.total, "
                    "finished_at = excluded.finished_at WHERE excluded.score > best_scores.score",
                    [(a.quiz_id, scope, a.platform, a.user_id, score, a.total, now)
                     for scope in scopes_of(a.platform, a.chat_id)])
            if a.review is not None:  # the learner's card moves with the answer, or not at all
                await apply_review(db, a.review)
            stored = AnswerRow(a.session_id, a.position, a.question_id, a.chosen, a.correct)
            return Recorded(Write.APPLIED, stored, int(score))

        return await self._write(unit)

    # --- stats and leaderboards -----------------------------------------------------------

    async def attempts(self, platform: str, user_id: str, quiz_id: str
                       ) -> tuple[int, int | None, int | None]:
        """(finished full attempts, best score, last score)."""
        row = await self._pool.fetchrow(
            "SELECT COUNT(*) AS n, MAX(score) AS best, (SELECT score FROM sessions "
            "WHERE platform = $1 AND user_id = $2 AND quiz_id = $3 AND kind = 'full' "
            "AND status = 'finished' ORDER BY finished_at DESC, id DESC LIMIT 1) AS last "
            "FROM sessions WHERE platform = $1 AND user_id = $2 AND quiz_id = $3 "
            "AND kind = 'full' AND status = 'finished'", platform, user_id, quiz_id)
        return int(row["n"]), row["best"], row["last"]

    async def question_stats(self, platform: str, user_id: str, quiz_id: str
                             ) -> dict[str, tuple[int, int]]:
        """question id -> (times answered, times right), over the user's full attempts."""
        rows = await self._pool.fetch(
            "SELECT a.question_id, COUNT(*) AS n, COUNT(*) FILTER (WHERE a.correct) AS right_ "
            "FROM answers a JOIN sessions s ON s.id = a.session_id WHERE s.platform = $1 "
            "AND s.user_id = $2 AND s.quiz_id = $3 AND s.kind = 'full' "
            "GROUP BY a.question_id", platform, user_id, quiz_id)
        return {r["question_id"]: (int(r["n"]), int(r["right_"])) for r in rows}

    async def best(self, quiz_id: str, scope: str, limit: int) -> list[BestRow]:
        """Top best scores in a scope, ties broken by the earlier finish."""
        rows = await self._pool.fetch(
            "SELECT b.platform, b.user_id, u.display_name, b.score, b.total, b.finished_at "
            "FROM best_scores b JOIN users u ON u.platform = b.platform "
            "AND u.user_id = b.user_id WHERE b.quiz_id = $1 AND b.scope = $2 "
            "ORDER BY b.score DESC, b.finished_at ASC LIMIT $3", quiz_id, scope, limit)
        return [BestRow(r["platform"], r["user_id"], r["display_name"], r["score"], r["total"],
                        r["finished_at"]) for r in rows]

    async def best_of(self, quiz_id: str, platform: str, user_id: str) -> int | None:
        """The user's global best score on this quiz."""
        score = await self._pool.fetchval(
            "SELECT score FROM best_scores WHERE quiz_id = $1 AND scope = '' "
            "AND platform = $2 AND user_id = $3", quiz_id, platform, user_id)
        return None if score is None else int(score)

    async def reset_user(self, platform: str, user_id: str) -> int:
        """Delete the user's sessions, answers, scores, cards and reviews (the language and
        learning settings stay).

        Sessions go first (an answer in flight holds its session's row, so the reset waits
        for it and then deletes what it wrote), and reviews before cards, the order
        `apply_review` takes them in.
        """
        async def unit(db: Conn) -> int:
            await db.execute("SELECT 1 FROM users WHERE platform = $1 AND user_id = $2 "
                             "FOR NO KEY UPDATE", platform, user_id)
            gone = await db.fetch("DELETE FROM sessions WHERE platform = $1 AND user_id = $2 "
                                  "RETURNING id", platform, user_id)
            for table in ("best_scores", "reviews", "cards"):
                await db.execute(f"DELETE FROM {table} WHERE platform = $1 AND user_id = $2",
                                 platform, user_id)
            return len(gone)

        return await self._write(unit)

    async def close(self) -> None:
        """Wait for writes in flight (bounded), then close every connection."""
        try:
            await asyncio.wait_for(self._pool.close(), CLOSE_TIMEOUT)
        except TimeoutError:
            log.warning("storage: connections still busy after %.0f s; terminating",
                        CLOSE_TIMEOUT)
            self._pool.terminate()


def _str_or_none(value: object) -> str | None:
    return None if value is None else str(value)


def _scrub(exc: BaseException, url: str, password: str | None) -> str:
    """The driver's message, with the URL redacted and the password gone, whatever it said."""
    text = str(exc).replace(url, redact(url)) or type(exc).__name__
    for secret in filter(None, (password, split_password(url)[1])):
        text = text.replace(secret, "***")
    return text
