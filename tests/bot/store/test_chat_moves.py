"""A chat given a new id (a Telegram group upgraded to a supergroup) takes everything of its
own there in one `move_chat`, on SQLite and PostgreSQL: boards, settings, its daily and its
job, rounds (a running one goes on, its open question posted again), titles, rewards. Run
twice it changes nothing; rows the new id already has are merged or kept, never a crash."""

from __future__ import annotations

from typing import Any

from bot.store.command import Command, q
from bot.store.commands import (
    boards_sql,
    daily_sql,
    dashboard_sql,
    groups_sql,
    jobs_sql,
    rewards_sql,
    rounds_sql,
    sessions_sql,
)
from bot.store.commands.chat_moves_sql import move_chat
from bot.store.migrate import TABLES
from bot.store.protocol import Store
from bot.store.round_rows import DailyRow, NewPress, NewRound, RewardRow

T = "telegram"
OLD, NEW = "-4001", "-1004001"
NEIGHBOUR = "-40012"  # an id the old one is a prefix of: never touched
NOW = 1_800_000_000.0

# every place a chat id is kept: (table, column), and the leaderboard scope
CHAT_COLUMNS = (("rounds", "chat_id"), ("rounds", "board_chat"), ("sessions", "chat_id"),
                ("group_settings", "chat_id"), ("dailies", "chat_id"),
                ("dailies", "board_chat"), ("chats", "chat_id"), ("rewards", "guild_id"),
                ("reward_grants", "guild_id"), ("group_managers", "chat_id"))


def at(chat: str) -> Command[dict[str, int]]:
    """Rows that name the chat, per place (jobs: by key or payload)."""
    found = {}
    for table, column in CHAT_COLUMNS:
        rows = yield q(f"SELECT COUNT(*) AS n FROM {table} WHERE platform = ? "
                       f"AND {column} = ?", T, chat)
        found[f"{table}.{column}"] = int(rows[0]["n"])
    rows = yield q("SELECT COUNT(*) AS n FROM best_scores WHERE scope = ?", f"{T}:{chat}")
    found["best_scores.scope"] = int(rows[0]["n"])
    rows = yield q("SELECT key, payload FROM jobs")
    found["jobs"] = sum(1 for r in rows if r["key"].endswith(f":{chat}")
                        or f'"chat_id": "{chat}"' in r["payload"])
    return {k: n for k, n in found.items() if n}


def everything() -> Command[dict[str, list[tuple[Any, ...]]]]:
    """Every row of every table, sorted (to see that a second move changes nothing)."""
    out = {}
    for table in TABLES:
        rows = yield q(f"SELECT * FROM {table}")
        out[table] = sorted(tuple(str(v) for v in r) for r in rows)
    return out


async def played_round(store: Store, chat: str, scores: dict[str, bool], now: float) -> int:
    """A finished one-question round in `chat`: each member right or wrong."""
    rnd = await store.write(rounds_sql.create_round, NewRound(
        T, chat, chat, "1", "Hana", "parallelism", "en", ("q1",), ((0, 1),), 30, 1.0), now)
    assert rnd is not None
    await store.write(rounds_sql.open_due_questions, T, now)
    for user, right in scores.items():
        await store.write(rounds_sql.press_round,
                          NewPress(rnd.id, 0, user, f"U{user}", 0, right, now + 1))
    await store.write(rounds_sql.reveal_due_questions, T, now + 31)
    return rnd.id


async def running_round(store: Store, chat: str, now: float) -> int:
    """A round in `chat` whose first question is posted (message 77) and open."""
    rnd = await store.write(rounds_sql.create_round, NewRound(
        T, chat, chat, "1", "Hana", "parallelism", "en", ("q1", "q2"), ((0, 1), (1, 0)),
        30, 1.0), now)
    assert rnd is not None
    await store.write(rounds_sql.open_due_questions, T, now)
    await store.write(rounds_sql.set_round_message, rnd.id, 0, "77")
    await store.write(jobs_sql.cancel_job, f"round:{rnd.id}:0:q")  # shown
    return rnd.id


def daily(chat: str, minute: int) -> DailyRow:
    return DailyRow(T, chat, chat, "parallelism", "en", minute, 300, 8.0, "1", "Hana")


async def group_with_everything(store: Store, chat: str, now: float) -> None:
    await played_round(store, chat, {"1": True, "2": False}, now)
    await store.write(groups_sql.save_group_choice, T, chat, "long-context", "ur", "t:1", now)
    await store.write(daily_sql.set_daily, daily(chat, 540), now + 3600, now)
    await store.write(dashboard_sql.save_chat_title, T, chat, "Study group", now)
    await store.write(rewards_sql.set_reward,
                      RewardRow(T, chat, "parallelism", "r1", "Reader", 1, "t:1"), now)
    await store.write(rewards_sql.earn_reward, T, chat, "parallelism", "1", 1, now)
    await store.write(groups_sql.note_manager, T, chat, "3", now)


async def test_a_moved_group_is_found_at_its_new_id_and_nothing_stays(any_store: Store):
    store = any_store
    await group_with_everything(store, OLD, NOW)
    await group_with_everything(store, NEIGHBOUR, NOW)
    running = await running_round(store, OLD, NOW + 100)
    before = await store.read(at, OLD)
    neighbour = await store.read(everything)

    moved = await store.write(move_chat, T, OLD, NEW, NOW + 120)

    assert moved == {"best_scores": 2, "chats": 1, "dailies": 1, "group_settings": 1,
                     "group_managers": 1, "jobs": 1, "reward_grants": 1, "rewards": 1,
                     "rounds": 2, "sessions": 2}
    assert await store.read(at, OLD) == {}
    assert await store.read(at, NEW) == before
    assert [(b.user_id, b.score) for b in await store.read(
        sessions_sql.best, "parallelism", f"{T}:{NEW}", 10)] == [("1", 1), ("2", 0)]
    board = await store.read(boards_sql.board, "parallelism", T, NEW, rounds=True, limit=10)
    assert [(b.user_id, b.score) for b in board] == [("1", 1), ("2", 0)]
    assert await store.read(groups_sql.group_choice, T, NEW) == ("long-context", "ur")
    assert await store.read(daily_sql.get_daily, T, NEW) == daily(NEW, 540)
    jobs = await store.write(jobs_sql.claim_due, NOW + 3600, 10, "w", 60.0, ("daily",))
    assert sorted((j.key, j.payload["chat_id"]) for j in jobs) == [
        (f"daily:{T}:{NEW}", NEW), (f"daily:{T}:{NEIGHBOUR}", NEIGHBOUR)]
    assert await store.read(dashboard_sql.chat_titles, T, [NEW]) == {NEW: "Study group"}
    assert (await store.read(rewards_sql.get_reward, T, NEW, "parallelism")) is not None
    # the running round goes on there: its open question, posted in the old chat, is posted
    # again at the new id, and the reveal edits that post, not a message of the old chat
    row = await store.read(rounds_sql.active_round, T, NEW)
    assert row is not None and row.id == running
    assert await store.read(rounds_sql.round_message, running, 0) is None
    assert await store.read(jobs_sql.job_live, f"round:{running}:0:q")
    # the neighbour, whose id the old one is a prefix of, is as it was
    after = await store.read(everything)
    for table in ("group_settings", "dailies", "chats", "rewards", "reward_grants",
                  "group_managers"):
        assert [r for r in after[table] if NEIGHBOUR in r] == \
            [r for r in neighbour[table] if NEIGHBOUR in r], table

    # the second service message (or the same update twice) changes nothing
    assert await store.write(move_chat, T, OLD, NEW, NOW + 130) == {}
    assert await store.read(everything) == after


async def test_rows_the_new_id_already_has_are_merged_or_kept(any_store: Store):
    store = any_store
    await group_with_everything(store, OLD, NOW)  # Hana 1/1, Bilal 0/1 in the old group
    old_running = await running_round(store, OLD, NOW + 100)
    # meanwhile in the supergroup: Bilal 1/1, Hana 0/1, its own settings, daily, title,
    # reward and round
    await played_round(store, NEW, {"1": False, "2": True}, NOW + 200)
    await store.write(groups_sql.save_group_choice, T, NEW, None, "en", "t:2", NOW + 200)
    await store.write(daily_sql.set_daily, daily(NEW, 600), NOW + 3000, NOW + 200)
    await store.write(dashboard_sql.save_chat_title, T, NEW, "Study group (new)", NOW + 200)
    await store.write(rewards_sql.set_reward,
                      RewardRow(T, NEW, "parallelism", "r2", "Scholar", 1, "t:2"), NOW + 200)
    new_running = await running_round(store, NEW, NOW + 300)

    moved = await store.write(move_chat, T, OLD, NEW, NOW + 400)

    assert moved["best_scores"] == 2 and moved["rounds"] == 2
    assert await store.read(at, OLD) == {}
    # each member's better score stands (a tie: the earlier finish)
    assert [(b.user_id, b.score) for b in await store.read(
        sessions_sql.best, "parallelism", f"{T}:{NEW}", 10)] == [("1", 1), ("2", 1)]
    # the supergroup's own choices were made after the upgrade: they stay
    assert await store.read(groups_sql.group_choice, T, NEW) == (None, "en")
    assert await store.read(daily_sql.get_daily, T, NEW) == daily(NEW, 600)
    jobs = await store.write(jobs_sql.claim_due, NOW + 4000, 10, "w", 60.0, ("daily",))
    assert [(j.key, j.due_at) for j in jobs] == [(f"daily:{T}:{NEW}", NOW + 3000)]
    assert await store.read(dashboard_sql.chat_titles, T, [NEW]) == {NEW: "Study group (new)"}
    reward = await store.read(rewards_sql.get_reward, T, NEW, "parallelism")
    assert reward is not None and reward.role_id == "r2"
    # one round runs per chat: the supergroup's goes on; the old one was stopped, its
    # answers counted, and its stop is shown there
    row = await store.read(rounds_sql.active_round, T, NEW)
    assert row is not None and row.id == new_running
    old = await store.read(rounds_sql.get_round, old_running)
    assert old is not None and (old.status, old.chat_id) == ("stopped", NEW)
    assert await store.read(jobs_sql.job_live, f"round:{old_running}:0:r")
    assert await store.write(move_chat, T, OLD, NEW, NOW + 500) == {}


async def test_a_move_to_the_same_id_or_of_an_unknown_chat_changes_nothing(any_store: Store):
    store = any_store
    await group_with_everything(store, OLD, NOW)
    before = await store.read(everything)
    assert await store.write(move_chat, T, OLD, OLD, NOW) == {}
    assert await store.write(move_chat, T, "-999", NEW, NOW) == {}
    assert await store.write(move_chat, "discord", OLD, NEW, NOW) == {}
    assert await store.read(everything) == before
