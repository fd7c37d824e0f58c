"""Dashboard benchmark: GET /api/me and GET /api/groups/<id> with 100,000 learners stored
(SQLite), against GET /healthz (a database ping through the same server) in the same run;
and another learner's Telegram taps while one learner floods the group page.

    python bench/dashboard_bench.py [--learners 100000] [--requests 400] [--concurrency 1,8]
                                    [--floods 3] [--tappers 10] [--only-flood]

The database is filled with plain INSERTs (each learner: a finished attempt of the main quiz,
its 8 answers, 8 review cards and 8 reviews; every 100 learners share a group; the benched
group has `--group-size` members and a few rounds).

First the flood: the whole bot (`--serve`: open_app, the Telegram adapter against the fake
Bot API of tests/, the web server with the dashboard) runs in a process of its own on that
file, as `quizbot run` would. `--tappers` learners play the quiz on Telegram (a tap every
`--think` seconds); their tap latency is the fake's, from getUpdates handing the update out
to the bot's answerCallbackQuery (as bench/telegram_bench.py measures it). `--floods` times:
a quiet window of `--quiet-seconds`, then `--flood` GET /api/groups/<id> from one learner,
50 at a time, from another process run under `nice -n 10` (the attacker is not the bot);
the taps tapped during each window are compared, in the same run, window by window and
pooled. getChatMember calls are counted on the fake; "bot cpu" is the bot process's CPU
share in each window. BENCH_PROFILE=DIR profiles the bot's event-loop thread (cProfile, CPU
time) into DIR/dashboard-bot.pstats.

Then the real app is opened in this process (`open_app`) and an aiohttp client asks, each
request with its own learner's signed init data (so the HMAC check is measured too) and its
own X-Forwarded-For (as behind deploy/nginx.conf, so the per-address limit counts learners,
not this one client). Membership is answered by a stand-in for getChatMember (no network; it
waits `--member-ms`, 0 by default). Last, what a group's figures cost when they are not kept
(the first request of every 10 s; the rows above mostly share them), with schema 9's
`sessions_by_chat` index and with it dropped. Prints tables; numbers, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import random
import signal
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402
from aiohttp import ClientSession  # noqa: E402

from adapters.telegram import TelegramAdapter  # noqa: E402
from bench.telegram_bench import (  # noqa: E402
    WAIT,
    cpu_seconds,
    next_sent,
    percentile,
    unthrottled,
    until_signalled,
)
from bot.app import runtime  # noqa: E402
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
from tests.adapters.telegram.fake_bot_api import FakeBotAPI  # noqa: E402
from tests.adapters.telegram.learners import Learner, button_data, is_question  # noqa: E402
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
        if args.floods:
            await flood_taps(args, Path(tmp), db, now)
        if args.only_flood:
            return
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


# --- a flood from one learner against another learner's taps ---------------------------------

async def serve_bot(config_path: Path) -> None:
    """The whole bot as `quizbot run` starts it: the Telegram adapter (against the fake Bot
    API) and the web server with the dashboard, on one event loop."""
    async with open_app(load_config(config_path)) as app:
        adapter = TelegramAdapter(app, rate_limiter=unthrottled())
        await app.web.start()
        await adapter.start()
        runtime.settle()  # as `quizbot run` does once started
        try:
            await until_signalled("dashboard-bot")
        finally:
            await adapter.stop()


async def flood_taps(args: argparse.Namespace, tmp: Path, db: Path, now: float) -> None:
    """Learners tap through the quiz on Telegram while, `--floods` times, one learner floods
    GET /api/groups/<id> (`--flood` requests, 50 at a time, `nice -n 10`, another process);
    quiet windows of `--quiet-seconds` before each flood. A tap's latency is the fake's: from
    getUpdates handing the update out to the bot's answerCallbackQuery."""
    async with FakeBotAPI(TOKEN) as api:
        flooder_id = 1_000_000  # learner 0, a member of the benched group
        api.group_chat(int(GROUP))
        api.members[(int(GROUP), flooder_id)] = "member"
        port = free_port()
        config_path = tmp / "bot.yaml"
        config_path.write_text(yaml.safe_dump({
            "storage": {"url": f"sqlite:///{db}"}, "log_level": "WARNING",
            "telegram": {"api_base_url": api.base_url},
            "web": {"port": port, "public_url": "https://quiz.example.org",
                    "rate_limit": args.rate_limit}}), encoding="utf-8")
        env = {**os.environ, "TELEGRAM_BOT_TOKEN": TOKEN}
        bot = await asyncio.create_subprocess_exec(sys.executable, __file__, "--serve",
                                                   str(config_path), env=env)
        phase = ["warm"]
        taps: dict[str, list[str]] = {}  # phase -> callback query ids tapped in it

        async def tapper(user_id: int) -> None:
            learner = Learner(api, api.user(user_id, f"Tapper {user_id}"))
            inbox = api.listen(learner.chat_id)
            rng = random.Random(user_id)
            while phase[0] != "done":
                await learner.send("/quiz parallelism")
                question = await next_sent(inbox, "sendMessage", is_question)
                while phase[0] != "done":
                    await asyncio.sleep(rng.uniform(*args.think))
                    label = phase[0]
                    taps.setdefault(label, []).append(
                        await learner.tap(question, button_data(question)[0]))
                    reply = await next_sent(inbox, "sendMessage", lambda m: is_question(m)
                                            or m["text"].startswith("Finished"))
                    if not is_question(reply):
                        break
                    question = reply

        def member_calls() -> int:
            return sum(c.method == "getChatMember" for c in api.calls)

        def latencies(label: str) -> list[float]:
            return sorted((api.answered[q] - api.handed_out[api.callback_update[q]]) * 1000
                          for q in taps.get(label, []) if q in api.answered)

        url = f"http://127.0.0.1:{port}/api/groups/{GROUP}"
        signed = init_data(TOKEN, flooder_id, "Learner 0", auth_date=now)
        headers = {"Authorization": f"tma {signed}", "X-Forwarded-For": "10.0.0.0"}
        rows = []
        try:
            await api.wait_for(lambda: api.calls_of("getUpdates") or bot.returncode is not None,
                               120)
            assert bot.returncode is None, "the bot exited at start"
            tappers = [asyncio.create_task(tapper(3_000_000 + i)) for i in range(args.tappers)]
            await asyncio.sleep(args.quiet_seconds)  # warm: every tapper is in a quiz
            for n in range(args.floods):
                phase[0] = f"quiet {n}"
                cpu = cpu_seconds(bot.pid)
                await asyncio.sleep(args.quiet_seconds)
                quiet_cpu = (cpu_seconds(bot.pid) - cpu) / args.quiet_seconds
                calls = member_calls()
                flooder = await asyncio.create_subprocess_exec(
                    "nice", "-n", "10", sys.executable, __file__, "--flood-client", url,
                    json.dumps(headers), str(args.flood), stdout=asyncio.subprocess.PIPE)
                assert flooder.stdout is not None
                await flooder.stdout.readline()  # "ready": its connections are open
                phase[0] = f"flood {n}"
                cpu, began = cpu_seconds(bot.pid), time.perf_counter()
                statuses = json.loads(await flooder.stdout.read() or b"{}")
                await flooder.wait()
                seconds = time.perf_counter() - began
                flood_cpu = (cpu_seconds(bot.pid) - cpu) / seconds
                phase[0] = "between"
                rows.append((n, latencies(f"quiet {n}"), latencies(f"flood {n}"),
                             member_calls() - calls, statuses, seconds,
                             quiet_cpu, flood_cpu))
            # Python 3.11's wait_for can swallow a cancel (next_sent): the flag ends them too.
            phase[0] = "done"
            for task in tappers:
                task.cancel()
            if tappers:
                await asyncio.wait(tappers, timeout=WAIT)
        finally:
            if bot.returncode is None:
                bot.send_signal(signal.SIGTERM)
                await bot.wait()
    print(f"\ntaps of {args.tappers} learners thinking {args.think[0]:g}-{args.think[1]:g} s, "
          f"quiet {args.quiet_seconds:g} s then {args.flood} GET /api/groups from one learner "
          f"(50 at a time, nice 10):")
    print(f"{'#':>2} {'quiet taps':>10} {'p50':>7} {'p99':>7} {'flood taps':>10} {'p50':>7} "
          f"{'p99':>7} {'p99 x':>6} {'getChatMember':>13} {'flood s':>7} {'bot cpu':>11}  "
          f"statuses")
    for n, quiet, flood, calls, statuses, seconds, quiet_cpu, flood_cpu in rows:
        ratio = percentile(flood, 99) / percentile(quiet, 99) if quiet and flood else math.nan
        print(f"{n:>2} {len(quiet):>10} {_p(quiet, 50):>7.1f} {_p(quiet, 99):>7.1f} "
              f"{len(flood):>10} {_p(flood, 50):>7.1f} {_p(flood, 99):>7.1f} {ratio:>6.2f} "
              f"{calls:>13} {seconds:>7.2f} {quiet_cpu:>5.0%}/{flood_cpu:>4.0%}  {statuses}")
    quiet = sorted(x for row in rows for x in row[1])
    flood = sorted(x for row in rows for x in row[2])
    if quiet and flood:
        print(f"all: quiet p50 {_p(quiet, 50):.1f} / p99 {_p(quiet, 99):.1f} ms ({len(quiet)} "
              f"taps), flood p50 {_p(flood, 50):.1f} / p99 {_p(flood, 99):.1f} ms ({len(flood)} "
              f"taps): p99 {_p(flood, 99) / _p(quiet, 99):.2f}x; getChatMember "
              f"{sum(row[3] for row in rows)} call(s) for {len(rows) * args.flood} requests")


def _p(values: list[float], pct: float) -> float:
    return percentile(values, pct) if values else math.nan


async def flood_client(url: str, headers: dict[str, str], count: int) -> dict[int, int]:
    """The attacker: `count` GETs of `url`, 50 at a time, counted by status."""
    statuses: dict[int, int] = {}
    async with ClientSession() as http:
        await measure(http, [(url, headers)], 1, statuses)  # the connection pool warms up
        print("ready", flush=True)
        await measure(http, [(url, headers)] * count, 50, statuses)
    return statuses


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        logging.basicConfig(level=logging.WARNING)
        if os.environ.get("BENCH_PROFILE"):
            Path(os.environ["BENCH_PROFILE"]).mkdir(parents=True, exist_ok=True)
        asyncio.run(serve_bot(Path(sys.argv[2])))
        return
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
    parser.add_argument("--floods", type=int, default=3,
                        help="floods (each after a quiet window) while learners tap")
    parser.add_argument("--tappers", type=int, default=10, help="learners tapping meanwhile")
    parser.add_argument("--think", type=float, nargs=2, default=(0.1, 0.4),
                        metavar=("MIN", "MAX"), help="seconds a tapper waits before each tap")
    parser.add_argument("--quiet-seconds", type=float, default=5.0)
    parser.add_argument("--only-flood", action="store_true",
                        help="only the flood (no per-endpoint table)")
    parser.add_argument("--member-ms", type=float, default=0.0,
                        help="how long the getChatMember stand-in takes")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
