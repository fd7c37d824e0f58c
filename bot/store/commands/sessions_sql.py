"""Users, solo sessions, answers, stats and leaderboards: one body per command.

Every write is one transaction decided by guarded statements. `record_answer`'s UPDATE
only matches a session that is active and at the answered position: on SQLite the writer
lock orders transactions, on PostgreSQL a second UPDATE of the row waits for the first to
commit and re-checks its WHERE, so of any number of deliveries exactly one applies.
`start_session` and `reset_user` lock the user's row first on PostgreSQL
(`FOR NO KEY UPDATE`): one user's starts and resets take turns, while answers (whose
foreign-key checks take only KEY SHARE) never wait on them. Locks are always taken
user -> session -> best score -> review -> card (and round -> round question), so writers
cannot deadlock on each other.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from bot.domain.results import SessionKind
from bot.store.command import Command, Rows, lock, many, one, q
from bot.store.commands.learning_sql import apply_review
from bot.store.rows import (
    SESSION_COLUMNS,
    SESSION_FROM,
    SESSION_SQL,
    AnswerRow,
    BestRow,
    NewAnswer,
    NewSession,
    Recorded,
    SessionRow,
    Write,
    first,
    from_row,
    scopes_of,
)

# A finished attempt's score stands on a board only if it beats the one already there (the
# earlier finish keeps a tie): the one statement for solo sessions and rounds alike.
KEEP_BEST_SQL = (
    "INSERT INTO best_scores (quiz_id, scope, platform, user_id, score, total, finished_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (quiz_id, scope, platform, user_id) DO UPDATE "
    "SET score = excluded.score, total = excluded.total, finished_at = excluded.finished_at "
    "WHERE excluded.score > best_scores.score")
if TYPE_CHECKING:
    from bot.store.protocol import Store

_LOCK_USER = "SELECT 1 FROM users WHERE platform = ? AND user_id = ? FOR NO KEY UPDATE"


# --- users -----------------------------------------------------------------------------

def user(platform: str, user_id: str) -> Command[tuple[str, str | None] | None]:
    """(display name, chosen language) of a known user, else None."""
    row = one((yield q("SELECT display_name, lang FROM users WHERE platform = ? "
                       "AND user_id = ?", platform, user_id)))
    return None if row is None else (str(row["display_name"]), row["lang"])


def save_user(platform: str, user_id: str, display_name: str, now: float
              ) -> Command[str | None]:
    """Create the user or update their name; return their chosen language."""
    rows = yield q("INSERT INTO users (platform, user_id, display_name, created_at) "
                   "VALUES (?, ?, ?, ?) ON CONFLICT (platform, user_id) "
                   "DO UPDATE SET display_name = excluded.display_name RETURNING lang",
                   platform, user_id, display_name, now)
    return None if rows[0]["lang"] is None else str(rows[0]["lang"])


async def touch_user(store: Store, platform: str, user_id: str, display_name: str,
                     now: float) -> str | None:
    """Create the user or update their name; return their chosen language, if any. The one
    helper that is not a command: a read, and a write only when the name changed (most calls
    write nothing, so they take no write lock)."""
    row = await store.read(user, platform, user_id)
    if row is not None and (row[0] == display_name or not display_name):
        return row[1]
    return await store.write(save_user, platform, user_id, display_name, now)


def set_language(platform: str, user_id: str, lang: str, now: float) -> Command[None]:
    """Persist the user's language choice (creating the user if needed); a change notes
    when (`lang_set_at`: a question posted before it is in the old language)."""
    yield q("INSERT INTO users (platform, user_id, lang, created_at, lang_set_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (platform, user_id) DO UPDATE SET "
            "lang_set_at = CASE WHEN users.lang = excluded.lang THEN users.lang_set_at "
            "ELSE excluded.lang_set_at END, lang = excluded.lang",
            platform, user_id, lang, now, now)


# --- sessions --------------------------------------------------------------------------

def get_session(session_id: int) -> Command[SessionRow | None]:
    """The session with this id, or None."""
    return first(SessionRow, (yield q(SESSION_SQL + "WHERE s.id = ?", session_id)))


def active_session(platform: str, user_id: str, quiz_id: str) -> Command[SessionRow | None]:
    """The user's unfinished session of this quiz, if any."""
    return first(SessionRow, (yield q(
        SESSION_SQL + "WHERE s.platform = ? AND s.user_id = ? AND s.quiz_id = ? "
        "AND s.status = 'active'", platform, user_id, quiz_id)))


def open_session(platform: str, user_id: str,
                 kind: str | None = None) -> Command[SessionRow | None]:
    """The user's most recently started unfinished session in a private chat (any quiz; of
    this kind only, when given)."""
    of_kind, kinds = ("AND s.kind = ? ", (kind,)) if kind is not None else ("", ())
    return first(SessionRow, (yield q(
        SESSION_SQL + "WHERE s.platform = ? AND s.user_id = ? AND s.chat_id IS NULL "
        "AND s.status = 'active' " + of_kind + "ORDER BY s.started_at DESC, s.id DESC LIMIT 1",
        platform, user_id, *kinds)))


def last_finished(platform: str, user_id: str,
                  quiz_id: str | None = None) -> Command[SessionRow | None]:
    """The user's most recently finished full attempt of this quiz (of any quiz, when none
    is named)."""
    of_quiz, quizzes = ("AND s.quiz_id = ? ", (quiz_id,)) if quiz_id is not None else ("", ())
    return first(SessionRow, (yield q(
        SESSION_SQL + "WHERE s.platform = ? AND s.user_id = ? " + of_quiz +
        "AND s.kind = 'full' AND s.status = 'finished' "
        "ORDER BY s.finished_at DESC, s.id DESC LIMIT 1", platform, user_id, *quizzes)))


def start_session(new: NewSession, *, replace: bool,
                  keep_since: float | None = None) -> Command[SessionRow]:
    """The active session unless `replace`; else abandon it and store `new` (one txn).
    With `keep_since`, an active session of `new`'s kind started at or after it and not
    yet answered is kept and returned, not replaced: a second "Try again" joins it.

    On PostgreSQL the user's row is locked first, so two starts of one user (two processes,
    a double tap) run one after the other: the second sees the first's session.
    """
    n = new
    yield lock(_LOCK_USER, n.platform, n.user_id)
    if not replace or keep_since is not None:
        found = yield from active_session(n.platform, n.user_id, n.quiz_id)
        if found is not None and (not replace or (
                found.kind == n.kind and found.topic == n.topic and found.position == 0
                and keep_since is not None
                and found.started_at >= keep_since)):
            return found
    yield q("UPDATE sessions SET status = 'abandoned' WHERE platform = ? AND user_id = ? "
            "AND quiz_id = ? AND status = 'active'", n.platform, n.user_id, n.quiz_id)
    rows = yield q(
        "INSERT INTO sessions (platform, user_id, chat_id, quiz_id, kind, status, "
        "question_ids, option_orders, started_at, seed, topic) "
        "VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?) RETURNING id",
        n.platform, n.user_id, n.chat_id, n.quiz_id, str(n.kind),
        json.dumps(list(n.question_ids)), json.dumps([list(o) for o in n.option_orders]),
        n.started_at, n.seed, n.topic)
    found = yield from get_session(int(rows[0]["id"]))
    assert found is not None
    return found


# --- answers ---------------------------------------------------------------------------

def session_and_answer(session_id: int, position: int
                       ) -> Command[tuple[SessionRow | None, AnswerRow | None]]:
    """The session and its answer at `position` (if any), in one read."""
    row = one((yield q(
        f"SELECT {SESSION_COLUMNS}, a.question_id, a.chosen, a.correct, a.typed "
        f"{SESSION_FROM}"
        "LEFT JOIN answers a ON a.session_id = s.id AND a.position = ? WHERE s.id = ?",
        position, session_id)))
    if row is None:
        return None, None
    answer = None if row["chosen"] is None else from_row(
        AnswerRow, row, session_id=session_id, position=position)
    return from_row(SessionRow, row), answer


def answers(session_id: int) -> Command[list[AnswerRow]]:
    """Every answer of the session, in position order."""
    rows = yield q("SELECT position, question_id, chosen, correct, typed FROM answers "
                   "WHERE session_id = ? ORDER BY position", session_id)
    return [from_row(AnswerRow, r, session_id=session_id) for r in rows]


def record_answer(answer: NewAnswer) -> Command[Recorded]:
    """Guarded advance, then the answer row, then (on the last question) the best score.

    The session moves only if it is active and at `answer.position`; whatever the
    interleaving, a position counts once (REPEAT: answered before; STALE: moved on). Whose
    session it is, of which quiz and where, the advance reads from the session itself."""
    a = answer
    now = a.answered_at
    done = int(a.finished)
    advanced = yield q(
        "UPDATE sessions SET position = position + 1, score = score + ?, "
        "status = CASE WHEN ? = 1 THEN 'finished' ELSE status END, "
        "finished_at = CASE WHEN ? = 1 THEN CAST(? AS DOUBLE PRECISION) ELSE finished_at END "
        "WHERE id = ? AND position = ? AND status = 'active' "
        "RETURNING score, position, quiz_id, platform, user_id, chat_id, kind",
        int(a.correct), done, done, now, a.session_id, a.position)
    if not advanced:
        stored = one((yield q("SELECT question_id, chosen, correct, typed FROM answers "
                              "WHERE session_id = ? AND position = ?",
                              a.session_id, a.position)))
        if stored is not None:
            return Recorded(Write.REPEAT, from_row(AnswerRow, stored, session_id=a.session_id,
                                                   position=a.position), 0)
        return Recorded(Write.STALE, None, 0)
    s = advanced[0]
    score = int(s["score"])
    yield q("INSERT INTO answers (session_id, position, question_id, chosen, correct, "
            "answered_at, typed) VALUES (?, ?, ?, ?, ?, ?, ?)",
            a.session_id, a.position, a.question_id, a.chosen, int(a.correct), now, a.typed)
    if a.finished and s["kind"] == SessionKind.FULL:  # its position is now its length
        yield many(KEEP_BEST_SQL, [(s["quiz_id"], scope, s["platform"], s["user_id"], score,
                                    s["position"], now)
                                   for scope in scopes_of(s["platform"], s["chat_id"])])
    if a.review is not None:  # the learner's card moves with the answer, or not at all
        yield from apply_review(a.review)
    stored_now = AnswerRow(a.session_id, a.position, a.question_id, a.chosen, a.correct,
                           a.typed)
    return Recorded(Write.APPLIED, stored_now, score)


# --- stats and leaderboards ------------------------------------------------------------

# A learner's finished full attempts at one quiz (solo sessions and rounds alike).
_FINISHED = ("FROM sessions WHERE platform = ?1 AND user_id = ?2 AND quiz_id = ?3 "
             "AND kind = 'full' AND status = 'finished'")
_LAST = " ORDER BY finished_at DESC, id DESC LIMIT 1"


def attempts(platform: str, user_id: str, quiz_id: str
             ) -> Command[tuple[int, int | None, int | None]]:
    """(finished full attempts, best score, last score)."""
    row = (yield q(f"SELECT COUNT(*) AS n, MAX(score) AS best, (SELECT score {_FINISHED}{_LAST}) "
                   f"AS last {_FINISHED}", platform, user_id, quiz_id))[0]
    best, last = row["best"], row["last"]
    return int(row["n"]), None if best is None else int(best), None if last is None else int(last)


def last_total(platform: str, user_id: str, quiz_id: str) -> Command[int | None]:
    """Questions in the last finished full attempt: a round's may be fewer than the quiz's
    (`/round start questions:3`), so its score is out of its own total. (The best's total
    is `best_score`'s: one rule for which attempt is the best.)"""
    rows = yield q(f"SELECT position {_FINISHED}{_LAST}", platform, user_id, quiz_id)
    return int(rows[0]["position"]) if rows else None


def best(quiz_id: str, scope: str, limit: int) -> Command[list[BestRow]]:
    """Top best scores in a scope, ties broken by the earlier finish."""
    rows = yield q(
        "SELECT b.platform, b.user_id, u.display_name, b.score, b.total, b.finished_at "
        "FROM best_scores b JOIN users u ON u.platform = b.platform AND u.user_id = b.user_id "
        "WHERE b.quiz_id = ? AND b.scope = ? ORDER BY b.score DESC, b.finished_at ASC LIMIT ?",
        quiz_id, scope, limit)
    return [from_row(BestRow, r) for r in rows]


def best_score(quiz_id: str, platform: str, user_id: str) -> Command[tuple[int, int] | None]:
    """The user's global best score on this quiz and the questions it was out of (a round's
    may be fewer than the quiz's)."""
    row = one((yield q("SELECT score, total FROM best_scores WHERE quiz_id = ? AND scope = '' "
                       "AND platform = ? AND user_id = ?", quiz_id, platform, user_id)))
    return None if row is None else (int(row["score"]), int(row["total"]))


def prune_abandoned(before: float) -> Command[int]:
    """Delete abandoned sessions with no answers that started before `before`."""
    rows = yield q("DELETE FROM sessions WHERE status = 'abandoned' AND started_at < ? "
                   "AND NOT EXISTS (SELECT 1 FROM answers a WHERE a.session_id = sessions.id) "
                   "RETURNING id", before)
    return len(rows)


def reset_user(platform: str, user_id: str) -> Command[int]:
    """Delete the user's sessions, answers, scores, cards and reviews; how many sessions went.

    Sessions go first (an answer in flight holds its session's row, so on PostgreSQL the
    reset waits for it and then deletes what it wrote), and reviews before cards, the order
    `apply_review` takes them in.
    """
    yield lock(_LOCK_USER, platform, user_id)
    gone: Rows = yield q("DELETE FROM sessions WHERE platform = ? AND user_id = ? RETURNING id",
                         platform, user_id)
    for table in ("best_scores", "reviews", "cards", "question_messages"):
        yield q(f"DELETE FROM {table} WHERE platform = ? AND user_id = ?", platform, user_id)
    return len(gone)
