"""Scale benchmark: durable answers/s and latency per answer with 1, 2 and 4 worker
processes on one PostgreSQL on this machine, and SQLite in one process for comparison;
baseline: raw asyncpg running the same statements per answer on a pool of the same size, in
one process, in the same run.

    python bench/scale_bench.py [--learners 400] [--workers 1,2,4] [--pool-size 10]
    QUIZBOT_BENCH_POSTGRES_URL=postgresql://... python bench/scale_bench.py   # your server

Each worker is its own process running the real Engine over the real store, its learners
answering back to back (saturation); an answer counts once `engine.answer` returned, i.e.
after its COMMIT. The throwaway PostgreSQL runs with its defaults (fsync on,
synchronous_commit on): every answer is durable. Prints a table; numbers, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.app.compose import build_engine  # noqa: E402
from bot.domain.quiz import Quiz, default_content_dir, load_quizzes  # noqa: E402
from bot.domain.results import Actor, AnswerResult, QuestionPrompt  # noqa: E402
from bot.features.engine import Engine  # noqa: E402
from bot.store import open_url  # noqa: E402


def pick(quiz: Quiz, prompt: QuestionPrompt, rng: random.Random) -> int:
    question = quiz.question(prompt.question_id)
    assert question is not None
    right = prompt.options.index(question.options[question.correct].text.get(prompt.lang))
    return right if rng.random() < 0.7 else (right + 1) % len(prompt.options)


async def learner(engine: Engine, quiz: Quiz, actor: Actor, rng: random.Random,
                  latencies: list[float]) -> None:
    prompt: QuestionPrompt | None = await engine.start(actor, quiz.id)
    while prompt is not None:
        t0 = time.perf_counter()
        result = await engine.answer(actor, prompt.session_id, prompt.position,
                                     pick(quiz, prompt, rng))
        latencies.append(time.perf_counter() - t0)
        assert isinstance(result, AnswerResult) and not result.duplicate
        prompt = result.next


async def worker(url: str, index: int, learners: int, pool_size: int) -> dict[str, object]:
    """One process's share: start every session, wait for 'go', answer everything."""
    quizzes = load_quizzes([default_content_dir()])
    quiz = quizzes["parallelism"]
    store = await open_url(url, pool_size=pool_size)
    engine = build_engine(store, quizzes, rng=random.Random(index))
    actors = [Actor("bench", f"{index}-{i}", None, f"L{i}") for i in range(learners)]
    for actor in actors:  # users exist before the clock starts
        await engine.language(actor)
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    latencies: list[float] = []
    started = time.time()
    await asyncio.gather(*(learner(engine, quiz, a, random.Random(i), latencies)
                           for i, a in enumerate(actors)))
    ended = time.time()
    await store.close()
    return {"started": started, "ended": ended, "latencies": latencies}


# The statements the store runs for one answer (session_and_answer, then record_answer with
# its review; on the last question the best scores, the answers and the best score), written
# straight for asyncpg: the baseline for one PostgreSQL worker.
_COLUMNS = (
    "s.id, s.platform, s.user_id, s.chat_id, s.quiz_id, s.kind, s.status, "
    "s.question_ids, s.option_orders, s.position, s.score, s.started_at, s.finished_at, "
    "u.lang, COALESCE(ls.confidence, 0) AS confidence, COALESCE(ls.utc_offset, 0) AS "
    "utc_offset, s.seed")
_FROM = (" FROM sessions s JOIN users u ON u.platform = s.platform AND u.user_id = s.user_id "
         "LEFT JOIN learner_settings ls ON ls.platform = s.platform "
         "AND ls.user_id = s.user_id ")
RAW_SESSION = f"SELECT {_COLUMNS}{_FROM}"
RAW_READ = (f"SELECT {_COLUMNS}, a.question_id AS a_question, a.chosen, a.correct{_FROM}"
            "LEFT JOIN answers a ON a.session_id = s.id AND a.position = $1 WHERE s.id = $2")
RAW_ADVANCE = (
    "UPDATE sessions SET position = position + 1, score = score + $1, status = CASE WHEN "
    "$2 = 1 THEN 'finished' ELSE status END, finished_at = CASE WHEN $3 = 1 THEN "
    "CAST($4 AS DOUBLE PRECISION) ELSE finished_at END WHERE id = $5 AND position = $6 AND "
    "status = 'active' RETURNING score")
RAW_ANSWER = ("INSERT INTO answers (session_id, position, question_id, chosen, correct, "
              "answered_at) VALUES ($1, $2, $3, $4, $5, $6)")
RAW_REVIEW = (
    "INSERT INTO reviews (answer_key, platform, user_id, quiz_id, question_id, correct, sure, "
    "rating, reviewed_at, day) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
    "ON CONFLICT (answer_key) DO NOTHING RETURNING answer_key")
RAW_CARD = ("SELECT card FROM cards WHERE platform = $1 AND user_id = $2 AND quiz_id = $3 "
            "AND question_id = $4 FOR UPDATE")
RAW_NEW_CARD = ("INSERT INTO cards (platform, user_id, quiz_id, question_id, card, due_at, "
                "reviews, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 1, $7) "
                "ON CONFLICT DO NOTHING RETURNING reviews")
RAW_BEST = (
    "INSERT INTO best_scores (quiz_id, scope, platform, user_id, score, total, finished_at) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (quiz_id, scope, platform, user_id) DO "
    "UPDATE SET score = excluded.score, total = excluded.total, finished_at = "
    "excluded.finished_at WHERE excluded.score > best_scores.score")


async def raw_worker(url: str, learners: int, pool_size: int) -> dict[str, object]:
    """The baseline: each learner's start and answers as bare asyncpg calls, the statements
    the store runs for them (no engine, no FSRS, no command driver)."""
    from bot.store.postgres import create_pool

    quizzes = load_quizzes([default_content_dir()])
    quiz = quizzes["parallelism"]
    questions = [q.id for q in quiz.questions]
    orders = json.dumps([[0, 1, 2, 3]] * len(questions))
    pool = await create_pool(url, password=None, size=pool_size)  # the store's own kind
    for i in range(learners):  # users exist before the clock starts (as in `worker`)
        await pool.execute("INSERT INTO users (platform, user_id, display_name, created_at) "
                           "VALUES ('raw', $1, $2, 0) ON CONFLICT DO NOTHING", str(i),
                           f"L{i}")
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    latencies: list[float] = []

    async def start(user: str) -> int:
        await pool.fetchrow("SELECT display_name, lang FROM users WHERE platform = 'raw' "
                            "AND user_id = $1", user)
        async with pool.acquire() as db, db.transaction():
            await db.execute("SELECT 1 FROM users WHERE platform = 'raw' AND user_id = $1 "
                             "FOR NO KEY UPDATE", user)
            await db.fetchrow(RAW_SESSION + "WHERE s.platform = 'raw' AND s.user_id = $1 AND "
                              "s.quiz_id = $2 AND s.status = 'active'", user, quiz.id)
            await db.execute("UPDATE sessions SET status = 'abandoned' WHERE platform = 'raw' "
                             "AND user_id = $1 AND quiz_id = $2 AND status = 'active'",
                             user, quiz.id)
            sid = await db.fetchval(
                "INSERT INTO sessions (platform, user_id, chat_id, quiz_id, kind, status, "
                "question_ids, option_orders, started_at, seed) VALUES ('raw', $1, NULL, $2, "
                "'full', 'active', $3, $4, $5, NULL) RETURNING id", user, quiz.id,
                json.dumps(questions), orders, time.time())
            await db.fetchrow(RAW_SESSION + "WHERE s.id = $1", sid)
        return int(sid)

    async def answer_all(user: str, rng: random.Random) -> None:
        sid = await start(user)
        for position in range(len(questions)):
            t0 = time.perf_counter()
            row = await pool.fetchrow(RAW_READ, position, sid)
            assert row is not None and row["chosen"] is None
            qid = json.loads(row["question_ids"])[position]
            correct, now, last = rng.random() < 0.7, time.time(), position + 1 == len(questions)
            async with pool.acquire() as db, db.transaction():
                score = await db.fetchval(RAW_ADVANCE, int(correct), int(last), int(last), now,
                                          sid, position)
                await db.execute(RAW_ANSWER, sid, position, qid, 0, int(correct), now)
                key = ("raw", user, quiz.id, qid)
                await db.fetchval(RAW_REVIEW, f"s:{sid}:{position}", *key, int(correct), None,
                                  3, now, 0)
                if await db.fetchval(RAW_CARD, *key) is None:
                    await db.fetchval(RAW_NEW_CARD, *key, '{"card": 1}', now + 86400, now)
                if last:
                    await db.executemany(RAW_BEST, [(quiz.id, "", "raw", user, score,
                                                     len(questions), now)])
            if last:
                await pool.fetch("SELECT position, question_id, chosen, correct FROM answers "
                                 "WHERE session_id = $1 ORDER BY position", sid)
                await pool.fetchrow("SELECT score FROM best_scores WHERE quiz_id = $1 AND "
                                    "scope = '' AND platform = $2 AND user_id = $3",
                                    quiz.id, "raw", user)
            latencies.append(time.perf_counter() - t0)

    started = time.time()
    await asyncio.gather(*(answer_all(str(i), random.Random(i)) for i in range(learners)))
    ended = time.time()
    await pool.close()
    return {"started": started, "ended": ended, "latencies": latencies}


async def run_workers(url: str, count: int, learners: int, pool_size: int, *,
                      raw: bool = False) -> tuple[float, list[float]]:
    """Start `count` worker processes, release them together; (answers/s, latencies)."""
    procs = []
    for i in range(count):
        procs.append(await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--worker", str(i), "--url", url,
            "--learners", str(learners // count), "--pool-size", str(pool_size),
            *(["--raw"] if raw else []),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE))
    for p in procs:
        assert p.stdout is not None
        line = await p.stdout.readline()
        assert line.strip() == b"ready", line
    for p in procs:
        assert p.stdin is not None
        p.stdin.write(b"go\n")
        await p.stdin.drain()
    results = []
    for p in procs:
        out, _ = await p.communicate()
        assert p.returncode == 0
        results.append(json.loads(out.decode().strip().splitlines()[-1]))
    latencies = [x for r in results for x in r["latencies"]]
    elapsed = max(r["ended"] for r in results) - min(r["started"] for r in results)
    return len(latencies) / elapsed, latencies


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000)[int(q * 10) - 1] * 1000


async def fresh_database(server: str) -> str:
    from tests.pgserver import create_database

    return await create_database(server, prefix="bench")


async def main_async(args: argparse.Namespace) -> None:
    rows: list[tuple[str, float, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        await (await open_url(url)).close()
        rate, lat = await run_workers(url, 1, args.learners, args.pool_size)
        rows.append(("SQLite, 1 process (synchronous=full)", rate, pct(lat, 50), pct(lat, 99)))
    server = os.environ.get("QUIZBOT_BENCH_POSTGRES_URL")
    if server:
        await pg_rows(server, args, rows)
    else:
        from tests.pgserver import throwaway_server

        with throwaway_server(fsync=True) as started:
            await pg_rows(started, args, rows)
    print(f"\n{args.learners} learners x 8 answers, back to back, on {os.cpu_count()} cores\n")
    print(f"| {'store':<42} | answers/s | p50 ms | p99 ms |")
    print(f"|{'-' * 44}|-----------|--------|--------|")
    for name, rate, p50, p99 in rows:
        print(f"| {name:<42} | {rate:9,.0f} | {p50:6.1f} | {p99:6.1f} |")
    rates = dict((name, rate) for name, rate, _, _ in rows)
    raw = next((r for n, r in rates.items() if n.startswith("baseline")), None)
    if raw and "PostgreSQL, 1 worker process" in rates:
        print(f"\none PostgreSQL worker / raw asyncpg baseline (medians of {args.rounds} runs "
              f"each): {rates['PostgreSQL, 1 worker process'] / raw:.2f}x")


async def pg_run(server: str, args: argparse.Namespace, count: int, *, raw: bool = False
                 ) -> tuple[float, list[float]]:
    url = await fresh_database(server)
    await (await open_url(url)).close()  # migrated before the workers race
    return await run_workers(url, count, args.learners, args.pool_size, raw=raw)


async def pg_rows(server: str, args: argparse.Namespace,
                  rows: list[tuple[str, float, float, float]]) -> None:
    # The baseline and one worker take turns, `--rounds` times each, and each row is its
    # median run: on a shared machine a single run of either swings by 2x.
    pairs: dict[bool, list[tuple[float, list[float]]]] = {True: [], False: []}
    for _ in range(args.rounds):
        for raw in (True, False):
            pairs[raw].append(await pg_run(server, args, 1, raw=raw))
    for raw, name in ((True, "baseline: raw asyncpg, same statements"),
                      (False, "PostgreSQL, 1 worker process")):
        runs = sorted(pairs[raw], key=lambda r: r[0])
        rate, lat = runs[len(runs) // 2]
        rows.append((name, rate, pct(lat, 50), pct(lat, 99)))
        print(f"{name}: {', '.join(f'{r:,.0f}' for r, _ in pairs[raw])} answers/s",
              file=sys.stderr)
    for count in (c for c in args.workers if c != 1):
        rate, lat = await pg_run(server, args, count)
        rows.append((f"PostgreSQL, {count} worker processes", rate, pct(lat, 50), pct(lat, 99)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=400)
    parser.add_argument("--workers", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1, 2, 4])
    parser.add_argument("--pool-size", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3,
                        help="runs of the baseline and of one worker, taking turns")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--raw", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.raw:
        print(json.dumps(asyncio.run(raw_worker(args.url, args.learners, args.pool_size))))
        return
    if args.worker is not None:
        result = asyncio.run(worker(args.url, args.worker, args.learners, args.pool_size))
        print(json.dumps(result))
        return
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
