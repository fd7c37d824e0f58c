"""Rewards for reaching a score on a quiz: one body per command (`bot.features.rewards`)."""

from __future__ import annotations

from bot.store.command import Command, q
from bot.store.round_rows import RewardRow
from bot.store.rows import columns, first

COLUMNS = columns(RewardRow)


def set_reward(reward: RewardRow, now: float) -> Command[None]:
    """Tie a role to a quiz and a score in a server (replacing the quiz's old reward)."""
    r = reward
    yield q(f"INSERT INTO rewards ({COLUMNS}, set_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (platform, guild_id, quiz_id) DO UPDATE SET role_id = excluded.role_id, "
            "role_name = excluded.role_name, score = excluded.score, set_by = excluded.set_by, "
            "set_at = excluded.set_at", r.platform, r.guild_id, r.quiz_id, r.role_id,
            r.role_name, r.score, r.set_by, now)


def drop_reward(platform: str, guild_id: str, quiz_id: str) -> Command[RewardRow | None]:
    """Remove the quiz's reward in the server; the one removed, if any."""
    rows = yield q(f"DELETE FROM rewards WHERE platform = ? AND guild_id = ? AND quiz_id = ? "
                   f"RETURNING {COLUMNS}", platform, guild_id, quiz_id)
    return first(RewardRow, rows)


def get_reward(platform: str, guild_id: str, quiz_id: str) -> Command[RewardRow | None]:
    """The quiz's reward in the server, if any."""
    return first(RewardRow, (yield q(f"SELECT {COLUMNS} FROM rewards WHERE platform = ? "
                                     "AND guild_id = ? AND quiz_id = ?", platform, guild_id,
                                     quiz_id)))


def earn_reward(platform: str, guild_id: str, quiz_id: str, user_id: str, score: int,
                now: float) -> Command[RewardRow | None]:
    """An attempt scored `score`: the reward it earns (recorded), or None."""
    reward = yield from get_reward(platform, guild_id, quiz_id)
    if reward is None or score < reward.score:
        return None
    yield q("INSERT INTO reward_grants (platform, guild_id, quiz_id, user_id, role_id, score, "
            "earned_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (platform, guild_id, quiz_id, "
            "user_id) DO UPDATE SET role_id = excluded.role_id, score = excluded.score, "
            "earned_at = excluded.earned_at", platform, guild_id, quiz_id, user_id,
            reward.role_id, score, now)
    return reward
