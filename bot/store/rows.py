"""Database rows to the store's dataclasses, for both dialects (same column types on both)."""

from __future__ import annotations

import json
from typing import Any

from bot.domain.results import SessionKind
from bot.store.learning import CardRow, JobRow
from bot.store.protocol import AnswerRow, BestRow, SessionRow
from bot.store.round_rows import RoundAnswer, RoundMember, RoundRow

# The owner's language, confidence setting and UTC offset come with the session: a tap
# needs one read.
SESSION_COLUMNS = (
    "s.id, s.platform, s.user_id, s.chat_id, s.quiz_id, s.kind, s.status, s.question_ids, "
    "s.option_orders, s.position, s.score, s.started_at, s.finished_at, u.lang, "
    "COALESCE(ls.confidence, 0) AS confidence, COALESCE(ls.utc_offset, 0) AS utc_offset, "
    "s.seed")
SESSION_FROM = (
    "FROM sessions s JOIN users u ON u.platform = s.platform AND u.user_id = s.user_id "
    "LEFT JOIN learner_settings ls ON ls.platform = s.platform AND ls.user_id = s.user_id ")
SESSION_SQL = f"SELECT {SESSION_COLUMNS} {SESSION_FROM}"
ROUND_SQL = (
    "SELECT id, platform, chat_id, board_chat, host_id, host_name, quiz_id, lang, question_ids, "
    "option_orders, seconds, reveal_pause, status, position, next_open_at, started_at, "
    "finished_at, seed, scoring, teams, untimed, kind FROM rounds ")
CARD_COLUMNS = "quiz_id, question_id, card, due_at, reviews"
JOB_COLUMNS = "id, kind, key, due_at, payload, claimed_at, claimed_by, attempts"
BEST_COLUMNS = "platform, user_id, display_name, score, total, finished_at"


def _orders(text: str) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(o) for o in json.loads(text))


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def session_of(row: Any) -> SessionRow | None:
    """A SessionRow from a row with the SESSION_COLUMNS names, or None."""
    if row is None:
        return None
    return SessionRow(
        id=int(row["id"]), platform=row["platform"], user_id=row["user_id"],
        chat_id=row["chat_id"], quiz_id=row["quiz_id"], kind=SessionKind(row["kind"]),
        status=row["status"], question_ids=tuple(json.loads(row["question_ids"])),
        option_orders=_orders(row["option_orders"]), position=int(row["position"]),
        score=int(row["score"]), started_at=row["started_at"], finished_at=row["finished_at"],
        lang=row["lang"], confidence=bool(row["confidence"]), utc_offset=int(row["utc_offset"]),
        seed=_int_or_none(row["seed"]))


def answer_of(session_id: int, position: int, row: Any) -> AnswerRow:
    """An AnswerRow from a row with question_id, chosen, correct and typed."""
    typed = row["typed"]
    return AnswerRow(session_id, position, row["question_id"], int(row["chosen"]),
                     bool(row["correct"]), None if typed is None else float(typed))


def best_of(row: Any) -> BestRow:
    """A BestRow from a row with the BEST_COLUMNS names."""
    return BestRow(row["platform"], row["user_id"], row["display_name"], int(row["score"]),
                   int(row["total"]), float(row["finished_at"]))


def round_of(row: Any) -> RoundRow | None:
    """A RoundRow from a ROUND_SQL row, or None."""
    if row is None:
        return None
    return RoundRow(
        id=int(row["id"]), platform=row["platform"], chat_id=row["chat_id"],
        board_chat=row["board_chat"], host_id=row["host_id"], host_name=row["host_name"],
        quiz_id=row["quiz_id"], lang=row["lang"],
        question_ids=tuple(json.loads(row["question_ids"])),
        option_orders=_orders(row["option_orders"]), seconds=int(row["seconds"]),
        reveal_pause=float(row["reveal_pause"]), status=row["status"],
        position=int(row["position"]), next_open_at=row["next_open_at"],
        started_at=row["started_at"], finished_at=row["finished_at"],
        seed=_int_or_none(row["seed"]), scoring=row["scoring"], teams=int(row["teams"]),
        untimed=bool(row["untimed"]), kind=row["kind"])


def round_member_of(row: Any) -> RoundMember:
    """A member of a team (or untimed) round."""
    return RoundMember(row["user_id"], row["display_name"],
                       None if row["team"] is None else int(row["team"]))


def round_answer_of(row: Any) -> RoundAnswer:
    """A member's answer in a round."""
    return RoundAnswer(row["user_id"], row["display_name"], int(row["qindex"]),
                       int(row["chosen"]), bool(row["correct"]), float(row["elapsed"]))


def card_of(row: Any) -> CardRow:
    """A CardRow from a row with the CARD_COLUMNS names."""
    return CardRow(row["quiz_id"], row["question_id"], row["card"], float(row["due_at"]),
                   int(row["reviews"]))


def job_of(row: Any) -> JobRow:
    """A JobRow from a row with the JOB_COLUMNS names."""
    return JobRow(int(row["id"]), row["kind"], row["key"], float(row["due_at"]),
                  json.loads(row["payload"]), float(row["claimed_at"]), row["claimed_by"],
                  int(row["attempts"]))
