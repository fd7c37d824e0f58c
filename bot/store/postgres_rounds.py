"""Rounds on PostgreSQL: the `RoundStore` half of `PostgresStore`.

The statements are those of `sqlite_rounds`; what SQLite gets from its single writer is
made explicit with row locks, taken in one order (round, then question) so that writers
wait on each other but cannot deadlock:

- who opens a question, reveals it, stops or skips a round is decided by a guarded
  `UPDATE ... WHERE ... RETURNING` (a second UPDATE of the row waits for the first to
  commit, then re-checks its WHERE against the new row and matches nothing);
- a reveal locks the rounds it reveals first, like `stop_round`;
- a press locks its question row (`FOR NO KEY UPDATE`), so presses on one question run one
  after another and a reveal waits for a press in flight (or the press sees the reveal):
  an answer is either in the reveal or refused as late, and "every member has answered"
  is counted over every committed press.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bot.store.protocol import BestRow, scopes_of
from bot.store.round_rows import (
    NewPress,
    NewRound,
    OpenedQuestion,
    Pressed,
    PressWrite,
    Reveal,
    RoundAnswer,
    RoundRow,
)
from bot.store.sqlite_rounds import round_of

T = TypeVar("T")
Conn = Any  # asyncpg.Connection (asyncpg ships no type hints)

_ROUND_COLUMNS = (
    "id, platform, chat_id, board_chat, host_id, host_name, quiz_id, lang, "
    "question_ids::text AS question_ids, option_orders::text AS option_orders, seconds, "
    "reveal_pause, status, position, next_open_at, started_at, finished_at, seed")
_ROUND_SQL = f"SELECT {_ROUND_COLUMNS} FROM rounds "


async def _round(db: Conn, round_id: int) -> RoundRow:
    found = round_of(await db.fetchrow(_ROUND_SQL + "WHERE id = $1", round_id))
    assert found is not None
    return found


async def _answers(db: Conn, round_id: int, upto: int) -> tuple[RoundAnswer, ...]:
    rows = await db.fetch(
        "SELECT user_id, display_name, qindex, chosen, correct, elapsed FROM round_answers "
        "WHERE round_id = $1 AND qindex <= $2 ORDER BY qindex, elapsed, user_id",
        round_id, upto)
    return tuple(RoundAnswer(r["user_id"], r["display_name"], int(r["qindex"]), int(r["chosen"]),
                             bool(r["correct"]), float(r["elapsed"])) for r in rows)


async def _record_participants(db: Conn, rnd: RoundRow, upto: int, now: float) -> None:
    """One finished full session per member over questions 0..upto (see sqlite_rounds)."""
    if upto < 0:
        return
    answers = await _answers(db, rnd.id, upto)
    members: dict[str, list[RoundAnswer]] = {}
    for a in answers:
        members.setdefault(a.user_id, []).append(a)
    question_ids = list(rnd.question_ids[: upto + 1])
    orders = [list(o) for o in rnd.option_orders[: upto + 1]]
    for user_id, theirs in sorted(members.items()):
        score = sum(a.correct for a in theirs)
        await db.execute(
            "INSERT INTO users (platform, user_id, display_name, created_at) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT (platform, user_id) DO NOTHING",
            rnd.platform, user_id, theirs[0].display_name, now)
        session_id = await db.fetchval(
            "INSERT INTO sessions (platform, user_id, chat_id, quiz_id, kind, status, "
            "question_ids, option_orders, position, score, started_at, finished_at, "
            "round_id, seed) VALUES ($1, $2, $3, $4, 'full', 'finished', $5::jsonb, "
            "$6::jsonb, $7, $8, $9, $10, $11, $12) RETURNING id",
            rnd.platform, user_id, rnd.board_chat, rnd.quiz_id, json.dumps(question_ids),
            json.dumps(orders), len(question_ids), score, rnd.started_at, now, rnd.id,
            rnd.seed)
        await db.executemany(
            "INSERT INTO answers (session_id, position, question_id, chosen, correct, "
            "answered_at) VALUES ($1, $2, $3, $4, $5, $6)",
            [(session_id, a.qindex, rnd.question_ids[a.qindex], a.chosen, a.correct, now)
             for a in theirs])
        await db.executemany(
            "INSERT INTO best_scores (quiz_id, scope, platform, user_id, score, total, "
            "finished_at) VALUES ($1, $2, $3, $4, $5, $6, $7) "
            "ON CONFLICT (quiz_id, scope, platform, user_id) DO UPDATE SET "
            "score = excluded.score, total = excluded.total, "
            "finished_at = excluded.finished_at WHERE excluded.score > best_scores.score",
            [(rnd.quiz_id, scope, rnd.platform, user_id, score, len(question_ids), now)
             for scope in scopes_of(rnd.platform, rnd.board_chat)])


async def _after_reveal(db: Conn, round_id: int, qindex: int, now: float) -> RoundRow:
    rnd = await _round(db, round_id)
    if not rnd.active:
        return rnd
    if qindex + 1 < rnd.total:
        await db.execute("UPDATE rounds SET next_open_at = $1 WHERE id = $2 AND "
                         "status = 'active'", now + rnd.reveal_pause, round_id)
    else:
        await db.execute("UPDATE rounds SET status = 'finished', finished_at = $1, "
                         "next_open_at = NULL WHERE id = $2 AND status = 'active'",
                         now, round_id)
        await _record_participants(db, rnd, qindex, now)
    return await _round(db, round_id)


class PostgresRounds:
    """Mixed into `PostgresStore`, which provides the pool and `_write`."""

    _pool: Any

    async def _write(self, unit: Callable[[Conn], Awaitable[T]]) -> T:
        raise NotImplementedError  # PostgresStore's

    async def create_round(self, new: NewRound, now: float) -> RoundRow | None:
        """Store a round whose first question opens at `now`; None if one is running."""
        n = new

        async def unit(db: Conn) -> RoundRow | None:
            round_id = await db.fetchval(
                "INSERT INTO rounds (platform, chat_id, board_chat, host_id, host_name, "
                "quiz_id, lang, question_ids, option_orders, seconds, reveal_pause, status, "
                "next_open_at, started_at, seed) VALUES ($1, $2, $3, $4, $5, $6, $7, "
                "$8::jsonb, $9::jsonb, $10, $11, 'active', $12, $12, $13) "
                "ON CONFLICT DO NOTHING RETURNING id",
                n.platform, n.chat_id, n.board_chat, n.host_id, n.host_name, n.quiz_id, n.lang,
                json.dumps(list(n.question_ids)), json.dumps([list(o) for o in n.option_orders]),
                n.seconds, n.reveal_pause, now, n.seed)
            return None if round_id is None else await _round(db, round_id)

        return await self._write(unit)

    async def get_round(self, round_id: int) -> RoundRow | None:
        """The round with this id, or None."""
        return round_of(await self._pool.fetchrow(_ROUND_SQL + "WHERE id = $1", round_id))

    async def active_round(self, platform: str, chat_id: str) -> RoundRow | None:
        """The chat's running round, if any."""
        return round_of(await self._pool.fetchrow(
            _ROUND_SQL + "WHERE platform = $1 AND chat_id = $2 AND status = 'active'",
            platform, chat_id))

    async def open_due_questions(self, platform: str, now: float) -> list[OpenedQuestion]:
        """Claim every round whose next question is due (the guarded UPDATE decides who)."""
        async def unit(db: Conn) -> list[OpenedQuestion]:
            claimed = await db.fetch(
                "UPDATE rounds SET position = position + 1, next_open_at = NULL "
                "WHERE platform = $1 AND status = 'active' AND next_open_at IS NOT NULL "
                "AND next_open_at <= $2 RETURNING id", platform, now)
            opened = []
            for row in sorted(claimed, key=lambda r: int(r["id"])):
                rnd = await _round(db, row["id"])
                deadline = now + rnd.seconds
                await db.execute(
                    "INSERT INTO round_questions (round_id, qindex, opened_at, deadline) "
                    "VALUES ($1, $2, $3, $4)", rnd.id, rnd.position, now, deadline)
                opened.append(OpenedQuestion(rnd, rnd.position, now, deadline))
            return opened

        return await self._write(unit)

    async def press_round(self, press: NewPress) -> Pressed:
        """First press on the open question locks in; later ones find the stored answer."""
        p = press

        async def unit(db: Conn) -> Pressed:
            # Presses on one question (and its reveal) take turns from here on; every
            # statement below sees what the one before us committed.
            await db.execute("SELECT 1 FROM round_questions WHERE round_id = $1 "
                             "AND qindex = $2 FOR NO KEY UPDATE", p.round_id, p.qindex)
            chosen = await db.fetchval(
                "INSERT INTO round_answers (round_id, qindex, user_id, display_name, chosen, "
                "correct, elapsed) SELECT q.round_id, q.qindex, $1::text, $2::text, $3::integer, "
                "$4::boolean, CASE WHEN $5::double precision > q.opened_at "
                "THEN $5::double precision - q.opened_at ELSE 0 END "
                "FROM round_questions q WHERE q.round_id = $6 AND q.qindex = $7 "
                "AND q.revealed_at IS NULL AND q.deadline > $5 "
                "ON CONFLICT (round_id, qindex, user_id) DO NOTHING RETURNING chosen",
                p.user_id, p.display_name, p.chosen, p.correct, p.now, p.round_id, p.qindex)
            if chosen is not None:
                # Everyone who has joined has answered: reveal now, except on the first
                # question, which runs its full time so that people can join.
                early = await db.fetchval(
                    "UPDATE round_questions SET deadline = $1 WHERE round_id = $2 "
                    "AND qindex = $3 AND qindex > 0 AND revealed_at IS NULL AND deadline > $1 "
                    "AND (SELECT COUNT(DISTINCT user_id) FROM round_answers "
                    "WHERE round_id = $2) = "
                    "(SELECT COUNT(*) FROM round_answers WHERE round_id = $2 AND qindex = $3) "
                    "RETURNING qindex", p.now, p.round_id, p.qindex)
                return Pressed(PressWrite.LOCKED, int(chosen), early=early is not None)
            stored = await db.fetchval(
                "SELECT chosen FROM round_answers WHERE round_id = $1 AND qindex = $2 "
                "AND user_id = $3", p.round_id, p.qindex, p.user_id)
            if stored is not None:
                return Pressed(PressWrite.REPEAT, int(stored))
            position = await db.fetchval(
                "SELECT r.position FROM rounds r JOIN round_questions q "
                "ON q.round_id = r.id AND q.qindex = $1 WHERE r.id = $2", p.qindex, p.round_id)
            if position is None:
                return Pressed(PressWrite.GONE, None)
            if p.qindex < int(position):
                return Pressed(PressWrite.STALE, None)
            return Pressed(PressWrite.LATE, None)

        return await self._write(unit)

    async def reveal_due_questions(self, platform: str, now: float) -> list[Reveal]:
        """Claim every question past its deadline; one caller wins each (revealed_at IS NULL)."""
        async def unit(db: Conn) -> list[Reveal]:
            # Rounds first, as stop_round locks them: then the questions.
            await db.execute(
                "SELECT id FROM rounds WHERE platform = $1 AND status = 'active' "
                "AND id IN (SELECT round_id FROM round_questions WHERE revealed_at IS NULL "
                "AND deadline <= $2) ORDER BY id FOR NO KEY UPDATE", platform, now)
            claimed = await db.fetch(
                "UPDATE round_questions SET revealed_at = $1 WHERE revealed_at IS NULL "
                "AND deadline <= $1 AND round_id IN (SELECT id FROM rounds "
                "WHERE platform = $2 AND status = 'active') "
                "RETURNING round_id, qindex, deadline, message_ref", now, platform)
            reveals = []
            for row in sorted(claimed, key=lambda r: (r["deadline"], r["round_id"])):
                qindex = int(row["qindex"])
                rnd = await _after_reveal(db, row["round_id"], qindex, now)
                reveals.append(Reveal(rnd, qindex, row["deadline"], now, row["message_ref"],
                                      await _answers(db, rnd.id, qindex)))
            return reveals

        return await self._write(unit)

    async def skip_round(self, round_id: int, now: float) -> bool:
        """The open question's deadline (or the next opening) becomes now."""
        async def unit(db: Conn) -> bool:
            moved = await db.fetchval(
                "UPDATE round_questions SET deadline = $1 WHERE round_id = $2 "
                "AND revealed_at IS NULL AND deadline > $1 "
                "AND round_id IN (SELECT id FROM rounds WHERE status = 'active') "
                "RETURNING qindex", now, round_id)
            if moved is not None:
                return True
            return await db.fetchval(
                "UPDATE rounds SET next_open_at = $1 WHERE id = $2 AND status = 'active' "
                "AND next_open_at > $1 RETURNING id", now, round_id) is not None

        return await self._write(unit)

    async def stop_round(self, round_id: int, now: float) -> Reveal | None:
        """Stop the round; the open question (if any) is revealed by this caller."""
        async def unit(db: Conn) -> Reveal | None:
            position = await db.fetchval(
                "UPDATE rounds SET status = 'stopped', finished_at = $1, next_open_at = NULL "
                "WHERE id = $2 AND status = 'active' RETURNING position", now, round_id)
            if position is None:
                return None
            claimed = await db.fetchrow(
                "UPDATE round_questions SET revealed_at = $1 WHERE round_id = $2 "
                "AND revealed_at IS NULL RETURNING qindex, deadline, message_ref",
                now, round_id)
            rnd = await _round(db, round_id)
            await _record_participants(db, rnd, int(position), now)
            answers = await _answers(db, round_id, int(position))
            if claimed is not None:
                return Reveal(rnd, int(claimed["qindex"]), claimed["deadline"], now,
                              claimed["message_ref"], answers)
            return Reveal(rnd, None, None, now, None, answers)

        return await self._write(unit)

    async def set_round_message(self, round_id: int, qindex: int, ref: str) -> None:
        """Remember the platform's id of a question message."""
        async def unit(db: Conn) -> None:
            await db.execute("UPDATE round_questions SET message_ref = $1 WHERE round_id = $2 "
                             "AND qindex = $3", ref, round_id, qindex)

        await self._write(unit)

    async def round_message(self, round_id: int, qindex: int) -> str | None:
        """The stored id of a question message."""
        ref = await self._pool.fetchval(
            "SELECT message_ref FROM round_questions WHERE round_id = $1 AND qindex = $2",
            round_id, qindex)
        return None if ref is None else str(ref)

    async def next_round_due(self, platform: str) -> float | None:
        """The earliest pending deadline or opening of the platform's running rounds."""
        due = await self._pool.fetchval(
            "SELECT MIN(t) FROM ("
            "SELECT q.deadline AS t FROM round_questions q JOIN rounds r ON r.id = q.round_id "
            "WHERE r.platform = $1 AND r.status = 'active' AND q.revealed_at IS NULL "
            "UNION ALL SELECT next_open_at AS t FROM rounds WHERE platform = $1 "
            "AND status = 'active' AND next_open_at IS NOT NULL) AS due", platform)
        return None if due is None else float(due)

    async def board(self, quiz_id: str, platform: str, chat_id: str | None, *,
                    rounds: bool, limit: int) -> list[BestRow]:
        """Each member's best finished attempt from rounds (or solo only), best first."""
        kind = "s.round_id IS NOT NULL" if rounds else "s.round_id IS NULL"
        where = "" if chat_id is None else "AND s.platform = $3 AND s.chat_id = $4 "
        params: list[Any] = [quiz_id, limit] + ([] if chat_id is None else [platform, chat_id])
        rows = await self._pool.fetch(
            "SELECT platform, user_id, display_name, score, total, finished_at FROM ("
            "SELECT s.platform, s.user_id, u.display_name, s.score, s.position AS total, "
            "s.finished_at, ROW_NUMBER() OVER (PARTITION BY s.platform, s.user_id "
            "ORDER BY s.score DESC, s.finished_at ASC) AS n FROM sessions s "
            "JOIN users u ON u.platform = s.platform AND u.user_id = s.user_id "
            f"WHERE s.quiz_id = $1 AND s.kind = 'full' AND s.status = 'finished' AND {kind} "
            f"{where}) AS ranked WHERE n = 1 ORDER BY score DESC, finished_at ASC LIMIT $2",
            *params)
        return [BestRow(r["platform"], r["user_id"], r["display_name"], r["score"], r["total"],
                        r["finished_at"]) for r in rows]
