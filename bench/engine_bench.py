"""Engine benchmark on a real SQLite file: throughput, paced latency, baseline, memory.

    python bench/engine_bench.py [--learners 1000] [--paced 1000] [--users 100000]
                                 [--profile FILE] [--breakdown] [--synchronous normal]

Prints a table. Numbers, not assertions: tests never time anything. CPU is process time
(every thread) per answer, the figure that holds on a shared machine; the baseline's is
measured the same way in the same run. --profile FILE runs the saturation run under
cProfile (CPU time of each thread) and writes pstats to FILE (the event loop),
FILE.writer and FILE.reader (the connections' threads). --breakdown splits each paced
answer's latency into queueing, reads, the write transaction, the COMMIT and the engine
(`bench/engine_trace.py`), on average and over the slowest 1%.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import aiosqlite
from engine_trace import Tracer  # bench/engine_trace.py, next to this file

from bot.app import runtime
from bot.app.compose import build_engine
from bot.domain.quiz import Quiz, default_content_dir, load_quizzes
from bot.domain.results import Actor, AnswerResult, QuestionPrompt
from bot.features.engine import Engine
from bot.store.sqlite import SQLiteStore


def rss_mb() -> float:
    """Resident set size of this process now, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pick(quiz: Quiz, prompt: QuestionPrompt, rng: random.Random) -> int:
    question = quiz.question(prompt.question_id)
    assert question is not None
    right = prompt.options.index(question.options[question.correct].text.get(prompt.lang))
    return right if rng.random() < 0.7 else (right + 1) % len(prompt.options)


async def learner(engine: Engine, quiz: Quiz, actor: Actor, rng: random.Random,
                  think: tuple[float, float] | None, latencies: list[float],
                  tracer: Tracer | None = None) -> int:
    prompt: QuestionPrompt | None = await engine.start(actor, quiz.id)
    answered = 0
    while prompt is not None:
        if think:
            await asyncio.sleep(rng.uniform(*think))
        t0 = time.perf_counter()
        with tracer.answer() if tracer else contextlib.nullcontext():
            result = await engine.answer(actor, prompt.session_id, prompt.position,
                                         pick(quiz, prompt, rng))
        latencies.append(time.perf_counter() - t0)
        assert isinstance(result, AnswerResult) and not result.duplicate
        answered += 1
        prompt = result.next
    return answered


async def engine_run(path: Path, quizzes: dict[str, Quiz], learners: int,
                     think: tuple[float, float] | None,
                     profile: Path | None = None, synchronous: str = "full",
                     tracer: Tracer | None = None,
                     ) -> tuple[int, float, list[float], int, float]:
    store = await SQLiteStore.open(path, synchronous=synchronous)
    engine = build_engine(store, quizzes, rng=random.Random(1))
    quiz = quizzes["parallelism"]
    latencies: list[float] = []
    tag = "paced" if think else "sat"
    actors = [Actor("bench", f"{tag}-{i}", None, f"L{i}") for i in range(learners)]
    commits0 = store.commits
    profiler = cProfile.Profile(time.thread_time) if profile else None
    t0, cpu0 = time.perf_counter(), time.process_time()
    try:
        with profiler or contextlib.nullcontext():
            counts = await asyncio.gather(*[
                learner(engine, quiz, a, random.Random(i), think, latencies, tracer)
                for i, a in enumerate(actors)])
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        commits = store.commits - commits0
    finally:
        await store.close()
    if profiler and profile:
        profiler.dump_stats(profile)
    return sum(counts), elapsed, latencies, commits, cpu


async def baseline(path: Path, rows: int, synchronous: str = "full") -> tuple[float, float]:
    """Raw aiosqlite, same pragmas: one INSERT + COMMIT per answer, back to back."""
    db = await aiosqlite.connect(path, isolation_level=None)
    await db.execute("PRAGMA journal_mode = WAL")
    await db.execute(f"PRAGMA synchronous = {synchronous.upper()}")
    await db.execute("CREATE TABLE IF NOT EXISTS raw (session INTEGER, position INTEGER, "
                     "chosen INTEGER, at REAL, PRIMARY KEY (session, position))")
    t0, cpu0 = time.perf_counter(), time.process_time()
    for i in range(rows):
        await db.execute("BEGIN")
        await db.execute("INSERT INTO raw VALUES (?, ?, ?, ?)", (i // 8, i % 8, i % 4, time.time()))
        await db.execute("COMMIT")
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    await db.close()
    return rows / elapsed, cpu / rows


def seed_users(path: Path, users: int) -> None:
    """Fill the database with `users` learners who each finished one attempt."""
    db = sqlite3.connect(path)
    now = time.time()
    with db:
        db.executemany("INSERT INTO users VALUES ('seed', ?, ?, NULL, ?)",
                       ((str(i), f"user {i}", now) for i in range(users)))
        db.executemany(
            "INSERT INTO sessions (platform, user_id, quiz_id, kind, status, question_ids, "
            "option_orders, position, score, started_at, finished_at) VALUES "
            "('seed', ?, 'parallelism', 'full', 'finished', '[]', '[]', 8, ?, ?, ?)",
            ((str(i), i % 9, now, now + i) for i in range(users)))
        db.executemany("INSERT INTO best_scores VALUES ('parallelism', '', 'seed', ?, ?, 8, ?)",
                       ((str(i), i % 9, now + i) for i in range(users)))
    db.close()


async def memory_run(path: Path, quizzes: dict[str, Quiz], users: int) -> float:
    """RSS after seeding `users`, opening the store and serving a burst of traffic."""
    await (await SQLiteStore.open(path)).close()
    seed_users(path, users)
    store = await SQLiteStore.open(path)
    engine = build_engine(store, quizzes)
    quiz = quizzes["parallelism"]
    rng = random.Random(3)
    try:
        await asyncio.gather(*[learner(engine, quiz, Actor("seed", str(u)), rng, None, [])
                               for u in rng.sample(range(users), 200)])
        for _ in range(20):
            await engine.leaderboard(Actor("seed", "1"), scope="global")
            await engine.stats(Actor("seed", str(rng.randrange(users))))
        return rss_mb()
    finally:
        await store.close()


class GCPauses:
    """Every cyclic-collection pause (wall time, all threads stop) while active."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self._started = 0.0

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses.append(time.perf_counter() - self._started)

    @contextlib.contextmanager
    def active(self) -> Iterator[GCPauses]:
        gc.callbacks.append(self._callback)
        try:
            yield self
        finally:
            gc.callbacks.remove(self._callback)

    def summary(self) -> str:
        if not self.pauses:
            return "none"
        return (f"{len(self.pauses)}, {sum(self.pauses) * 1000:.0f} ms in all, "
                f"longest {max(self.pauses) * 1000:.1f} ms")


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000)[int(q * 10) - 1] * 1000


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--learners", type=int, default=1000)
    parser.add_argument("--paced", type=int, default=1000)
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--baseline-rows", type=int, default=4000)
    parser.add_argument("--profile", type=Path, help="pstats of the saturation run to FILE")
    parser.add_argument("--synchronous", choices=("full", "normal"), default="full",
                        help="SQLite synchronous for the baseline and the engine runs "
                             "(normal: no fsync per commit, what is left is CPU)")
    parser.add_argument("--breakdown", action="store_true",
                        help="split the paced run's latency per answer (bench/engine_trace.py)")
    parser.add_argument("--no-memory", action="store_true", help="skip the RSS runs")
    parser.add_argument("--runtime-default", action="store_true",
                        help="leave the garbage collector and the GIL's switch interval as "
                             "Python starts them, instead of settling them after start-up "
                             "as `quizbot run` does (bot/app/runtime.py)")
    args = parser.parse_args()
    quizzes = load_quizzes([default_content_dir()])
    if not args.runtime_default:
        runtime.settle()  # as `quizbot run` does once the bot has started (bot/app/runtime.py)
    pauses = GCPauses()
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        sync = args.synchronous
        base, base_cpu = await baseline(tmpdir / "baseline.db", args.baseline_rows, sync)
        profiled = Tracer(profile=True) if args.profile else None
        with profiled.active() if profiled else contextlib.nullcontext():
            answers, elapsed, sat_lat, commits, sat_cpu = await engine_run(
                tmpdir / "engine.db", quizzes, args.learners, None, args.profile, sync)
        if profiled and args.profile:
            for name, prof in profiled.profiles.items():
                prof.dump_stats(f"{args.profile}.{name}")
        tracer = Tracer() if args.breakdown else None
        with tracer.active() if tracer else contextlib.nullcontext(), pauses.active():
            paced_answers, _, paced_lat, _, paced_cpu = await engine_run(
                tmpdir / "paced.db", quizzes, args.paced, (0.5, 3.0), synchronous=sync,
                tracer=tracer)
        if not args.no_memory:
            rss_small = await memory_run(tmpdir / "mem-small.db", quizzes, 1_000)
            rss_big = await memory_run(tmpdir / "mem-big.db", quizzes, args.users)
    rate = answers / elapsed
    rows = [
        (f"baseline: aiosqlite INSERT+COMMIT per answer (synchronous {sync})",
         f"{base:,.0f} rows/s, CPU {base_cpu * 1000:.3f} ms/row"),
        (f"saturation: {args.learners} learners, {answers} answers",
         f"{rate:,.0f} durable answers/s ({answers / commits:.1f} answers/commit)"),
        ("ratio engine / baseline", f"{rate / base:.2f}x"),
        ("CPU per answer, saturation / paced (all threads)",
         f"{sat_cpu / answers * 1000:.3f} / {paced_cpu / paced_answers * 1000:.3f} ms"),
        ("saturation latency p50 / p99",
         f"{pct(sat_lat, 50):.1f} / {pct(sat_lat, 99):.1f} ms"),
        (f"paced: {args.paced} learners, think 0.5-3 s, {paced_answers} answers",
         f"p50 {pct(paced_lat, 50):.2f} ms, p99 {pct(paced_lat, 99):.2f} ms"),
        ("paced: garbage-collector pauses"
         + (" (--runtime-default)" if args.runtime_default else ""),
         pauses.summary()),
    ]
    if tracer:
        per = 1000 / paced_answers
        rows += [("paced CPU per answer: writer / reader thread / the rest (loop)",
                  f"{tracer.writer_cpu * per:.3f} / {tracer.reader_cpu * per:.3f} / "
                  f"{(paced_cpu - tracer.writer_cpu - tracer.reader_cpu) * per:.3f} ms"),
                 ("paced answer, where the time goes", ""), *tracer.table()]
    if not args.no_memory:
        rows += [("RSS with 1,000 users in the database", f"{rss_small:.1f} MB"),
                 (f"RSS with {args.users:,} users in the database", f"{rss_big:.1f} MB")]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  result")
    print(f"{'-' * width}  {'-' * 40}")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    asyncio.run(main())
