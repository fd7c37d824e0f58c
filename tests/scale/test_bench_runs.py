"""The Telegram benchmark (issue 25's headline numbers) still runs against the bot as it is:
a change to what a command answers (/quiz with no id became the catalogue) left its
learners waiting for a question that never came, and only a benchmark run found out."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_telegram_benchmark_plays_whole_quizzes(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "telegram_bench.py"), "--learners", "3",
         "--load", "burst", "--synchronous", "full"],
        cwd=tmp_path, capture_output=True, text=True, timeout=180,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()
            if line.startswith(("quizbot/full ", "bare "))}
    # 3 learners x 8 questions each, every tap answered, on both bots
    assert rows["quizbot/full"][3] == rows["bare"][3] == "24", done.stdout
