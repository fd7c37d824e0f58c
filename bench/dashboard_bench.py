"""Dashboard benchmark: GET /api/me and GET /api/groups/<id> with 100,000 learners stored
(SQLite), against GET /healthz (a database ping through the same server) in the same run.

    python bench/dashboard_bench.py [--learners 100000] [--requests 400] [--concurrency 1,8]

The database is filled with plain INSERTs (each learner: a finished attempt of the main quiz,
its 8 answers, 8 review cards and 8 reviews; every 100 learners share a group; the benched
group has `--group-size` members and a few rounds), then the real app is opened on it
(`open_app`: migrations, the store, the dashboard's routes on the web server) and an aiohttp
client asks, each request with its own learner's signed init data (so the HMAC check is
measured too). Membership is answered by a stand-in for getChatMember (no network). Last, the
group again with schema 9's `sessions_by_chat` index dropped. Prints a table; numbers, not
assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402
from aiohttp import ClientSession  # noqa: E402

from bot.app.compose import open_app  # noqa: E402
from bot.app.config import load_config  # noqa: E402
from bot.app.metrics import Health, mount  # noqa: E402
from bot.domain.quiz import default_content_dir, load_quizzes  # noqa: E402
from bot.features.dashboard.views import Role  # noqa: E402
from bot.store.sqlite import SQLiteStore  # noqa: E402
from tests.adapters.telegram.dashboard_bot import free_port  # noqa: E402
from tests.dashboard_support import init_data  # noqa: E402

TOKEN = "4242:bench-token"
GROUP = "-1009999"
DAY = 86400.0


def fill(db: Path, learners: int, group_size: int, now: float) -> None:
    """Insert the learners' rows straight into the migrated file."""
    quiz = load_quizzes([default_content_dir()])["parallelism"]
    ids = [q.id for q in quiz.questions]
    qids, orders = json.dumps(ids), json.dumps([[0, 1, 2, 3]] * len(ids))
    rng = random.Random(7)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA synchronous = OFF")
    with conn:
        users, sessions, answers, cards, reviews = [], [], [], [], []
        for n in range(learners):
            uid = str(1_000_000 + n)
            chat = GROUP if n < group_size else f"-{100_000 + n // 100}"
            users.append(("telegram", uid, f"Learner {n}", None, now - 30 * DAY))
            started = now - rng.uniform(1, 20) * DAY
            right = [rng.random() < 0.7 for _ in ids]
            sessions.append((n + 1, "telegram", uid, chat, "parallelism", "full", "finished",
                             qids, orders, len(ids), sum(right), started, started + 300))
            for pos, (qid, ok) in enumerate(zip(ids, right, strict=True)):
                at = started + 30 * pos
                correct = quiz.questions[pos].correct
                answers.append((n + 1, pos, qid, correct if ok else (correct + 1) % 4,
                                int(ok), at))
                cards.append(("telegram", uid, "parallelism", qid, "{}",
                              now + rng.uniform(-2, 14) * DAY, 1, at))
                reviews.append((f"s:{n + 1}:{pos}", "telegram", uid, "parallelism", qid,
                                int(ok), None, 3 if ok else 1, at, int(at // DAY)))
            if len(answers) > 200_000 or n == learners - 1:
                conn.executemany("INSERT INTO users VALUES (?, ?, ?, ?, ?)", users)
                conn.executemany(
                    "INSERT INTO sessions (id, platform, user_id, chat_id, quiz_id, kind, status, "
                    "question_ids, option_orders, position, score, started_at, finished_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", sessions)
                conn.executemany("INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?)", answers)
                conn.executemany("INSERT INTO cards VALUES (?, ?, ?, ?, ?, ?, ?, ?)", cards)
                conn.executemany("INSERT INTO reviews VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                 reviews)
                users, sessions, answers, cards, reviews = [], [], [], [], []
        for r in range(20):  # the benched group's rounds
            at = now - (20 - r) * DAY
            conn.execute(
                "INSERT INTO rounds (platform, chat_id, board_chat, host_id, host_name, quiz_id, "
                "lang, question_ids, option_orders, seconds, reveal_pause, status, position, "
                "started_at, finished_at) VALUES ('telegram', ?, ?, '1000000', 'Learner 0', "
                "'parallelism', 'en', ?, ?, 30, 5, 'finished', 7, ?, ?)",
                (GROUP, GROUP, qids, orders, at, at + 600))
    conn.execute("ANALYZE")
    conn.close()


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def measure(http: ClientSession, urls: list[tuple[str, dict[str, str]]],
                  concurrency: int) -> tuple[list[float], float]:
    """Latency of each request, and requests per second, `concurrency` at a time."""
    queue = list(urls)
    latencies: list[float] = []

    async def worker() -> None:
        while queue:
            url, headers = queue.pop()
            began = time.perf_counter()
            async with http.get(url, headers=headers) as r:
                await r.read()
                assert r.status == 200, (url, r.status)
            latencies.append(time.perf_counter() - began)

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return latencies, len(urls) / (time.perf_counter() - began)


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        store = await SQLiteStore.open(db)  # migrated, then closed: fill() writes the rows
        await store.close()
        now = time.time()
        began = time.perf_counter()
        fill(db, args.learners, args.group_size, now)
        print(f"filled {args.learners} learners ({args.learners * 8 * 3:,} answer, card and "
              f"review rows) in {time.perf_counter() - began:.1f} s; "
              f"{db.stat().st_size / 1e6:.0f} MB")
        port = free_port()
        config_path = Path(tmp) / "config.yaml"
        config_path.write_text(yaml.safe_dump({
            "storage": {"url": f"sqlite:///{db}"}, "log_level": "WARNING",
            "web": {"port": port, "public_url": "https://quiz.example.org"}}), encoding="utf-8")
        config = load_config(config_path, env={"TELEGRAM_BOT_TOKEN": TOKEN})
        async with open_app(config) as app:
            mount(app.web.server("127.0.0.1", port, key="metrics.port"), app.metrics,
                  Health(lambda: app.store.get_session(0), (), []))

            async def member(group: str, user: str) -> Role:
                return Role(True, admin=False)  # getChatMember's stand-in

            app.memberships.provide("telegram", member)
            await app.web.start()
            base = f"http://127.0.0.1:{port}"
            rng = random.Random(11)

            def me() -> tuple[str, dict[str, str]]:
                n = rng.randrange(args.learners)
                data = init_data(TOKEN, 1_000_000 + n, f"Learner {n}", auth_date=now)
                return f"{base}/api/me", {"Authorization": f"tma {data}"}

            def group() -> tuple[str, dict[str, str]]:
                n = rng.randrange(args.group_size)
                data = init_data(TOKEN, 1_000_000 + n, f"Learner {n}", auth_date=now)
                return f"{base}/api/groups/{GROUP}", {"Authorization": f"tma {data}"}

            def healthz() -> tuple[str, dict[str, str]]:
                return f"{base}/healthz", {}

            print(f"\n{'endpoint':<26}{'conc':>5}{'p50 ms':>9}{'p99 ms':>9}{'req/s':>9}")
            async with ClientSession() as http:
                for name, make in (("GET /healthz (baseline)", healthz), ("GET /api/me", me),
                                   (f"GET /api/groups ({args.group_size})", group)):
                    for c in args.concurrency:
                        await measure(http, [make() for _ in range(20)], c)  # warm up
                        lat, rate = await measure(http, [make() for _ in range(args.requests)],
                                                  c)
                        print(f"{name:<26}{c:>5}{pct(lat, 0.5):>9.2f}{pct(lat, 0.99):>9.2f}"
                              f"{rate:>9.0f}")
                # The same group without schema 9's index: what each request would scan.
                conn = sqlite3.connect(db)
                conn.execute("DROP INDEX sessions_by_chat")
                conn.close()
                lat, rate = await measure(http, [group() for _ in range(args.requests // 4)], 1)
                print(f"{'  without sessions_by_chat':<26}{1:>5}{pct(lat, 0.5):>9.2f}"
                      f"{pct(lat, 0.99):>9.2f}{rate:>9.0f}")
            url, headers = me()
            async with ClientSession() as http, http.get(url, headers=headers) as r:
                size = len(await r.read())
            print(f"\n{args.requests} requests per row; one /api/me body is {size / 1000:.1f} kB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=100_000)
    parser.add_argument("--group-size", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--concurrency", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1, 8])
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
