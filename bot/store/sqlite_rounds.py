"""Rounds on SQLite: the `RoundStore` half of `SQLiteStore`.

Each method is one unit of work for the group commit (or one read). The statements are
plain SQL that PostgreSQL runs as well (`ON CONFLICT ... DO NOTHING`, `UPDATE ... RETURNING`,
`ROW_NUMBER() OVER`); nothing here depends on SQLite's own functions.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from bot.store.group_commit import GroupCommit, fetchall
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
from bot.store.sqlite_keep import KEEP_BEST_SQL

T = TypeVar("T")

_ROUND_COLUMNS = (
    "id, platform, chat_id, board_chat, host_id, host_name, quiz_id, lang, question_ids, "
    "option_orders, seconds, reveal_pause, status, position, next_open_at, started_at, "
    "finished_at, seed")
_ROUND_SQL = f"SELECT {_ROUND_COLUMNS} FROM rounds "


def round_of(row: Any) -> RoundRow | None:
    if row is None:
        return None
    return RoundRow(
        id=row["id"], platform=row["platform"], chat_id=row["chat_id"],
        board_chat=row["board_chat"], host_id=row["host_id"], host_name=row["host_name"],
        quiz_id=row["quiz_id"], lang=row["lang"],
        question_ids=tuple(json.loads(row["question_ids"])),
        option_orders=tuple(tuple(o) for o in json.loads(row["option_orders"])),
        seconds=int(row["seconds"]), reveal_pause=float(row["reveal_pause"]),
        status=row["status"], position=int(row["position"]), next_open_at=row["next_open_at"],
        started_at=row["started_at"], finished_at=row["finished_at"],
        seed=None if row["seed"] is None else int(row["seed"]))


def _rows(db: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    return list(fetchall(db, sql, params))


def _round(db: sqlite3.Connection, round_id: int) -> RoundRow:
    found = round_of(next(iter(_rows(db, _ROUND_SQL + "WHERE id = ?", (round_id,)))))
    assert found is not None
    return found


def _answers(db: sqlite3.Connection, round_id: int, upto: int) -> tuple[RoundAnswer, ...]:
    rows = _rows(
        db, "SELECT user_id, display_name, qindex, chosen, correct, elapsed FROM round_answers "
            "WHERE round_id = ? AND qindex <= ? ORDER BY qindex, elapsed, user_id",
        (round_id, upto))
    return tuple(RoundAnswer(r["user_id"], r["display_name"], int(r["qindex"]), int(r["chosen"]),
                             bool(r["correct"]), float(r["elapsed"])) for r in rows)


def _record_participants(db: sqlite3.Connection, rnd: RoundRow, upto: int,
                               now: float) -> None:
    """One finished full session per member over questions 0..upto: /stats, /review and the
    boards then count the round like any attempt (round_id marks it as a round's)."""
    if upto < 0:
        return
    answers = _answers(db, rnd.id, upto)
    members: dict[str, list[RoundAnswer]] = {}
    for a in answers:
        members.setdefault(a.user_id, []).append(a)
    question_ids = list(rnd.question_ids[: upto + 1])
    orders = [list(o) for o in rnd.option_orders[: upto + 1]]
    for user_id, theirs in sorted(members.items()):
        score = sum(a.correct for a in theirs)
        db.execute(
            "INSERT INTO users (platform, user_id, display_name, created_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (platform, user_id) DO NOTHING",
            (rnd.platform, user_id, theirs[0].display_name, now))
        rows = _rows(
            db, "INSERT INTO sessions (platform, user_id, chat_id, quiz_id, kind, status, "
                "question_ids, option_orders, position, score, started_at, finished_at, "
                "round_id, seed) VALUES (?, ?, ?, ?, 'full', 'finished', ?, ?, ?, ?, ?, ?, ?, ?) "
                "RETURNING id",
            (rnd.platform, user_id, rnd.board_chat, rnd.quiz_id, json.dumps(question_ids),
             json.dumps(orders), len(question_ids), score, rnd.started_at, now, rnd.id,
             rnd.seed))
        session_id = rows[0]["id"]
        db.executemany(
            "INSERT INTO answers (session_id, position, question_id, chosen, correct, "
            "answered_at) VALUES (?, ?, ?, ?, ?, ?)",
            [(session_id, a.qindex, rnd.question_ids[a.qindex], a.chosen, int(a.correct), now)
             for a in theirs])
        db.executemany(
            KEEP_BEST_SQL,
            [(rnd.quiz_id, scope, rnd.platform, user_id, score, len(question_ids), now)
             for scope in scopes_of(rnd.platform, rnd.board_chat)])


class SQLiteRounds:
    """Mixed into `SQLiteStore`, which provides the group commit and the reader."""

    _writes: GroupCommit

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError  # SQLiteStore's

    async def _one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        raise NotImplementedError  # SQLiteStore's

    async def _unit(self, unit: Callable[[sqlite3.Connection], T]) -> T:
        return await self._writes.run(unit)

    async def create_round(self, new: NewRound, now: float) -> RoundRow | None:
        """Store a round whose first question opens at `now`; None if one is running."""
        n = new

        def unit(db: sqlite3.Connection) -> RoundRow | None:
            rows = _rows(
                db, "INSERT INTO rounds (platform, chat_id, board_chat, host_id, host_name, "
                    "quiz_id, lang, question_ids, option_orders, seconds, reveal_pause, status, "
                    "next_open_at, started_at, seed) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?) "
                    "ON CONFLICT DO NOTHING RETURNING id",
                (n.platform, n.chat_id, n.board_chat, n.host_id, n.host_name, n.quiz_id, n.lang,
                 json.dumps(list(n.question_ids)), json.dumps([list(o) for o in n.option_orders]),
                 n.seconds, n.reveal_pause, now, now, n.seed))
            return _round(db, rows[0]["id"]) if rows else None

        return await self._unit(unit)

    async def get_round(self, round_id: int) -> RoundRow | None:
        """The round with this id, or None."""
        return round_of(await self._one(_ROUND_SQL + "WHERE id = ?", (round_id,)))

    async def active_round(self, platform: str, chat_id: str) -> RoundRow | None:
        """The chat's running round, if any."""
        return round_of(await self._one(
            _ROUND_SQL + "WHERE platform = ? AND chat_id = ? AND status = 'active'",
            (platform, chat_id)))

    async def open_due_questions(self, platform: str, now: float) -> list[OpenedQuestion]:
        """Claim every round whose next question is due (the guarded UPDATE decides who)."""
        def unit(db: sqlite3.Connection) -> list[OpenedQuestion]:
            claimed = _rows(
                db, "UPDATE rounds SET position = position + 1, next_open_at = NULL "
                    "WHERE platform = ? AND status = 'active' AND next_open_at IS NOT NULL "
                    "AND next_open_at <= ? RETURNING id", (platform, now))
            opened = []
            for row in claimed:
                rnd = _round(db, row["id"])
                deadline = now + rnd.seconds
                db.execute(
                    "INSERT INTO round_questions (round_id, qindex, opened_at, deadline) "
                    "VALUES (?, ?, ?, ?)", (rnd.id, rnd.position, now, deadline))
                opened.append(OpenedQuestion(rnd, rnd.position, now, deadline))
            return opened

        return await self._unit(unit)

    async def press_round(self, press: NewPress) -> Pressed:
        """First press on the open question locks in; later ones find the stored answer."""
        p = press

        def unit(db: sqlite3.Connection) -> Pressed:
            locked = _rows(
                db, "INSERT INTO round_answers (round_id, qindex, user_id, display_name, chosen, "
                    "correct, elapsed) SELECT q.round_id, q.qindex, ?, ?, ?, ?, "
                    "CASE WHEN ? > q.opened_at THEN ? - q.opened_at ELSE 0 END "
                    "FROM round_questions q WHERE q.round_id = ? AND q.qindex = ? "
                    "AND q.revealed_at IS NULL AND q.deadline > ? "
                    "ON CONFLICT (round_id, qindex, user_id) DO NOTHING RETURNING chosen",
                (p.user_id, p.display_name, p.chosen, int(p.correct), p.now, p.now, p.round_id,
                 p.qindex, p.now))
            if locked:
                # Everyone who has joined has answered: reveal now, except on the first
                # question, which runs its full time so that people can join.
                early = _rows(
                    db, "UPDATE round_questions SET deadline = ? WHERE round_id = ? "
                        "AND qindex = ? AND qindex > 0 AND revealed_at IS NULL AND deadline > ? "
                        "AND (SELECT COUNT(DISTINCT user_id) FROM round_answers "
                        "WHERE round_id = ?) = "
                        "(SELECT COUNT(*) FROM round_answers WHERE round_id = ? AND qindex = ?) "
                        "RETURNING qindex",
                    (p.now, p.round_id, p.qindex, p.now, p.round_id, p.round_id, p.qindex))
                return Pressed(PressWrite.LOCKED, int(locked[0]["chosen"]), early=bool(early))
            stored = _rows(
                db, "SELECT chosen FROM round_answers WHERE round_id = ? AND qindex = ? "
                    "AND user_id = ?", (p.round_id, p.qindex, p.user_id))
            if stored:
                return Pressed(PressWrite.REPEAT, int(stored[0]["chosen"]))
            where = _rows(
                db, "SELECT r.position FROM rounds r JOIN round_questions q "
                    "ON q.round_id = r.id AND q.qindex = ? WHERE r.id = ?",
                (p.qindex, p.round_id))
            if not where:
                return Pressed(PressWrite.GONE, None)
            if p.qindex < int(where[0]["position"]):
                return Pressed(PressWrite.STALE, None)
            return Pressed(PressWrite.LATE, None)

        return await self._unit(unit)

    def _after_reveal(self, db: sqlite3.Connection, round_id: int, qindex: int,
                            now: float) -> RoundRow:
        rnd = _round(db, round_id)
        if not rnd.active:
            return rnd
        if qindex + 1 < rnd.total:
            db.execute("UPDATE rounds SET next_open_at = ? WHERE id = ? AND "
                             "status = 'active'", (now + rnd.reveal_pause, round_id))
        else:
            db.execute("UPDATE rounds SET status = 'finished', finished_at = ?, "
                             "next_open_at = NULL WHERE id = ? AND status = 'active'",
                             (now, round_id))
            _record_participants(db, rnd, qindex, now)
        return _round(db, round_id)

    async def reveal_due_questions(self, platform: str, now: float) -> list[Reveal]:
        """Claim every question past its deadline; one caller wins each (revealed_at IS NULL)."""
        def unit(db: sqlite3.Connection) -> list[Reveal]:
            claimed = _rows(
                db, "UPDATE round_questions SET revealed_at = ? WHERE revealed_at IS NULL "
                    "AND deadline <= ? AND round_id IN (SELECT id FROM rounds "
                    "WHERE platform = ? AND status = 'active') "
                    "RETURNING round_id, qindex, deadline, message_ref", (now, now, platform))
            reveals = []
            for row in sorted(claimed, key=lambda r: (r["deadline"], r["round_id"])):
                rnd = self._after_reveal(db, row["round_id"], row["qindex"], now)
                reveals.append(Reveal(rnd, int(row["qindex"]), row["deadline"], now,
                                      row["message_ref"],
                                      _answers(db, rnd.id, int(row["qindex"]))))
            return reveals

        return await self._unit(unit)

    async def skip_round(self, round_id: int, now: float) -> bool:
        """The open question's deadline (or the next opening) becomes now."""
        def unit(db: sqlite3.Connection) -> bool:
            moved = _rows(
                db, "UPDATE round_questions SET deadline = ? WHERE round_id = ? "
                    "AND revealed_at IS NULL AND deadline > ? "
                    "AND round_id IN (SELECT id FROM rounds WHERE status = 'active') "
                    "RETURNING qindex", (now, round_id, now))
            if moved:
                return True
            moved = _rows(
                db, "UPDATE rounds SET next_open_at = ? WHERE id = ? AND status = 'active' "
                    "AND next_open_at > ? RETURNING id", (now, round_id, now))
            return bool(moved)

        return await self._unit(unit)

    async def stop_round(self, round_id: int, now: float) -> Reveal | None:
        """Stop the round; the open question (if any) is revealed by this caller."""
        def unit(db: sqlite3.Connection) -> Reveal | None:
            stopped = _rows(
                db, "UPDATE rounds SET status = 'stopped', finished_at = ?, next_open_at = NULL "
                    "WHERE id = ? AND status = 'active' RETURNING position", (now, round_id))
            if not stopped:
                return None
            position = int(stopped[0]["position"])
            claimed = _rows(
                db, "UPDATE round_questions SET revealed_at = ? WHERE round_id = ? "
                    "AND revealed_at IS NULL RETURNING qindex, deadline, message_ref",
                (now, round_id))
            rnd = _round(db, round_id)
            _record_participants(db, rnd, position, now)
            answers = _answers(db, round_id, position)
            if claimed:
                row = claimed[0]
                return Reveal(rnd, int(row["qindex"]), row["deadline"], now, row["message_ref"],
                              answers)
            return Reveal(rnd, None, None, now, None, answers)

        return await self._unit(unit)

    async def set_round_message(self, round_id: int, qindex: int, ref: str) -> None:
        """Remember the platform's id of a question message."""
        def unit(db: sqlite3.Connection) -> None:
            db.execute("UPDATE round_questions SET message_ref = ? WHERE round_id = ? "
                             "AND qindex = ?", (ref, round_id, qindex))

        await self._unit(unit)

    async def round_message(self, round_id: int, qindex: int) -> str | None:
        """The stored id of a question message."""
        row = await self._one("SELECT message_ref FROM round_questions WHERE round_id = ? "
                              "AND qindex = ?", (round_id, qindex))
        return None if row is None else row["message_ref"]

    async def next_round_due(self, platform: str) -> float | None:
        """The earliest pending deadline or opening of the platform's running rounds."""
        row = await self._one(
            "SELECT MIN(t) AS t FROM ("
            "SELECT q.deadline AS t FROM round_questions q JOIN rounds r ON r.id = q.round_id "
            "WHERE r.platform = ? AND r.status = 'active' AND q.revealed_at IS NULL "
            "UNION ALL SELECT next_open_at AS t FROM rounds WHERE platform = ? "
            "AND status = 'active' AND next_open_at IS NOT NULL) AS due", (platform, platform))
        return None if row is None or row["t"] is None else float(row["t"])

    async def board(self, quiz_id: str, platform: str, chat_id: str | None, *,
                    rounds: bool, limit: int) -> list[BestRow]:
        """Each member's best finished attempt from rounds (or solo only), best first."""
        kind = "s.round_id IS NOT NULL" if rounds else "s.round_id IS NULL"
        where = "" if chat_id is None else "AND s.platform = ? AND s.chat_id = ? "
        params: list[Any] = [quiz_id] + ([] if chat_id is None else [platform, chat_id])
        rows = await self._all(
            "SELECT platform, user_id, display_name, score, total, finished_at FROM ("
            "SELECT s.platform, s.user_id, u.display_name, s.score, s.position AS total, "
            "s.finished_at, ROW_NUMBER() OVER (PARTITION BY s.platform, s.user_id "
            "ORDER BY s.score DESC, s.finished_at ASC) AS n FROM sessions s "
            "JOIN users u ON u.platform = s.platform AND u.user_id = s.user_id "
            f"WHERE s.quiz_id = ? AND s.kind = 'full' AND s.status = 'finished' AND {kind} "
            f"{where}) AS ranked WHERE n = 1 ORDER BY score DESC, finished_at ASC LIMIT ?",
            [*params, limit])
        return [BestRow(r["platform"], r["user_id"], r["display_name"], r["score"], r["total"],
                        r["finished_at"]) for r in rows]
