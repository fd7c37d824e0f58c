"""What a question of the day's reveal reads besides its own answers: the chat's recent
questions of the day and who answered them (participation streaks, Sunday's week)."""

from __future__ import annotations

from bot.store.command import Command, one, q
from bot.store.round_rows import DailyAnswer, DailyHistory, RoundRow
from bot.store.rows import from_row

HISTORY_DAYS = 60  # questions of the day read for streaks (and the week's standing)


def history(rnd: RoundRow) -> Command[DailyHistory]:
    """The chat's last HISTORY_DAYS questions of the day up to `rnd`, and their answers."""
    days = yield q("SELECT id, started_at FROM rounds WHERE platform = ? AND chat_id = ? "
                   "AND kind = 'daily' AND started_at <= ? ORDER BY started_at DESC LIMIT ?",
                   rnd.platform, rnd.chat_id, rnd.started_at, HISTORY_DAYS)
    picked = [(int(r["id"]), float(r["started_at"])) for r in days]
    answers: list[DailyAnswer] = []
    if picked:
        rows = yield q(
            "SELECT a.round_id, r.started_at, a.user_id, a.display_name, a.correct "
            "FROM round_answers a JOIN rounds r ON r.id = a.round_id WHERE r.platform = ? "
            "AND r.chat_id = ? AND r.kind = 'daily' AND r.started_at >= ? "
            "AND r.started_at <= ?", rnd.platform, rnd.chat_id, picked[-1][1], rnd.started_at)
        answers = [from_row(DailyAnswer, r) for r in rows]
    offset = one((yield q("SELECT utc_offset FROM dailies WHERE platform = ? AND chat_id = ?",
                          rnd.platform, rnd.chat_id)))
    return DailyHistory(tuple(picked), tuple(answers),
                        0 if offset is None else int(offset["utc_offset"]))
