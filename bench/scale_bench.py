"""Scale benchmark: durable answers/s and latency per answer with 1, 2 and 4 worker
processes on one PostgreSQL on this machine, and SQLite in one process for comparison.

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
    engine = Engine(store, quizzes, rng=random.Random(index))
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


async def run_workers(url: str, count: int, learners: int, pool_size: int
                      ) -> tuple[float, list[float]]:
    """Start `count` worker processes, release them together; (answers/s, latencies)."""
    procs = []
    for i in range(count):
        procs.append(await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--worker", str(i), "--url", url,
            "--learners", str(learners // count), "--pool-size", str(pool_size),
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


async def pg_rows(server: str, args: argparse.Namespace,
                  rows: list[tuple[str, float, float, float]]) -> None:
    for count in args.workers:
        url = await fresh_database(server)
        await (await open_url(url)).close()  # migrated before the workers race
        rate, lat = await run_workers(url, count, args.learners, args.pool_size)
        rows.append((f"PostgreSQL, {count} worker process{'es' if count > 1 else ''}",
                     rate, pct(lat, 50), pct(lat, 99)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=400)
    parser.add_argument("--workers", type=lambda s: [int(x) for x in s.split(",")],
                        default=[1, 2, 4])
    parser.add_argument("--pool-size", type=int, default=10)
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        result = asyncio.run(worker(args.url, args.worker, args.learners, args.pool_size))
        print(json.dumps(result))
        return
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
