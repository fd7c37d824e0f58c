"""The dashboard's reads (`GET /api/me`, `GET /api/groups/<id>`): one body per command, run
with `Store.read` (a group's accuracy per question is `report_sql.accuracy`, the query
`quizbot stats` runs).

SELECTs, but for the two writes at the end (a used link, a chat's title). A learner's
reads use the (platform, user_id) indexes; a group's use `sessions_by_chat` and
`rounds_by_board` (schema version 9).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from bot.domain.product_limits import MEMBERS_LISTED, ROUNDS_LISTED
from bot.store.command import Command, q
from bot.store.rows import chat_scope, from_row


@dataclass(frozen=True, slots=True)
class Attempt:
    quiz_id: str
    score: int
    total: int
    finished_at: float


@dataclass(frozen=True, slots=True)
class Answered:
    """One of the learner's answers in a full attempt, newest first."""

    quiz_id: str
    question_id: str
    chosen: int  # index in the quiz file
    correct: bool
    answered_at: float
    seed: int = 0  # the attempt's seed (its id before seeds): a computed question's numbers


@dataclass(frozen=True, slots=True)
class GroupRound:
    id: int
    quiz_id: str
    status: str
    started_at: float
    finished_at: float | None
    host_name: str
    players: int
    best: int | None
    mean: float | None
    total: int


@dataclass(frozen=True, slots=True)
class MemberRow:
    user_id: str
    display_name: str
    quiz_id: str
    attempts: int
    best: int
    last_at: float
    total: int | None = None  # the questions of the attempt the best came from
    played_at: float = 0.0  # the member's latest finished attempt in the group, any quiz


def attempts(platform: str, user_id: str) -> Command[list[Attempt]]:
    """The learner's finished full attempts of every quiz, oldest first."""
    rows = yield q("SELECT quiz_id, score, position AS total, finished_at FROM sessions "
                   "WHERE platform = ? AND user_id = ? AND kind = 'full' "
                   "AND status = 'finished' ORDER BY finished_at, id", platform, user_id)
    return [from_row(Attempt, r) for r in rows]  # a finished attempt's position: its length


def answers(platform: str, user_id: str) -> Command[list[Answered]]:
    """The learner's answers in full attempts (solo and rounds), newest first."""
    rows = yield q("SELECT s.quiz_id, a.question_id, a.chosen, a.correct, a.answered_at, "
                   "COALESCE(s.seed, s.id) AS seed "
                   "FROM sessions s JOIN answers a ON a.session_id = s.id "
                   "WHERE s.platform = ? AND s.user_id = ? AND s.kind = 'full' "
                   "ORDER BY a.answered_at DESC, a.session_id DESC, a.position DESC",
                   platform, user_id)
    return [from_row(Answered, r) for r in rows]


# The chats a learner is in as far as the store knows: played in, hosted a round in, or
# manages. Six parameters: (platform, user id) three times.
MY_CHATS = ("SELECT chat_id FROM sessions WHERE platform = ? AND user_id = ? "
            "AND chat_id IS NOT NULL UNION SELECT board_chat FROM rounds WHERE platform = ? "
            "AND host_id = ? UNION SELECT chat_id FROM group_managers WHERE platform = ? "
            "AND user_id = ?")


def group_quizzes(platform: str, user_id: str) -> Command[list[str]]:
    """The quizzes the learner's groups play, their own subject: each group's chosen quiz
    (/settings) first, then the quizzes of their rounds and those the learner played in a
    group, latest first."""
    mine = (platform, user_id) * 3
    rows = yield q("SELECT x.quiz_id, MAX(x.chosen) AS chosen, MAX(x.at) AS at FROM ("
                   "SELECT quiz_id, 1 AS chosen, updated_at AS at FROM group_settings "
                   f"WHERE platform = ? AND quiz_id IS NOT NULL AND chat_id IN ({MY_CHATS}) "
                   "UNION ALL SELECT quiz_id, 0 AS chosen, started_at AS at FROM rounds "
                   f"WHERE platform = ? AND board_chat IN ({MY_CHATS}) "
                   "UNION ALL SELECT quiz_id, 0 AS chosen, started_at AS at FROM sessions "
                   "WHERE platform = ? AND user_id = ? AND chat_id IS NOT NULL) x "
                   "GROUP BY x.quiz_id ORDER BY chosen DESC, at DESC, x.quiz_id",
                   platform, *mine, platform, *mine, platform, user_id)
    return [str(r["quiz_id"]) for r in rows]


def groups_of(platform: str, user_id: str) -> Command[list[tuple[str, str | None]]]:
    """The groups (Telegram chats, Discord servers) the learner played in or hosted a round
    in, latest first: (chat id, its title when known). A teacher who runs rounds and never
    plays one still finds each of their groups on their own page."""
    rows = yield q("SELECT g.chat_id, MAX(g.at) AS at, MAX(c.title) AS title FROM ("
                   "SELECT chat_id, started_at AS at FROM sessions WHERE platform = ? "
                   "AND user_id = ? AND chat_id IS NOT NULL UNION ALL "
                   "SELECT board_chat, started_at FROM rounds WHERE platform = ? "
                   "AND host_id = ?) g LEFT JOIN chats c ON c.platform = ? "
                   "AND c.chat_id = g.chat_id GROUP BY g.chat_id ORDER BY at DESC",
                   platform, user_id, platform, user_id, platform)
    return [(str(r["chat_id"]), None if r["title"] is None else str(r["title"])) for r in rows]


def group_rounds(platform: str, chat_id: str, limit: int = ROUNDS_LISTED
                 ) -> Command[list[GroupRound]]:
    """The group's latest rounds, newest first, with how its players scored."""
    rows = yield q(
        "SELECT r.id, r.quiz_id, r.status, r.started_at, r.finished_at, r.host_name, "
        "r.question_ids, COUNT(s.id) AS players, MAX(s.score) AS best, "
        "AVG(s.score) AS mean FROM rounds r LEFT JOIN sessions s ON s.round_id = r.id "
        "WHERE r.platform = ? AND r.board_chat = ? GROUP BY r.id "
        "ORDER BY r.started_at DESC, r.id DESC LIMIT ?", platform, chat_id, limit)
    return [from_row(GroupRound, r, total=len(json.loads(r["question_ids"]))) for r in rows]


def group_members(platform: str, chat_id: str, limit: int = MEMBERS_LISTED
                  ) -> Command[tuple[list[MemberRow], int]]:
    """(member rows per quiz, weakest first; how many rows there are in all) over the
    group's finished full attempts. A member's best is the group board's (`best_scores` in
    the group's scope, kept by the rule `sessions_sql.best_score` reads), with the questions
    of its own attempt: a short round's 2 of 2 is not 2 of the quiz's 8.

    Weakest first: the lowest share of its own attempt's questions right (of equals, the
    one who played longest ago), so the members who may need help lead the teacher's table,
    and a group past `limit` rows loses its strongest rows, not them. `played_at`: when the
    member last finished a quiz here (of every quiz they played, the same on each row)."""
    rows = yield q(
        "SELECT s.user_id, COALESCE(u.display_name, '') AS display_name, s.quiz_id, "
        "COUNT(*) AS attempts, COALESCE(b.score, MAX(s.score)) AS best, b.total, "
        "MAX(s.finished_at) AS last_at, COUNT(*) OVER () AS everyone, "
        "MAX(MAX(s.finished_at)) OVER (PARTITION BY s.user_id) AS played_at FROM sessions s "
        "LEFT JOIN users u ON u.platform = s.platform AND u.user_id = s.user_id "
        "LEFT JOIN best_scores b ON b.quiz_id = s.quiz_id AND b.scope = ? "
        "AND b.platform = s.platform AND b.user_id = s.user_id "
        "WHERE s.platform = ? AND s.chat_id = ? AND s.kind = 'full' "
        "AND s.status = 'finished' "
        "GROUP BY s.user_id, u.display_name, s.quiz_id, b.score, b.total "
        "ORDER BY COALESCE(b.score, MAX(s.score)) * 1.0 "
        "/ COALESCE(NULLIF(b.total, 0), NULLIF(MAX(s.position), 0), 1), "
        "MAX(s.finished_at), s.user_id LIMIT ?",
        chat_scope(platform, chat_id), platform, chat_id, limit)
    everyone = int(rows[0]["everyone"]) if rows else 0
    return [from_row(MemberRow, r) for r in rows], everyone


def use_link(nonce: str, expires_at: float, now: float) -> Command[bool]:
    """Mark a Discord dashboard link used: True the first time, False for a replay. Links
    past their expiry are forgotten here (they are refused by their signature's clock)."""
    yield q("DELETE FROM used_links WHERE expires_at < ?", now)
    rows = yield q("INSERT INTO used_links (nonce, expires_at) VALUES (?, ?) "
                   "ON CONFLICT (nonce) DO NOTHING RETURNING nonce", nonce, expires_at)
    return bool(rows)


def save_chat_title(platform: str, chat_id: str, title: str, now: float) -> Command[bool]:
    """Keep the chat's title (insert or change it); True when it was new or changed."""
    rows = yield q("INSERT INTO chats (platform, chat_id, title, updated_at) "
                   "VALUES (?, ?, ?, ?) ON CONFLICT (platform, chat_id) DO UPDATE "
                   "SET title = excluded.title, updated_at = excluded.updated_at "
                   "WHERE chats.title <> excluded.title RETURNING chat_id",
                   platform, chat_id, title, now)
    return bool(rows)


def chat_titles(platform: str, chat_ids: Sequence[str]) -> Command[dict[str, str]]:
    """The stored titles of these chats, by chat id (chats never seen are left out)."""
    if not chat_ids:
        return {}
    rows = yield q("SELECT chat_id, title FROM chats WHERE platform = ? AND chat_id IN ("
                   + ", ".join("?" * len(chat_ids)) + ")", platform, *chat_ids)
    return {str(r["chat_id"]): str(r["title"]) for r in rows}


@dataclass(frozen=True, slots=True)
class AttemptAnswer:
    """One answer of a finished full attempt in a group (item statistics)."""

    session_id: int
    user_id: str
    quiz_id: str
    score: int
    question_id: str
    chosen: int


def group_attempt_answers(platform: str, chat_id: str) -> Command[list[AttemptAnswer]]:
    """Every answer of the group's finished full attempts, oldest attempt first."""
    rows = yield q("SELECT s.id AS session_id, s.user_id, s.quiz_id, s.score, a.question_id, "
                   "a.chosen "
                   "FROM sessions s JOIN answers a ON a.session_id = s.id "
                   "WHERE s.platform = ? AND s.chat_id = ? AND s.kind = 'full' "
                   "AND s.status = 'finished' ORDER BY s.id, a.position", platform, chat_id)
    return [from_row(AttemptAnswer, r) for r in rows]
