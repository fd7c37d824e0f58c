"""A chat that the platform gave a new id: everything kept under the old id moves, in one
transaction (`move_chat`). Telegram does this when a group is upgraded to a supergroup.

What holds a chat id, and how a row that already exists at the new id is kept:
- `rounds.chat_id` and `.board_chat`, `sessions.chat_id`: moved (no key to collide; a round
  running at both ids is the one case, and the old one is stopped first, what was answered
  counted, so that one of each kind runs there);
- `best_scores.scope` (`<platform>:<chat>`): merged, each member's better score kept (the
  earlier finish keeps a tie), as a finished attempt is kept (`KEEP_BEST_SQL`);
- `group_settings`, `dailies` (and `.board_chat`), `chats`, `rewards.guild_id`,
  `reward_grants.guild_id`, `group_managers`: moved, unless the new id has its own row: that
  row was written after the upgrade, so it is the newer choice and stays, and the old one
  is dropped;
- `jobs`: a payload naming the chat (the daily's) names the new id, and a key ending in
  the chat (`daily:<platform>:<chat>`) is re-keyed, or dropped where the new id has its own.
Nothing else names a chat: `learner_settings.chat_id` and `question_messages` are private
chats, `inbox` holds raw updates, installed quizzes and problem reports belong to no chat.

A move decides from what it reads, so running it again (both of Telegram's service messages,
an update delivered twice) finds nothing at the old id and changes nothing.
"""

from __future__ import annotations

import json

from bot.store.command import Command, q
from bot.store.commands import rounds_sql

CHAT_FIELDS = ("chat_id", "board_chat")  # the payload fields that name a chat

# table, its chat column, the rest of its key (besides platform): moved unless the new id
# has its own row
KEYED = (
    ("group_settings", "chat_id", ()),
    ("dailies", "chat_id", ()),
    ("chats", "chat_id", ()),
    ("rewards", "guild_id", ("quiz_id",)),
    ("reward_grants", "guild_id", ("quiz_id", "user_id")),
    ("group_managers", "chat_id", ("user_id",)),
)

MERGE_BEST_SQL = (
    "INSERT INTO best_scores (quiz_id, scope, platform, user_id, score, total, finished_at) "
    "SELECT quiz_id, CAST(? AS text), platform, user_id, score, total, finished_at "
    "FROM best_scores WHERE scope = ? "
    "ON CONFLICT (quiz_id, scope, platform, user_id) DO UPDATE "
    "SET score = excluded.score, total = excluded.total, finished_at = excluded.finished_at "
    "WHERE excluded.score > best_scores.score OR (excluded.score = best_scores.score "
    "AND excluded.finished_at < best_scores.finished_at)")


def move_chat(platform: str, old: str, new: str, now: float) -> Command[dict[str, int]]:
    """Move the chat's rows from id `old` to `new`; rows moved (or merged) per table, empty
    when nothing was at `old` (already moved, or a chat the bot never kept anything of)."""
    if old == new:
        return {}
    moved: dict[str, int] = {}
    moved["rounds"] = yield from _move_rounds(platform, old, new, now)
    moved["sessions"] = len((yield q("UPDATE sessions SET chat_id = ? WHERE platform = ? "
                                     "AND chat_id = ? RETURNING id", new, platform, old)))
    old_scope, new_scope = f"{platform}:{old}", f"{platform}:{new}"
    yield q(MERGE_BEST_SQL, new_scope, old_scope)
    moved["best_scores"] = len((yield q("DELETE FROM best_scores WHERE scope = ? "
                                        "RETURNING user_id", old_scope)))
    for table, column, key in KEYED:
        moved[table] = yield from _move_keyed(table, column, key, platform, old, new)
    yield q("UPDATE dailies SET board_chat = ? WHERE platform = ? AND board_chat = ?",
            new, platform, old)
    moved["jobs"] = yield from _move_jobs(platform, old, new)
    return {table: n for table, n in moved.items() if n}


def _move_rounds(platform: str, old: str, new: str, now: float) -> Command[int]:
    """The chat's rounds, and its running ones go on at the new id: a question whose message
    is in the old chat (out of members' reach now) is posted again there."""
    clashes = yield q("SELECT o.id FROM rounds o JOIN rounds n ON n.platform = o.platform "
                      "AND n.kind = o.kind AND n.status = 'active' AND n.chat_id = ? "
                      "WHERE o.platform = ? AND o.chat_id = ? AND o.status = 'active' "
                      "ORDER BY o.id", new, platform, old)
    for row in clashes:  # one of each kind runs per chat: the new id's goes on
        yield from rounds_sql.stop_round(int(row["id"]), now)
    reposted = yield from rounds_sql.unpost_open_questions(platform, old)
    rows = yield q("UPDATE rounds SET chat_id = ? WHERE platform = ? AND chat_id = ? "
                   "RETURNING id", new, platform, old)
    yield q("UPDATE rounds SET board_chat = ? WHERE platform = ? AND board_chat = ?",
            new, platform, old)
    for round_id, qindex in reposted:
        yield from rounds_sql.post_job(platform, round_id, qindex, "q", now)
    return len(rows)


def _move_keyed(table: str, column: str, key: tuple[str, ...], platform: str, old: str,
                new: str) -> Command[int]:
    """Move `table`'s rows of the chat unless the new id has its own (kept: the newer)."""
    same = "".join(f" AND x.{c} = {table}.{c}" for c in key)
    rows = yield q(f"UPDATE {table} SET {column} = ? WHERE platform = ? AND {column} = ? "
                   f"AND NOT EXISTS (SELECT 1 FROM {table} x WHERE x.platform = ? "
                   f"AND x.{column} = ?{same}) RETURNING platform",
                   new, platform, old, platform, new)
    yield q(f"DELETE FROM {table} WHERE platform = ? AND {column} = ?", platform, old)
    return len(rows)


def _move_jobs(platform: str, old: str, new: str) -> Command[int]:
    """Jobs whose payload names the chat name the new id; one keyed by the chat is re-keyed
    (or dropped when the new id has its own, e.g. a daily set there since)."""
    suffix = f":{platform}:{old}"
    found = yield q("SELECT id, kind, key, due_at, payload FROM jobs WHERE payload LIKE ?",
                    f"%{old}%")
    count = 0
    for row in found:
        payload = json.loads(row["payload"])
        fields = [f for f in CHAT_FIELDS if str(payload.get(f)) == old]
        if not fields or payload.get("platform") != platform:
            continue
        payload.update(dict.fromkeys(fields, new))
        key = str(row["key"])
        if key.endswith(suffix):
            key = f"{key[: -len(suffix)]}:{platform}:{new}"
        # a new row, unclaimed: a handler running the old one right now finds its claim
        # gone when it finishes, rather than deleting the moved job as the old chat's
        yield q("DELETE FROM jobs WHERE id = ?", row["id"])
        yield q("INSERT INTO jobs (kind, key, due_at, payload) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (key) DO NOTHING", row["kind"], key, row["due_at"],
                json.dumps(payload))
        count += 1
    return count


__all__ = ["move_chat"]
