"""The question of the day: one body per command.

A chat's daily is one row and one job ("daily", `daily_key`) due at its next post; the job's
handler (`bot.features.daily.Dailies`) opens that day's question as a one-question round of
kind "daily", whose post and reveal are round post jobs like any round's. Opening is guarded
by the job's due time, so a job run twice (a restart between the claim and the finish)
opens one question.
"""

from __future__ import annotations

from bot.store.command import Command, one, q
from bot.store.commands.jobs_sql import cancel_job, schedule
from bot.store.commands.rounds_sql import create_round
from bot.store.round_rows import DailyRow, NewRound, RoundRow
from bot.store.rows import NewJob, columns, first

DAILY_KIND = "daily"
DAILY_COLUMNS = columns(DailyRow)


def daily_key(platform: str, chat_id: str) -> str:
    """The job key of a chat's next question of the day."""
    return f"daily:{platform}:{chat_id}"


def set_daily(daily: DailyRow, due_at: float, now: float) -> Command[None]:
    """Store the chat's daily (one per chat: a second replaces the first) and its job."""
    d = daily
    yield q(f"INSERT INTO dailies ({DAILY_COLUMNS}, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (platform, chat_id) DO UPDATE "
            "SET board_chat = excluded.board_chat, quiz_id = excluded.quiz_id, "
            "lang = excluded.lang, post_minute = excluded.post_minute, "
            "utc_offset = excluded.utc_offset, close_hours = excluded.close_hours, "
            "host_id = excluded.host_id, host_name = excluded.host_name, "
            "stopped_at = NULL, stop_reason = NULL",
            d.platform, d.chat_id, d.board_chat, d.quiz_id, d.lang, d.post_minute, d.utc_offset,
            d.close_hours, d.host_id, d.host_name, now)
    yield from schedule(NewJob(DAILY_KIND, daily_key(d.platform, d.chat_id), due_at,
                               {"platform": d.platform, "chat_id": d.chat_id}))


def drop_daily(platform: str, chat_id: str) -> Command[bool]:
    """Switch the chat's daily off (a question already open still gets its reveal)."""
    yield from cancel_job(daily_key(platform, chat_id))
    return bool((yield q("DELETE FROM dailies WHERE platform = ? AND chat_id = ? "
                         "RETURNING chat_id", platform, chat_id)))


def stop_daily(platform: str, chat_id: str, reason: str, now: float
               ) -> Command[DailyRow | None]:
    """The platform no longer lets the bot post in the chat (`reason`: 'forbidden' or
    'gone'): its daily goes off and its row stays to say why (`daily_stopped`) until
    /daily on or off. The daily as it was, the first time only (None after)."""
    yield from cancel_job(daily_key(platform, chat_id))
    return first(DailyRow, (yield q(
        "UPDATE dailies SET stopped_at = ?, stop_reason = ? WHERE platform = ? AND chat_id = ? "
        f"AND stopped_at IS NULL RETURNING {DAILY_COLUMNS}", now, reason, platform, chat_id)))


def get_daily(platform: str, chat_id: str) -> Command[DailyRow | None]:
    """The chat's daily, if it is on."""
    return first(DailyRow, (yield q(f"SELECT {DAILY_COLUMNS} FROM dailies WHERE platform = ? "
                                    "AND chat_id = ? AND stopped_at IS NULL", platform,
                                    chat_id)))


def daily_stopped(platform: str, chat_id: str) -> Command[str | None]:
    """Why the chat's daily went off by itself ('forbidden', 'gone'), or None."""
    row = one((yield q("SELECT stop_reason FROM dailies WHERE platform = ? AND chat_id = ? "
                       "AND stopped_at IS NOT NULL", platform, chat_id)))
    return None if row is None else str(row["stop_reason"])


def start_daily(new: NewRound, due_at: float, now: float) -> Command[RoundRow | None]:
    """Open the day's question unless the post due at `due_at` already opened one."""
    done = one((yield q("SELECT id FROM rounds WHERE platform = ? AND chat_id = ? "
                        "AND kind = 'daily' AND started_at >= ?", new.platform, new.chat_id,
                        due_at)))
    if done is not None:
        return None
    return (yield from create_round(new, now))


def posting_chats(platform: str, board_chat: str) -> Command[list[str]]:
    """The chats of a server (`board_chat`: its boards' scope) where a round runs or the
    question of the day is on: what ends when the bot leaves the server."""
    rows = yield q("SELECT chat_id FROM rounds WHERE platform = ? AND board_chat = ? "
                   "AND status = 'active' UNION SELECT chat_id FROM dailies WHERE platform = ? "
                   "AND board_chat = ? AND stopped_at IS NULL", platform, board_chat,
                   platform, board_chat)
    return sorted(str(r["chat_id"]) for r in rows)
