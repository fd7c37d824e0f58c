"""Computed questions: what drawing costs, against a static question in the same run.

    python bench/numbers_bench.py [--draws 2000]

Prints a table: validate's sampling of parallelism-numbers (200 draws a question), one
uncached draw (a new attempt), one cached draw (every later look at the same attempt), a
schedule picture drawn and cached, and a whole solo attempt through the engine on a real
SQLite file, parallelism-numbers against parallelism-deep. Numbers, not assertions.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bot.app.compose import build_engine
from bot.domain.pipeline import ScheduleSpec
from bot.domain.quiz import default_content_dir, load_quizzes
from bot.domain.quiz.computed import draw
from bot.domain.quiz.sampling import sample_problems
from bot.domain.results import Actor, AnswerResult, QuestionPrompt
from bot.present import diagrams
from bot.store.sqlite import SQLiteStore


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median seconds of one call over `repeat` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def attempt_seconds(quiz_id: str, users: int) -> float:
    """Median seconds of one whole attempt (start, then every answer) on a real SQLite file."""
    quizzes = load_quizzes([default_content_dir()])
    with tempfile.TemporaryDirectory() as tmp:
        store = await SQLiteStore.open(Path(tmp) / "bench.db")
        try:
            engine = build_engine(store, quizzes, rng=random.Random(1))
            times = []
            for user in range(users):
                actor = Actor("bench", str(user))
                start = time.perf_counter()
                prompt: QuestionPrompt | None = await engine.start(actor, quiz_id)
                while prompt is not None:
                    result = await engine.answer(actor, prompt.session_id, prompt.position, 0)
                    assert isinstance(result, AnswerResult)
                    prompt = result.next
                times.append(time.perf_counter() - start)
            return statistics.median(times)
        finally:
            await store.close()


def main() -> None:
    """Run every measurement and print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--attempts", type=int, default=20)
    args = parser.parse_args()
    quizzes = load_quizzes([default_content_dir()])
    numbers = quizzes["parallelism-numbers"]
    fresh = iter(range(10**9, 10**10))
    rows = [
        ("validate sampling, 14 questions x 200 draws (s)",
         timed(lambda: sample_problems(numbers), 3)),
        ("one uncached draw, mean over questions (us)",
         1e6 * timed(lambda: [draw(q, next(fresh)) for q in numbers.questions],
                     max(1, args.draws // 14)) / len(numbers.questions)),
        ("one cached draw (us)",
         1e6 * timed(lambda: draw(numbers.questions[0], 7), args.draws)),
        ("static question lookup, baseline (us)",
         1e6 * timed(lambda: draw(quizzes["parallelism-deep"].questions[0], 7), args.draws)),
    ]
    spec = ScheduleSpec("gpipe", 8, 32)
    diagrams.png.cache_clear()
    rows.append(("schedule picture gpipe p=8 m=32, drawn (ms)",
                 1e3 * timed(lambda: (diagrams.png.cache_clear(), diagrams.png(spec)), 5)))
    rows.append(("the same picture, cached (us)", 1e6 * timed(lambda: diagrams.png(spec), 1000)))
    for quiz_id in ("parallelism-numbers", "parallelism-deep"):
        per = asyncio.run(attempt_seconds(quiz_id, args.attempts))
        count = len(quizzes[quiz_id].questions)
        rows.append((f"solo attempt {quiz_id}, per answer (ms)", 1e3 * per / count))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value:10.3f}")


if __name__ == "__main__":
    main()
