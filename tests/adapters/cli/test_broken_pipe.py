"""A reader that goes away (`quizbot validate | head -1`) ends the command quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[3]


def test_closed_stdout_gives_no_traceback() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write to stdout now fails with EPIPE
    try:
        quiz = ROOT / "tests" / "fixtures" / "content" / "minimal.yaml"
        done = subprocess.run([sys.executable, "-m", "adapters.cli", "validate", str(quiz)],
                              cwd=ROOT, stdout=write_end, stderr=subprocess.PIPE, timeout=120,
                              check=False)
    finally:
        os.close(write_end)
    err = done.stderr.decode()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert done.returncode == 1
