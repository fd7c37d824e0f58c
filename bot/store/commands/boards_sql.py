"""Leaderboards: their rows, how many members stand on them, and where one member stands.

Two boards: the solo best scores (`best_scores`, one row per member and scope) and the
boards read from finished attempts (rounds only, or solo only; a member's best attempt
each). A place counts the members ahead: a higher score, or the same score finished
earlier, so members level on both share a place ("1, 1, 3"), as `stats_results.ranked`
numbers the rows shown.
"""

from __future__ import annotations

from typing import Any

from bot.store.command import Command, one, q
from bot.store.rows import BestRow, BoardPlace, first, from_row

_BEST_FROM = ("FROM best_scores b JOIN users u ON u.platform = b.platform "
              "AND u.user_id = b.user_id WHERE b.quiz_id = ? AND b.scope = ?")
# the members ranked, and those ahead of a score finished at a time (unqualified columns:
# `users` has neither)
_AHEAD = ("COUNT(*) AS members, COALESCE(SUM(CASE WHEN score > CAST(? AS INTEGER) OR "
          "(score = CAST(? AS INTEGER) AND finished_at < CAST(? AS DOUBLE PRECISION)) "
          "THEN 1 ELSE 0 END), 0) AS ahead")


def _attempts(chat_id: str | None, rounds: bool) -> str:
    """Each member's best finished attempt (rounds, or solo only), as a derived table."""
    kind = "s.round_id IS NOT NULL" if rounds else "s.round_id IS NULL"
    where = "" if chat_id is None else "AND s.platform = ? AND s.chat_id = ? "
    return ("(SELECT platform, user_id, display_name, score, total, finished_at FROM ("
            "SELECT s.platform, s.user_id, u.display_name, s.score, s.position AS total, "
            "s.finished_at, ROW_NUMBER() OVER (PARTITION BY s.platform, s.user_id "
            "ORDER BY s.score DESC, s.finished_at ASC) AS n FROM sessions s "
            "JOIN users u ON u.platform = s.platform AND u.user_id = s.user_id "
            f"WHERE s.quiz_id = ? AND s.kind = 'full' AND s.status = 'finished' AND {kind} "
            f"{where}) AS ranked WHERE n = 1) AS best")


def _params(quiz_id: str, platform: str, chat_id: str | None) -> list[Any]:
    return [quiz_id] + ([] if chat_id is None else [platform, chat_id])


def board(quiz_id: str, platform: str, chat_id: str | None, *, rounds: bool,
          limit: int) -> Command[list[BestRow]]:
    """Each member's best finished attempt from rounds (or solo only), best first."""
    rows = yield q(f"SELECT * FROM {_attempts(chat_id, rounds)} "
                   "ORDER BY score DESC, finished_at ASC LIMIT ?",
                   *_params(quiz_id, platform, chat_id), limit)
    return [from_row(BestRow, r) for r in rows]


def _place(mine: BestRow | None, counted: Any) -> BoardPlace:
    members = int(counted["members"]) if counted is not None else 0
    if mine is None:
        return BoardPlace(members, None, 0)
    return BoardPlace(members, mine, int(counted["ahead"]) + 1)


def board_place(quiz_id: str, platform: str, chat_id: str | None, user_id: str, *,
                rounds: bool) -> Command[BoardPlace]:
    """How many members `board` ranks, and `user_id`'s row and place on it (if any)."""
    params = _params(quiz_id, platform, chat_id)
    mine = first(BestRow, (yield q(f"SELECT * FROM {_attempts(chat_id, rounds)} "
                                   "WHERE platform = ? AND user_id = ?",
                                   *params, platform, user_id)))
    score, at = (mine.score, mine.finished_at) if mine else (0, 0.0)
    counted = one((yield q(f"SELECT {_AHEAD} FROM {_attempts(chat_id, rounds)}",
                           score, score, at, *params)))
    return _place(mine, counted)


def best_place(quiz_id: str, scope: str, platform: str, user_id: str) -> Command[BoardPlace]:
    """How many members the solo best-score board of `scope` ranks, and the member's row and
    place on it (if any): `sessions_sql.best` lists its top."""
    mine = first(BestRow, (yield q(
        "SELECT b.platform, b.user_id, u.display_name, b.score, b.total, b.finished_at "
        f"{_BEST_FROM} AND b.platform = ? AND b.user_id = ?",
        quiz_id, scope, platform, user_id)))
    score, at = (mine.score, mine.finished_at) if mine else (0, 0.0)
    counted = one((yield q(f"SELECT {_AHEAD} {_BEST_FROM}", score, score, at, quiz_id, scope)))
    return _place(mine, counted)
