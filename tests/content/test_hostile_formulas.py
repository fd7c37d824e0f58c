"""Hostile quiz files aimed at the formulas and the YAML reader: each is refused by
`quizbot validate` with one line naming file:line, in a process held to 200 MB and a
generous timeout (the 2 s goal is measured by hand and in the commit, not asserted), and
`run`, `check`, `play` and /reload refuse exactly what validate refuses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.domain.errors import ContentError
from bot.domain.quiz import load_quizzes
from bot.present.limits import check_rendered_sizes
from tests.bot.domain.quiz.test_computed import GOOD, HEAD, line_of

ROOT = Path(__file__).resolve().parents[2]
MEMORY_MB = 200


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`quizbot ARGS` as a process held to MEMORY_MB of address space."""
    def limit() -> None:
        import resource

        size = MEMORY_MB * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/")}
    return subprocess.run([sys.executable, "-m", "adapters.cli", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, preexec_fn=limit, env=env)


def the_problem(done: subprocess.CompletedProcess[str]) -> str:
    """validate's one problem line (exit 1, no traceback, then its count)."""
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines()
             if line.strip() and not line.startswith("warning:")]
    assert lines[-1] == "1 problem(s) found.", lines[-5:]
    assert len(lines) == 2, lines
    return lines[0]


def write(folder: Path, body: str) -> Path:
    path = folder / "hostile.yaml"
    path.write_text(HEAD + body, encoding="utf-8")
    return path


def many(count: int, line: str) -> str:
    return "".join(line.format(k=k) for k in range(count))


# (id, how GOOD is changed, the text on the reported line, what the line says)
CHANGED = [
    ("round-minus-1e9-digits", ("answer: (p-1)/(m+p-1)", "answer: round(p, -10**9)"),
     "answer: round(p, -10**9)", "rounds to -1000000000 digits; at most 12 either way"),
    ("round-minus-1e7-digits", ("answer: (p-1)/(m+p-1)", "answer: 1/m + 0*round(p, -10**7)"),
     "answer: 1/m", "rounds to -10000000 digits"),
    ("range-of-1e308", ("m: {min: 8, max: 16}", "m: {min: -1.0e+308, max: 1.0e+308}"),
     "m: {min: -1.0e+308", "takes more than 10**15 values; at most 10000"),
    ("step-1e-320", ("m: {min: 8, max: 16}", "m: {min: 8, max: 16, step: 1.0e-320}"),
     "m: {min: 8", "takes more than 10**15 values"),
    ("inf-choice", ("p: [4, 8]", "p: [4, .inf]"), "p: [4, .inf]",
     "has inf, which gives infinity (a number beyond 1.8e308); every number must be finite"),
    ("nan-choice", ("p: [4, 8]", "p: [4, .nan]"), "p: [4, .nan]",
     "has nan, which is not a number (NaN); every number must be finite"),
    ("nan-bounds", ("bounds: [0, 1]", "bounds: [.nan, 1]"), "bounds: [.nan",
     "bounds has nan, which is not a number"),
    ("inf-constant", ("answer: (p-1)/(m+p-1)", "answer: 1.0e+999 * p"), "answer: 1.0e+999",
     "the constant gives infinity"),
    ("huge-int-choice", ("p: [4, 8]", f"p: [4, {2**300}]"), "p: [4, 2037",
     "which gives a number over 2**256"),
    ("schedule-gives-infinity", ("schedule: {kind: gpipe, p: p, m: m}",
                                 "schedule: {kind: gpipe, p: p*1.0e+308*10, m: m}"),
     "schedule: {kind", "schedule: 'p*1.0e+308*10' gives infinity"),
    ("impossible-where", ("    answer: (p-1)/(m+p-1)\n",
                          "    where: [p > 100]\n    answer: (p-1)/(m+p-1)\n"),
     "where: [p > 100]", "no usable draw in 50 tries: the constraint 'p > 100' fails"),
    ("3000-params", ("      m: {min: 8, max: 16}\n",
                     "      m: {min: 8, max: 16}\n" + many(2998, "      x{k}: [1, 2, 3, 4, 5]\n")),
     "p: [4, 8]", "declares 3000 parameters; at most 12"),
    ("1500-lets-impossible-where", ("    answer: (p-1)/(m+p-1)\n",
                                    "    let:\n" + many(1500, "      v{k}: p*m+{k}\n")
                                    + "    where: [v1 < 0]\n    answer: (p-1)/(m+p-1)\n"),
     "v0: p*m+0", "defines 1500 values; at most 24"),
]


@pytest.fixture(scope="module")
def refused(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, list[str]]:
    """Every file of CHANGED in one folder, through one `quizbot validate` of that folder
    (one process instead of one each; the same 200 MB hold): each file's problem lines."""
    folder = tmp_path_factory.mktemp("hostile")
    paths = []
    for name, (old, new), _, _ in CHANGED:
        assert old in GOOD
        paths.append(folder / f"{name}.yaml")
        paths[-1].write_text(HEAD + GOOD.replace(old, new), encoding="utf-8")
    done = run_cli("validate", str(folder), timeout=120)
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines()
             if line.strip() and not line.startswith("warning:")]
    assert lines[-1] == f"{len(CHANGED)} problem(s) found.", lines[-5:]
    by_file: dict[Path, list[str]] = {path: [] for path in paths}
    for line in lines[:-1]:
        owner = [path for path in paths if line.startswith(f"{path}:")]
        assert len(owner) == 1, line  # every problem line names one of the files
        by_file[owner[0]].append(line)
    return by_file


@pytest.mark.parametrize(("name", "needle", "says"), [(c[0], *c[2:]) for c in CHANGED],
                         ids=[c[0] for c in CHANGED])
def test_a_hostile_computed_question_is_one_line_with_its_line(
        refused: dict[Path, list[str]], name: str, needle: str, says: str) -> None:
    [path] = [p for p in refused if p.stem == name]
    [problem] = refused[path]  # one line, no more
    assert problem.startswith(f"{path}:{line_of(path, needle)}: "), problem
    assert says in problem, problem
    assert len(problem) < 400, problem


def test_3000_deep_nesting_is_one_line_not_a_recursion_error(tmp_path: Path) -> None:
    path = write(tmp_path, "  - id: deep\n    text: " + "[" * 3000 + "]" * 3000 + "\n")
    problem = the_problem(run_cli("validate", str(path)))  # libyaml's own limit (1,000)
    assert problem == f"{path}:8: nests deeper than 32 levels; a quiz file needs about 6"
    path = write(tmp_path, "  - id: deep\n    text: " + "[" * 100 + "]" * 100 + "\n")
    assert the_problem(run_cli("validate", str(path))) == (
        f"{path}:8: nests deeper than 32 levels; a quiz file needs about 6")
    block = "      " + "- " * 3000 + "x\n"  # block style: compact nested lists
    path.write_text(HEAD + "  - id: deep\n    text:\n" + block, encoding="utf-8")
    assert the_problem(run_cli("validate", str(path))).startswith(
        f"{path}:9: nests deeper than 32 levels")


def test_a_number_too_long_to_read_is_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("p: [4, 8]", "p: [4, " + "9" * 5000 + "]"))
    problem = the_problem(run_cli("validate", str(path)))
    assert problem.startswith(f"{path}:{line_of(path, 'p: [4, 999')}: a number of 5000 "
                              "characters is too long"), problem


def test_a_file_too_big_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD + "# " + "x" * (600 * 1024) + "\n")
    assert the_problem(run_cli("validate", str(path))) == (
        f"{path}: is {path.stat().st_size // 1024} kB; a quiz file may have 512 kB (split it)")


# One verdict: a file only the sampled draws refuse (a mistake that always equals the
# answer) used to load in run, check and play: check said ok, run answered every learner
# "Something went wrong" and play stopped with a traceback.
ALWAYS_EQUAL = ("value: (p-1)/p", "value: (p-1)/(m+p-1)")


@pytest.fixture
def refused_only_by_sampling(tmp_path: Path) -> tuple[Path, Path, str]:
    content = tmp_path / "content"
    content.mkdir()
    write(content, GOOD.replace(*ALWAYS_EQUAL))
    config = tmp_path / "config.yaml"
    config.write_text(f"content:\n  dir: {content}\nstorage:\n  url: sqlite:///"
                      f"{tmp_path / 'bot.db'}\nquiz:\n  default: tiny-numbers\n"
                      "telegram:\n  api_base_url: http://127.0.0.1:9/bot\n", encoding="utf-8")
    problem = the_problem(run_cli("validate", str(content)))
    assert "no usable draw in 50 tries: options 'answer' and 'naive'" in problem
    return content, config, problem


def test_run_check_play_and_reload_refuse_what_validate_refuses(
        refused_only_by_sampling: tuple[Path, Path, str]) -> None:
    content, config, problem = refused_only_by_sampling
    with pytest.raises(ContentError) as caught:  # what run, play and /reload load with
        load_quizzes([content], check=check_rendered_sizes)
    assert caught.value.problems == [problem]
    checked = run_cli("check", "--config", str(config))
    assert checked.returncode == 1 and "FAIL content:" in checked.stdout, checked.stdout
    assert problem in checked.stdout
    for command in (["play", "--config", str(config)], ["run", "--config", str(config)]):
        done = subprocess.run([sys.executable, "-m", "adapters.cli", *command], input="",
                              capture_output=True, text=True, timeout=60, cwd=ROOT,
                              env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                                   "HOME": str(content.parent),
                                   "TELEGRAM_BOT_TOKEN": "123:never-used"})
        assert done.returncode == 1, (command, done.stdout, done.stderr[-2000:])
        assert "Traceback" not in done.stderr
        assert done.stderr.strip() == f"quizbot: {problem}", done.stderr
