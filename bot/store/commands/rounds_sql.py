"""Study-group rounds: one body per command.

Who opens a question, reveals it, stops or skips a round is decided by a guarded
`UPDATE ... WHERE ... RETURNING` (on PostgreSQL a second UPDATE of the row waits for the
first to commit, then re-checks its WHERE and matches nothing). PostgreSQL takes row locks
in one order, round then question, so writers wait on each other but cannot deadlock: a
reveal locks the rounds it reveals first, like `stop_round`; a press locks its question row,
so presses on one question take turns and a reveal waits for a press in flight (or the
press sees the reveal): an answer is either in the reveal or refused as late, and "every
member has answered" is counted over every committed press. SQLite's writer lock orders
all of it already.
"""

from __future__ import annotations

import json

from bot.store.command import Command, lock, many, one, q
from bot.store.commands import daily_history_sql, round_teams_sql
from bot.store.commands.jobs_sql import schedule
from bot.store.commands.learning_sql import apply_review_alone, ensure_user
from bot.store.commands.sessions_sql import KEEP_BEST_SQL
from bot.store.round_rows import (
    ROUND_SQL,
    NewPress,
    NewRound,
    Pressed,
    PressWrite,
    RoundAnswer,
    RoundPost,
    RoundRow,
    post_key,
    post_keys_like,
    post_kind,
)
from bot.store.rows import NewJob, first, from_row, scopes_of


def post_job(platform: str, round_id: int, qindex: int, what: str, now: float
             ) -> Command[None]:
    """Schedule the job that shows one post of a round ("q", "r" or "s"), due `now`: the
    durable job, written in the claim's own transaction, so a process that dies after the
    claim leaves the job, not a lost reveal."""
    yield from schedule(NewJob(post_kind(platform), post_key(round_id, qindex, what), now,
                               {"round": round_id, "qindex": qindex, "what": what}))


def unpost_open_questions(platform: str, chat_id: str) -> Command[list[tuple[int, int]]]:
    """Forget the messages of the chat's open questions (the chat is moving to a new id,
    where those messages are not): (round id, question index) of each, to post again."""
    yield lock("SELECT id FROM rounds WHERE platform = ? AND chat_id = ? AND status = 'active' "
               "ORDER BY id FOR UPDATE", platform, chat_id)  # round, then question
    rows = yield q("UPDATE round_questions SET message_ref = NULL WHERE revealed_at IS NULL "
                   "AND message_ref IS NOT NULL AND round_id IN (SELECT id FROM rounds "
                   "WHERE platform = ? AND chat_id = ? AND status = 'active') "
                   "RETURNING round_id, qindex", platform, chat_id)
    return sorted((int(r["round_id"]), int(r["qindex"])) for r in rows)


def _round(round_id: int) -> Command[RoundRow]:
    found = yield from get_round(round_id)
    assert found is not None
    return found


def round_answers(round_id: int, upto: int) -> Command[tuple[RoundAnswer, ...]]:
    """Every answer of the round to questions 0..upto (the full "Who answered?" list)."""
    rows = yield q("SELECT user_id, display_name, qindex, chosen, correct, elapsed "
                   "FROM round_answers WHERE round_id = ? AND qindex <= ? "
                   "ORDER BY qindex, elapsed, user_id", round_id, upto)
    return tuple(from_row(RoundAnswer, r) for r in rows)


def _record_participants(rnd: RoundRow, upto: int, now: float) -> Command[None]:
    """One finished full session per member over questions 0..upto: /stats, /review and the
    boards then count the round like any attempt (round_id marks it as a round's). A
    question of the day is no attempt at a quiz (one question would read as 1/1 on the
    boards): its answers feed review cards, streaks and the week only."""
    if upto < 0 or rnd.kind == "daily":
        return
    members: dict[str, list[RoundAnswer]] = {}
    for a in (yield from round_answers(rnd.id, upto)):
        members.setdefault(a.user_id, []).append(a)
    question_ids = list(rnd.question_ids[: upto + 1])
    orders = [list(o) for o in rnd.option_orders[: upto + 1]]
    for user_id, theirs in sorted(members.items()):
        score = sum(a.correct for a in theirs)
        yield from ensure_user(rnd.platform, user_id, now, theirs[0].display_name)
        rows = yield q(
            "INSERT INTO sessions (platform, user_id, chat_id, quiz_id, kind, status, "
            "question_ids, option_orders, position, score, started_at, finished_at, round_id, "
            "seed) VALUES (?, ?, ?, ?, 'full', 'finished', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            rnd.platform, user_id, rnd.board_chat, rnd.quiz_id, json.dumps(question_ids),
            json.dumps(orders), len(question_ids), score, rnd.started_at, now, rnd.id, rnd.seed)
        session_id = int(rows[0]["id"])
        yield many("INSERT INTO answers (session_id, position, question_id, chosen, correct, "
                   "answered_at) VALUES (?, ?, ?, ?, ?, ?)",
                   [(session_id, a.qindex, rnd.question_ids[a.qindex], a.chosen,
                     int(a.correct), now) for a in theirs])
        yield many(KEEP_BEST_SQL, [(rnd.quiz_id, scope, rnd.platform, user_id, score,
                                    len(question_ids), now)
                                   for scope in scopes_of(rnd.platform, rnd.board_chat)])


def _unanswered(rnd: RoundRow, qindex: int, last: int) -> Command[bool]:
    """True when nobody answered the round's `last` questions up to `qindex` (a daily: never)."""
    if last <= 0 or rnd.kind != "round" or qindex + 1 < last:
        return False
    row = one((yield q("SELECT COUNT(*) AS n FROM round_answers WHERE round_id = ? "
                       "AND qindex > ? AND qindex <= ?", rnd.id, qindex - last, qindex)))
    return row is not None and int(row["n"]) == 0


def _end(rnd: RoundRow, now: float, *, idle: int = 0) -> Command[int | None]:
    """End a running round as a stop does, what was answered counted (`idle`: after that many
    questions nobody answered). Its position, or None when it was not running."""
    stopped = yield q("UPDATE rounds SET status = 'stopped', finished_at = ?, "
                      "next_open_at = NULL, ended_idle = ? WHERE id = ? AND status = 'active' "
                      "RETURNING position", now, idle, rnd.id)
    if not stopped:
        return None
    position = int(stopped[0]["position"])
    yield from _record_participants(rnd, position, now)
    return position


def _after_reveal(round_id: int, qindex: int, now: float,
                  unanswered_to_end: int = 0) -> Command[RoundRow]:
    rnd = yield from _round(round_id)
    if not rnd.active:
        return rnd
    if qindex + 1 < rnd.total and (yield from _unanswered(rnd, qindex, unanswered_to_end)):
        # nobody is playing: this reveal is the round's end, as a stop shows it
        yield from _end(rnd, now, idle=unanswered_to_end)
    elif qindex + 1 < rnd.total:
        yield q("UPDATE rounds SET next_open_at = ? WHERE id = ? AND status = 'active'",
                now + rnd.reveal_pause, round_id)
    else:
        yield q("UPDATE rounds SET status = 'finished', finished_at = ?, next_open_at = NULL "
                "WHERE id = ? AND status = 'active'", now, round_id)
        yield from _record_participants(rnd, qindex, now)
    return (yield from _round(round_id))


def create_round(new: NewRound, now: float) -> Command[RoundRow | None]:
    """Store a round whose first question opens at `now`; None if one is running."""
    n = new
    rows = yield q(
        "INSERT INTO rounds (platform, chat_id, board_chat, host_id, host_name, quiz_id, lang, "
        "question_ids, option_orders, seconds, reveal_pause, status, next_open_at, started_at, "
        "seed, scoring, teams, untimed, kind) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING RETURNING id",
        n.platform, n.chat_id, n.board_chat, n.host_id, n.host_name, n.quiz_id, n.lang,
        json.dumps(list(n.question_ids)), json.dumps([list(o) for o in n.option_orders]),
        n.seconds, n.reveal_pause, now + n.lobby, now, n.seed, n.scoring, n.teams,
        int(n.untimed), n.kind)
    return (yield from _round(int(rows[0]["id"]))) if rows else None


def get_round(round_id: int) -> Command[RoundRow | None]:
    """The round with this id, or None."""
    return first(RoundRow, (yield q(ROUND_SQL + "WHERE id = ?", round_id)))


def active_round(platform: str, chat_id: str) -> Command[RoundRow | None]:
    """The chat's running round, if any (not its question of the day)."""
    return first(RoundRow, (yield q(ROUND_SQL + "WHERE platform = ? AND chat_id = ? "
                                    "AND status = 'active' AND kind = 'round'", platform,
                                    chat_id)))


def open_due_questions(platform: str, now: float) -> Command[list[tuple[int, int]]]:
    """Claim every round whose next question is due (the guarded UPDATE decides who) and
    write the job that posts it; (round id, question index) of each opened."""
    claimed = yield q("UPDATE rounds SET position = position + 1, next_open_at = NULL "
                      "WHERE platform = ? AND status = 'active' AND next_open_at IS NOT NULL "
                      "AND next_open_at <= ? RETURNING id", platform, now)
    opened = []
    for round_id in sorted(int(r["id"]) for r in claimed):
        rnd = yield from _round(round_id)
        deadline = now + rnd.seconds
        if rnd.teams and rnd.position == 0:
            yield from round_teams_sql.draft_teams(rnd)
        yield q("INSERT INTO round_questions (round_id, qindex, opened_at, deadline) "
                "VALUES (?, ?, ?, ?)", rnd.id, rnd.position, now, deadline)
        yield from post_job(rnd.platform, rnd.id, rnd.position, "q", now)
        opened.append((rnd.id, rnd.position))
    return opened


EARLY = ("UPDATE round_questions SET deadline = ? WHERE round_id = ? AND qindex = ? "
         "AND revealed_at IS NULL AND deadline > ? AND {first}"
         "(SELECT COUNT({who}) FROM {members} WHERE round_id = ?) = "
         "(SELECT COUNT(*) FROM round_answers WHERE round_id = ? AND qindex = ?) "
         "RETURNING qindex")
EARLY_TIMED = EARLY.format(first="qindex > 0 AND ", who="DISTINCT user_id",
                           members="round_answers")
EARLY_UNTIMED = EARLY.format(first="", who="*", members="round_members")


def press_round(press: NewPress) -> Command[Pressed]:
    """First press on the open question locks in; later ones find the stored answer."""
    p = press
    yield lock("SELECT 1 FROM round_questions WHERE round_id = ? AND qindex = ? "
               "FOR NO KEY UPDATE", p.round_id, p.qindex)
    locked = yield q(
        "INSERT INTO round_answers (round_id, qindex, user_id, display_name, chosen, correct, "
        "elapsed) SELECT q.round_id, q.qindex, CAST(? AS TEXT), CAST(? AS TEXT), "
        "CAST(? AS INTEGER), CAST(? AS INTEGER), "
        "CASE WHEN CAST(? AS DOUBLE PRECISION) > q.opened_at "
        "THEN CAST(? AS DOUBLE PRECISION) - q.opened_at ELSE 0 END "
        "FROM round_questions q WHERE q.round_id = ? AND q.qindex = ? "
        "AND q.revealed_at IS NULL AND q.deadline > ? "
        "ON CONFLICT (round_id, qindex, user_id) DO NOTHING RETURNING chosen",
        p.user_id, p.display_name, p.chosen, int(p.correct), p.now, p.now, p.round_id,
        p.qindex, p.now)
    if locked:
        placed, joined = None, False
        if p.teams or p.untimed:
            placed, joined = yield from round_teams_sql.place_on_press(
                p.round_id, p.user_id, p.display_name, p.teams, p.now)
        # Everyone who has joined has answered: reveal now, except on the first question of
        # a timed round, which runs its full time so that people can join (an untimed
        # round's members joined before it).
        early = yield q(EARLY_UNTIMED if p.untimed else EARLY_TIMED, p.now, p.round_id,
                        p.qindex, p.now, p.round_id, p.round_id, p.qindex)
        if p.review is not None:  # the member's card moves with the lock-in, or not at all
            yield from apply_review_alone(p.review)
        return Pressed(PressWrite.LOCKED, int(locked[0]["chosen"]), early=bool(early),
                       team=placed, joined=joined)
    where = one((yield q("SELECT r.position, r.status, r.kind FROM rounds r "
                         "JOIN round_questions q ON q.round_id = r.id AND q.qindex = ? "
                         "WHERE r.id = ?", p.qindex, p.round_id)))
    if where is None or (where["status"] != "active" and where["kind"] == "round"):
        return Pressed(PressWrite.GONE, None)  # ended: no next question to wait for
    if p.qindex < int(where["position"]):  # answered or not: point to the open one
        return Pressed(PressWrite.STALE, None)
    stored = one((yield q("SELECT chosen FROM round_answers WHERE round_id = ? AND qindex = ? "
                          "AND user_id = ?", p.round_id, p.qindex, p.user_id)))
    if stored is not None:
        return Pressed(PressWrite.REPEAT, int(stored["chosen"]))
    return Pressed(PressWrite.LATE, None)


def hold_unshown(platform: str, now: float) -> Command[int]:
    """Questions due for their reveal whose post is not out yet and still being tried (the
    platform failing, a restart) are timed from `now` instead of revealed unseen; once
    their post is given up they are revealed. How many were held."""
    unshown = ("revealed_at IS NULL AND deadline <= ? AND message_ref IS NULL AND EXISTS ("
               "SELECT 1 FROM jobs WHERE jobs.key = 'round:' || CAST(round_questions.round_id "
               "AS TEXT) || ':' || CAST(round_questions.qindex AS TEXT) || ':q' "
               "AND jobs.done_at IS NULL)")
    yield lock("SELECT id FROM rounds WHERE platform = ? AND status = 'active' "  # as a reveal
               f"AND id IN (SELECT round_id FROM round_questions WHERE {unshown}) "
               "ORDER BY id FOR NO KEY UPDATE", platform, now)
    held = yield q("UPDATE round_questions SET "
                   "deadline = deadline + (CAST(? AS DOUBLE PRECISION) - opened_at), "
                   f"opened_at = CAST(? AS DOUBLE PRECISION) WHERE {unshown} "
                   "AND round_id IN (SELECT id FROM rounds WHERE platform = ? "
                   "AND status = 'active') RETURNING round_id", now, now, now, platform)
    return len(held)


def reveal_due_questions(platform: str, now: float, unanswered_to_end: int = 0
                         ) -> Command[list[tuple[int, int]]]:
    """Claim every question past its deadline; one caller wins each (revealed_at IS NULL).
    Schedules the next question or finishes the round (recording each participant's
    session) and writes the job that posts the reveal (`round_post` reads what it shows);
    (round id, question index) of each revealed. A round whose last `unanswered_to_end`
    questions (0: no such rule) nobody answered ends with this reveal, as a stop would: the
    same transaction decides, so no second process opens its next question."""
    yield lock("SELECT id FROM rounds WHERE platform = ? AND status = 'active' "
               "AND id IN (SELECT round_id FROM round_questions WHERE revealed_at IS NULL "
               "AND deadline <= ?) ORDER BY id FOR NO KEY UPDATE", platform, now)
    claimed = yield q(
        "UPDATE round_questions SET revealed_at = ? WHERE revealed_at IS NULL "
        "AND deadline <= ? AND round_id IN (SELECT id FROM rounds "
        "WHERE platform = ? AND status = 'active') "
        "RETURNING round_id, qindex, deadline", now, now, platform)
    revealed = []
    for row in sorted(claimed, key=lambda r: (r["deadline"], r["round_id"])):
        rnd = yield from _after_reveal(int(row["round_id"]), int(row["qindex"]), now,
                                       unanswered_to_end)
        yield from post_job(rnd.platform, rnd.id, int(row["qindex"]), "r", now)
        revealed.append((rnd.id, int(row["qindex"])))
    return revealed


def skip_round(round_id: int, now: float) -> Command[bool]:
    """The open question's deadline (or the next opening) becomes now."""
    moved = yield q("UPDATE round_questions SET deadline = ? WHERE round_id = ? "
                    "AND revealed_at IS NULL AND deadline > ? "
                    "AND round_id IN (SELECT id FROM rounds WHERE status = 'active') "
                    "RETURNING qindex", now, round_id, now)
    if moved:
        return True
    return bool((yield q("UPDATE rounds SET next_open_at = ? WHERE id = ? AND status = 'active' "
                         "AND next_open_at > ? RETURNING id", now, round_id, now)))


def stop_round(round_id: int, now: float) -> Command[tuple[int, str] | None]:
    """Stop the round; the open question (if any) is revealed by this caller. The post its
    job shows (`round_post`): (question index, "r") for that reveal, (position, "s") for a
    stop between questions; None when the round was not running."""
    rnd = yield from get_round(round_id)
    position = None if rnd is None else (yield from _end(rnd, now))
    if rnd is None or position is None:
        return None
    claimed = one((yield q("UPDATE round_questions SET revealed_at = ? WHERE round_id = ? "
                           "AND revealed_at IS NULL RETURNING qindex", now, round_id)))
    post = (position, "s") if claimed is None else (int(claimed["qindex"]), "r")
    yield from post_job(rnd.platform, rnd.id, *post, now)
    return post


def end_unseen_round(round_id: int, now: float) -> Command[bool]:
    """End the round where nobody can see it any more (the bot was removed from its chat or
    may no longer post there): as a stop, what was answered counted, but with nothing left
    to post: its open question is closed and its post jobs still waiting are dropped (each
    would be one more refused call). True when this call ended it."""
    rnd = yield from get_round(round_id)
    if rnd is None or (yield from _end(rnd, now)) is None:
        return False
    yield q("UPDATE round_questions SET revealed_at = ? WHERE round_id = ? "
            "AND revealed_at IS NULL", now, round_id)
    yield q("DELETE FROM jobs WHERE key LIKE ? AND done_at IS NULL AND claimed_at IS NULL",
            post_keys_like(round_id))
    return True


def set_round_message(round_id: int, qindex: int, ref: str, over: str | None = None
                      ) -> Command[None]:
    """Remember the platform's id of a question message; `over`: only in place of that
    stored ref (a post not sure to be out, found by a press), never over a known id."""
    guard = "" if over is None else " AND message_ref = ?"
    yield q("UPDATE round_questions SET message_ref = ? WHERE round_id = ? AND qindex = ?"
            + guard, ref, round_id, qindex, *(() if over is None else (over,)))


def time_from_post(round_id: int, qindex: int, now: float) -> Command[float | None]:
    """A question about to be posted late (the platform failing, a restart) is timed from
    `now`: open as long as its post says, speed counted from when members see it. Its new
    deadline, or None when it is revealed or out already."""
    row = one((yield q("UPDATE round_questions SET "
                       "deadline = deadline + (CAST(? AS DOUBLE PRECISION) - opened_at), "
                       "opened_at = CAST(? AS DOUBLE PRECISION) "
                       "WHERE round_id = ? AND qindex = ? AND revealed_at IS NULL "
                       "AND message_ref IS NULL RETURNING deadline",
                       now, now, round_id, qindex)))
    return None if row is None else float(row["deadline"])


def round_message(round_id: int, qindex: int) -> Command[str | None]:
    """The stored id of a question message."""
    row = one((yield q("SELECT message_ref FROM round_questions WHERE round_id = ? "
                       "AND qindex = ?", round_id, qindex)))
    return None if row is None or row["message_ref"] is None else str(row["message_ref"])


def round_post(round_id: int, qindex: int) -> Command[RoundPost | None]:
    """The round and question a post job shows, as they stand now."""
    rnd = yield from get_round(round_id)
    if rnd is None:
        return None
    row = one((yield q("SELECT deadline, revealed_at, message_ref FROM round_questions "
                       "WHERE round_id = ? AND qindex = ?", round_id, qindex)))
    answers = yield from round_answers(round_id, qindex)
    # Who joined: only team and untimed rounds have members to read.
    joined = (yield from round_teams_sql.members(rnd.id)) if rnd.lobby else ()
    if row is None:
        return RoundPost(rnd, qindex, None, None, None, answers, joined)
    history = None
    if row["revealed_at"] is not None and rnd.kind == "daily":  # its streaks, the week
        history = yield from daily_history_sql.history(rnd)
    return RoundPost(rnd, qindex, row["deadline"], row["revealed_at"], row["message_ref"],
                     answers, joined, history)


def next_round_due(platform: str) -> Command[float | None]:
    """The earliest pending deadline or opening of the platform's running rounds."""
    row = one((yield q(
        "SELECT MIN(t) AS t FROM ("
        "SELECT q.deadline AS t FROM round_questions q JOIN rounds r ON r.id = q.round_id "
        "WHERE r.platform = ?1 AND r.status = 'active' AND q.revealed_at IS NULL "
        "UNION ALL SELECT next_open_at AS t FROM rounds WHERE platform = ?1 "
        "AND status = 'active' AND next_open_at IS NOT NULL) AS due", platform)))
    return None if row is None or row["t"] is None else float(row["t"])


def round_places(platform: str, board_chat: str, limit: int) -> Command[dict[int, str]]:
    """Where the group's latest `limit` rounds ran when that is not the group itself
    (Discord: a channel of the server), as the chat's stored title, by round id."""
    rows = yield q("SELECT r.id, c.title FROM rounds r JOIN chats c ON c.platform = r.platform "
                   "AND c.chat_id = r.chat_id WHERE r.platform = ? AND r.board_chat = ? "
                   "AND r.chat_id <> r.board_chat ORDER BY r.started_at DESC, r.id DESC "
                   "LIMIT ?", platform, board_chat, limit)
    return {int(r["id"]): str(r["title"]) for r in rows}
