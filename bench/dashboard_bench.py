"""Dashboard benchmark: GET /api/me and GET /api/groups/<id> with 100,000 learners stored
(SQLite), against GET /healthz (a database ping through the same server) in the same run.

    python bench/dashboard_bench.py [--learners 100000] [--requests 400] [--concurrency 1,8]

The database is filled with plain INSERTs (each learner: a finished attempt of the main quiz,
its 8 answers, 8 review cards and 8 reviews; every 100 learners share a group; the benched
group has `--group-size` members and a few rounds), then the real app is opened on it
(`open_app`: migrations, the store, the dashboard's routes on the web server) and an aiohttp
client asks, each request with its own learner's signed init data (so the HMAC check is
measured too). Membership is answered by a stand-in for getChatMember (no network; it waits
`--member-ms`, 0 by default, and counts its calls). Then a flood: `--flood` group requests
from one learner, 50 at a time from another process, while another learner opens /api/me one
request after another: how many getChatMember calls the flood cost, how many were refused
(429), and the other learner's p99 against its quiet value measured just before. Last, what
a group's figures cost when they are not kept (the first request of every 10 s; the rows
above mostly share them), with schema 9's `sessions_by_chat` index and with it dropped.
Prints a table; numbers, not assertions. Every request carries its learner's own
X-Forwarded-For (as behind deploy/nginx.conf), so the per-address limit counts learners,
not this one client.
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
from bot.domain.learning import Memory, rating_for  # noqa: E402
from bot.domain.quiz import default_content_dir, load_quizzes  # noqa: E402
from bot.features.dashboard.pages import Dashboard, Role  # noqa: E402
from bot.features.dashboard.throttle import DEFAULT_PER_MINUTE  # noqa: E402
from bot.store.commands import sessions_sql  # noqa: E402
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
    # One real FSRS card per outcome, shared by every row (the page reads the cards' state).
    card_json = {ok: Memory().updater(rating_for(ok, None), now - 5 * DAY)(None)[0]
                 for ok in (True, False)}
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
                cards.append(("telegram", uid, "parallelism", qid, card_json[ok],
                              now + rng.uniform(-2, 14) * DAY, 1, at))
                reviews.append((f"s:{n + 1}:{pos}", "telegram", uid, "parallelism", qid,
                                int(ok), None, 3 if ok else 1, at, int(at // DAY)))
            if len(answers) > 200_000 or n == learners - 1:
                conn.executemany("INSERT INTO users (platform, user_id, display_name, lang, "
                                 "created_at) VALUES (?, ?, ?, ?, ?)", users)
                conn.executemany(
                    "INSERT INTO sessions (id, platform, user_id, chat_id, quiz_id, kind, status, "
                    "question_ids, option_orders, position, score, started_at, finished_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", sessions)
                conn.executemany("INSERT INTO answers (session_id, position, question_id, chosen, "
                                 "correct, answered_at) VALUES (?, ?, ?, ?, ?, ?)", answers)
                conn.executemany(
                    "INSERT INTO cards (platform, user_id, quiz_id, question_id, card, due_at, "
                    "reviews, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", cards)
                conn.executemany(
                    "INSERT INTO reviews (answer_key, platform, user_id, quiz_id, question_id, "
                    "correct, sure, rating, reviewed_at, day) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", reviews)
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
                  concurrency: int, statuses: dict[int, int] | None = None
                  ) -> tuple[list[float], float]:
    """Latency of each request, and requests per second, `concurrency` at a time; with
    `statuses`, any status is counted there instead of having to be 200."""
    queue = list(urls)
    latencies: list[float] = []

    async def worker() -> None:
        while queue:
            url, headers = queue.pop()
            began = time.perf_counter()
            async with http.get(url, headers=headers) as r:
                await r.read()
                if statuses is None:
                    assert r.status == 200, (url, r.status)
                else:
                    statuses[r.status] = statuses.get(r.status, 0) + 1
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
            "web": {"port": port, "public_url": "https://quiz.example.org",
                    "rate_limit": args.rate_limit}}), encoding="utf-8")
        config = load_config(config_path, env={"TELEGRAM_BOT_TOKEN": TOKEN})
        async with open_app(config) as app:
            mount(app.web.server("127.0.0.1", port, key="metrics.port"), app.metrics,
                  Health(lambda: app.store.read(sessions_sql.get_session, 0), (), []))

            async def member(group: str, user: str) -> Role:
                await asyncio.sleep(args.member_ms / 1000)  # getChatMember's stand-in
                return Role(True, admin=False)

            app.memberships.provide("telegram", member)
            await app.web.start()
            base = f"http://127.0.0.1:{port}"
            rng = random.Random(11)

            def signed(n: int) -> dict[str, str]:
                data = init_data(TOKEN, 1_000_000 + n, f"Learner {n}", auth_date=now)
                return {"Authorization": f"tma {data}",
                        "X-Forwarded-For": f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"}

            def me() -> tuple[str, dict[str, str]]:
                n = rng.randrange(1, args.learners)
                return f"{base}/api/me", signed(n)

            def group(n: int | None = None) -> tuple[str, dict[str, str]]:
                n = rng.randrange(1, args.group_size) if n is None else n
                return f"{base}/api/groups/{GROUP}", signed(n)

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
                # A flood from one learner (another process, as an attacker would be) while
                # another learner opens their page again and again.
                quiet, _ = await measure(http, [me() for _ in range(200)], 1)
                calls = app.memberships.calls
                url, flood_headers = group(0)
                flooder = await asyncio.create_subprocess_exec(
                    sys.executable, __file__, "--flood-client", url,
                    json.dumps(flood_headers), str(args.flood),
                    stdout=asyncio.subprocess.PIPE)
                assert flooder.stdout is not None
                await flooder.stdout.readline()  # "ready": its connections are open
                other: list[float] = []
                while flooder.returncode is None:
                    other.extend((await measure(http, [me()], 1))[0])
                    if flooder.stdout.at_eof():
                        break
                statuses = json.loads(await flooder.stdout.read() or b"{}")
                await flooder.wait()
                print(f"\nflood: {args.flood} GET /api/groups from one learner, 50 at a time: "
                      f"{app.memberships.calls - calls} getChatMember call(s); statuses "
                      f"{statuses}")
                print(f"another learner's /api/me: p50 {pct(quiet, 0.5):.2f} / p99 "
                      f"{pct(quiet, 0.99):.2f} ms quiet, p50 {pct(other, 0.5):.2f} / p99 "
                      f"{pct(other, 0.99):.2f} ms during the flood ({len(other)} requests; "
                      f"p99 {pct(other, 0.99) / pct(quiet, 0.99):.2f}x)")
                # What a group's page costs when its figures are not kept (the first request
                # of every 10 s), with schema 9's index and without it.
                figures = Dashboard(app.engine, app.store, app.catalogue, app.memberships)
                for name in ("group figures (uncached)", "  without sessions_by_chat"):
                    if name.startswith("  "):
                        conn = sqlite3.connect(db)
                        conn.execute("DROP INDEX sessions_by_chat")
                        conn.close()
                    lat = []
                    for _ in range(args.requests // 8):
                        began = time.perf_counter()
                        await figures.group_reads("telegram", GROUP)
                        lat.append(time.perf_counter() - began)
                    print(f"{name:<26}{1:>5}{pct(lat, 0.5):>9.2f}{pct(lat, 0.99):>9.2f}"
                          f"{len(lat) / sum(lat):>9.0f}")
            url, headers = me()
            async with ClientSession() as http, http.get(url, headers=headers) as r:
                size = len(await r.read())
            print(f"\n{args.requests} requests per row; one /api/me body is {size / 1000:.1f} kB")


async def flood_client(url: str, headers: dict[str, str], count: int) -> dict[int, int]:
    """The attacker: `count` GETs of `url`, 50 at a time, counted by status."""
    statuses: dict[int, int] = {}
    async with ClientSession() as http:
        await measure(http, [(url, headers)], 1, statuses)  # the connection pool warms up
        print("ready", flush=True)
        await measure(http, [(url, headers)] * count, 50, statuses)
    return statuses


def main() -> None:
    if sys.argv[1:2] == ["--flood-client"]:
        url, headers, count = sys.argv[2], json.loads(sys.argv[3]), int(sys.argv[4])
        print(json.dumps(asyncio.run(flood_client(url, headers, count))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=100_000)
    parser.add_argument("--group-size", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--concurrency", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1, 8])
    parser.add_argument("--flood", type=int, default=4000)
    parser.add_argument("--rate-limit", type=int, default=DEFAULT_PER_MINUTE,
                        help="web.rate_limit: requests a minute per learner")
    parser.add_argument("--member-ms", type=float, default=0.0,
                        help="how long the getChatMember stand-in takes")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
