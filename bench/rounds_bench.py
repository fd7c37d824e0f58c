"""Rounds benchmark: N concurrent study-group rounds against the fake Bot API.

    python bench/rounds_bench.py [--rounds 10 50 200] [--seconds 10] [--stagger 10]
    python bench/rounds_bench.py --big 1000     # one round of 1,000 members (and 5, baseline),
                                                # then the same 1,000 in 4 teams
    python bench/rounds_bench.py --spam         # 40 commands in a question; 1,500 from one user

Each round runs in its own group with 5 members, 2 questions of `--seconds` each (the
shortest allowed, 10 s) and a 2 s pause between them. All 5 members answer the first
question and 4 the second, so every reveal waits for its deadline (the first question never
reveals early; on the second one member stays silent). Rounds start spread over
`--stagger` seconds, as real groups do; `--stagger 0` starts them all at once, which
measures Telegram's 30 messages/s per bot (PTB's limiter) rather than the rounds.

Measured on the fake server, in wall-clock time: how long after its stored deadline each
question's reveal edit arrived (p50, p99, max), and the most posts any group got within one
minute (Telegram allows about 20). The bot runs with its production rate limiter
(`GroupPostRateLimiter`: 30/s overall, 20/min per group). Numbers, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from adapters.telegram import TelegramAdapter  # noqa: E402
from bot.app.compose import open_app  # noqa: E402
from bot.app.config import load_config  # noqa: E402
from bot.domain.payloads import RoundPayload, decode  # noqa: E402
from bot.domain.results import Actor  # noqa: E402
from tests.adapters.telegram.fake_bot_api import FakeBotAPI  # noqa: E402
from tests.adapters.telegram.learners import Learner, button_data  # noqa: E402

TOKEN = "424242:AAbenchmarkTokenNotARealOne_0123456"
MEMBERS = 5
QUESTIONS = 2
PAUSE = 2


def is_round_question(message: dict[str, Any], number: int) -> bool:
    return (any(d.startswith("r1:") for d in button_data(message))
            and f"Question {number}/" in message["text"])


async def play(api: FakeBotAPI, group_id: int, members: list[Learner], start_at: float,
               app: Any, seconds: int) -> None:
    """Start the round at `start_at`, then every member presses (one stays silent on Q2)."""
    calls = api.listen(group_id)  # this group's calls only: no scan of the whole log
    await asyncio.sleep(max(0.0, start_at - time.time()))
    host = members[0]
    await app.engine.start_round(Actor("telegram", str(host.user["id"]), str(group_id),
                                       host.user["first_name"]), str(group_id),
                                 seconds=seconds, questions=QUESTIONS)
    rng = random.Random(group_id)
    for number in range(1, QUESTIONS + 1):
        while True:
            call = await asyncio.wait_for(calls.get(), seconds * 4 + 60)
            if call.method == "sendMessage" and is_round_question(call.result, number):
                question = call.result
                break
        pressing = members if number == 1 else members[:-1]

        async def press(member: Learner, message: dict[str, Any], delay: float,
                        option: int) -> None:
            await asyncio.sleep(delay)
            data = button_data(message)[option]
            await member.tap(message, data)  # a late one is refused politely; fine
        await asyncio.gather(*(press(m, question, rng.uniform(0.2, seconds / 2),
                                     rng.randrange(4)) for m in pressing))


async def run(n: int, seconds: int, stagger: float) -> dict[str, float]:
    logging.disable(logging.WARNING)
    async with FakeBotAPI(TOKEN) as api:
        api.clock = time.time
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "config.yaml"
            path.write_text(yaml.safe_dump({
                "storage": {"url": f"sqlite:///{Path(tmp) / 'rounds.db'}",
                            "synchronous": "normal"},
                "telegram": {"api_base_url": api.base_url},
                "rounds": {"reveal_seconds": PAUSE},
                "log_level": "WARNING"}), encoding="utf-8")
            config = load_config(path, env={"TELEGRAM_BOT_TOKEN": TOKEN})
            async with open_app(config) as app:
                adapter = TelegramAdapter(app)
                await adapter.start()
                try:
                    groups = []
                    for i in range(n):
                        group = api.group_chat(-1_000_000_000_000 - i, f"group {i}")
                        members = [Learner(api, api.user(10_000 * (i + 1) + k, f"m{k}"), group)
                                   for k in range(MEMBERS)]
                        groups.append((group["id"], members))
                    t0 = time.time() + 1
                    await asyncio.gather(*(
                        play(api, gid, members, t0 + stagger * i / max(1, n), app, seconds)
                        for i, (gid, members) in enumerate(groups)))
                    last = {gid: None for gid, _ in groups}

                    def all_revealed() -> bool:
                        done = sum(1 for c in api.calls_of("editMessageText")
                                   if "Final podium" in c.result.get("text", ""))
                        return done >= len(last)
                    await api.wait_for(all_revealed, timeout=seconds * 4 + 120,
                                       what="every round's final reveal")
                    db = Path(tmp) / "rounds.db"
                finally:
                    await adapter.stop()
            with sqlite3.connect(db) as conn:
                rows = conn.execute(
                    "SELECT r.chat_id, q.message_ref, q.deadline FROM round_questions q "
                    "JOIN rounds r ON r.id = q.round_id").fetchall()
    edits = {(c.params["chat_id"], c.params["message_id"]): c.time
             for c in api.calls_of("editMessageText")}
    lateness = sorted(edits[(int(chat), int(ref))] - deadline for chat, ref, deadline in rows
                      if (int(chat), int(ref)) in edits)
    missing = len(rows) - len(lateness)
    per_minute = max(api.posts_per_minute(gid) for gid, _ in groups)
    return {
        "rounds": n, "reveals": len(lateness), "missing": missing,
        "p50": statistics.median(lateness), "p99": lateness[int(0.99 * (len(lateness) - 1))],
        "max": lateness[-1], "per_minute": per_minute, "flooded": len(api.flooded)}


async def running(api: FakeBotAPI, tmp: str) -> Any:
    """The adapter on a fresh database in `tmp`, against `api` (an async context)."""
    path = Path(tmp) / "config.yaml"
    path.write_text(yaml.safe_dump({
        "storage": {"url": f"sqlite:///{Path(tmp) / 'rounds.db'}", "synchronous": "normal"},
        "telegram": {"api_base_url": api.base_url},
        "rounds": {"reveal_seconds": PAUSE}, "log_level": "WARNING"}), encoding="utf-8")
    return open_app(load_config(path, env={"TELEGRAM_BOT_TOKEN": TOKEN}))


def long_name(i: int) -> str:
    return f"Member {i:04d} " + "x" * 52  # 64 characters


async def big(members: int, seconds: int, teams: int = 0) -> dict[str, Any]:
    """One round of `members` members with 64-character names answering both questions
    (one silent on the second, so both run to their deadlines): the size of every post
    against Telegram's 4,096, and how late each reveal came after its deadline. With
    `teams`, every member joins "any team" in the lobby and is drafted at question 1."""
    logging.disable(logging.WARNING)
    async with FakeBotAPI(TOKEN) as api:
        api.clock = time.time
        with tempfile.TemporaryDirectory() as tmp:
            async with await running(api, tmp) as app:
                adapter = TelegramAdapter(app)
                rounds = app.engine.rounds
                await adapter.start()
                try:
                    gid = -1_000_000_000_777
                    api.group_chat(gid)
                    calls = api.listen(gid)
                    started = await app.engine.start_round(
                        Actor("telegram", "1", str(gid), "Host"), str(gid), seconds=seconds,
                        questions=QUESTIONS, teams=teams)
                    for i in range(members if teams else 0):
                        await rounds.join(Actor("telegram", str(10**6 + i), str(gid),
                                                long_name(i)), started.round_id, None)
                    deadlines, sizes = [], []
                    for number in range(1, QUESTIONS + 1):
                        while True:
                            call = await asyncio.wait_for(calls.get(), seconds * 4 + 60)
                            if call.method == "sendMessage" and is_round_question(
                                    call.result, number):
                                break
                        sizes.append(len(call.params["text"]))
                        deadlines.append(call.time + seconds)
                        data = button_data(call.result)
                        # one member stays silent on the last: no early reveal, all on time
                        for i in range(members if number < QUESTIONS else members - 1):
                            pressed = decode(data[i % len(data)])
                            assert isinstance(pressed, RoundPayload)
                            await rounds.press(Actor("telegram", str(10**6 + i), str(gid),
                                                     long_name(i)), pressed.round_id,
                                               pressed.qindex, pressed.option)
                    await api.wait_for(lambda: any(
                        "Final podium" in c.result.get("text", "")
                        for c in api.calls_of("editMessageText", gid)),
                        timeout=seconds * 4 + 120, what="the podium")
                finally:
                    await adapter.stop()
    edits = api.calls_of("editMessageText", gid)
    late = sorted(e.time - d for e, d in zip(edits, deadlines, strict=False))
    return {"members": members, "teams": teams, "question": max(sizes),
            "reveal": max(len(e.params["text"]) for e in edits),
            "visible": max(len(e.result["text"]) for e in edits), "late": late,
            "errors": len(api.errors_of("editMessageText"))}


async def spam(seconds: int, commands: int, flood: int) -> dict[str, float]:
    """A member sends `commands` /leaderboard in a question: the reveal's lateness; then a
    user sends `flood` /stats: how long another user's tap waits for its answer."""
    logging.disable(logging.WARNING)
    async with FakeBotAPI(TOKEN) as api:
        api.clock = time.time
        with tempfile.TemporaryDirectory() as tmp:
            async with await running(api, tmp) as app:
                adapter = TelegramAdapter(app)
                await adapter.start()
                try:
                    group = api.group_chat(-1_000_000_000_888)
                    host, noisy = (Learner(api, api.user(7000 + k, f"m{k}"), group)
                                   for k in range(2))
                    since = host.mark()
                    await host.send(f"/round {seconds}")
                    question = await host.reply(since, lambda m: is_round_question(m, 1))
                    deadline = api.calls_of("sendMessage", group["id"])[-1].time + seconds
                    for _ in range(commands):
                        await noisy.send("/leaderboard")
                    edited = await host.edited(since, lambda m: m["message_id"]
                                               == question["message_id"], timeout=120)
                    reveal = next(c for c in api.calls_of("editMessageText", group["id"])
                                  if c.params["message_id"] == edited["message_id"])
                    flooder, other = (Learner(api, api.user(8000 + k, f"u{k}"))
                                      for k in range(2))
                    since = other.mark()
                    await other.send("/language")
                    prompt = await other.reply(since)
                    for _ in range(flood):
                        await flooder.send("/stats")
                    query = await other.press(prompt, "English")
                    await other.toast(query, timeout=60)
                    ack = api.answered[query] - api.handed_out[api.callback_update[query]]
                finally:
                    await adapter.stop()
    return {"late": reveal.time - deadline, "ack": ack}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, nargs="+", default=[10, 50, 200])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--stagger", type=float, default=10.0)
    parser.add_argument("--big", type=int, default=0, help="members of one round")
    parser.add_argument("--spam", action="store_true")
    args = parser.parse_args()
    if args.big:
        print(f"{'members':>7} {'teams':>5} {'question':>8} {'reveal':>7} {'shown':>6} "
              f"{'limit':>6} {'late p50 ms':>11} {'late p99 ms':>11} {'errors':>6}")
        # the same round of 5 members is the baseline; a team round is held to 2x a plain one
        # (each twice, interleaved: the machine's noise shows)
        for n, teams in ((5, 0), (args.big, 0), (args.big, 4), (args.big, 0), (args.big, 4)):
            r = asyncio.run(big(n, max(args.seconds, 30), teams))
            late = r["late"]
            print(f"{r['members']:>7} {r['teams']:>5} {r['question']:>8} {r['reveal']:>7} "
                  f"{r['visible']:>6} "
                  f"{4096:>6} {1000 * statistics.median(late):>11.0f} "
                  f"{1000 * late[max(0, math.ceil(0.99 * len(late)) - 1)]:>11.0f} "
                  f"{r['errors']:>6}")
        return
    if args.spam:
        print(f"{'case':>26} {'reveal late ms':>14} {'other tap ack ms':>16}")
        for label, commands, flood in (("quiet (baseline)", 0, 0),
                                       ("40 cmds + 1,500 flood", 40, 1500)):
            r = asyncio.run(spam(args.seconds, commands, flood))
            print(f"{label:>26} {1000 * r['late']:>14.0f} {1000 * r['ack']:>16.0f}")
        return
    print(f"{'rounds':>6} {'reveals':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} "
          f"{'posts/group/min':>15} {'429s':>5}")
    for n in args.rounds:
        r = asyncio.run(run(n, args.seconds, args.stagger))
        print(f"{r['rounds']:>6} {r['reveals']:>7} {1000 * r['p50']:>8.0f} "
              f"{1000 * r['p99']:>8.0f} {1000 * r['max']:>8.0f} {r['per_minute']:>15} "
              f"{r['flooded']:>5}" + (f"  ({r['missing']} reveals missing)"
                                      if r['missing'] else ""))


if __name__ == "__main__":
    main()
