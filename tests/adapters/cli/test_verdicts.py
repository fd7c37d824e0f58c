"""The content check's passes that `quizbot play` and `quizbot list` keep in the cache
folder: a file that passed with this code is not sampled again, a refusal is found anew at
every load with the same lines, and an edited file or edited code samples again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from adapters.cli.verdicts import CachedPasses, fingerprint
from bot.app.config import Config
from bot.domain.errors import ContentError
from bot.domain.quiz import Quiz
from bot.domain.quiz import load as loader
from bot.domain.quiz.load import load_file
from bot.domain.quiz.sampling import CHECK_SAMPLES
from tests.bot.domain.quiz.test_computed import GOOD, HEAD

ROOT = Path(__file__).resolve().parents[3]
calls: list[str] = []


def counting_check(quiz: Quiz) -> list[str]:
    """A check another process can name; sampling runs it on CHECK_SAMPLES drawn versions."""
    calls.append(quiz.id)
    return []


@pytest.fixture
def passes(tmp_path: Path) -> CachedPasses:
    return CachedPasses(tmp_path / "passes", "code-1")


def fresh_load(path: Path, passes: CachedPasses) -> Quiz:
    """load_file as a new process would: nothing remembered in memory."""
    loader._VERDICTS.clear()
    calls.clear()
    return load_file(path, check=counting_check, passes=passes)


def quiz_file(tmp_path: Path, body: str = GOOD) -> Path:
    path = tmp_path / "q.yaml"
    path.write_text(HEAD + body, encoding="utf-8")
    return path


def test_a_pass_is_kept_and_the_next_load_does_not_sample(
        tmp_path: Path, passes: CachedPasses) -> None:
    path = quiz_file(tmp_path)
    fresh_load(path, passes)
    assert len(calls) == 1 + CHECK_SAMPLES  # the file, then its drawn versions
    assert len(list(passes.folder.iterdir())) == 1
    fresh_load(path, passes)
    assert calls == []  # neither the check nor the draws are redone


def test_an_edited_file_its_topics_or_other_code_check_again(
        tmp_path: Path, passes: CachedPasses) -> None:
    path = quiz_file(tmp_path)
    fresh_load(path, passes)
    path.write_text(HEAD + GOOD.replace("max: 16", "max: 15"), encoding="utf-8")
    fresh_load(path, passes)
    assert len(calls) == 1 + CHECK_SAMPLES
    shared = "topics:\n  bubble: {en: The bubble}\n"  # the folder's shared topic names
    (tmp_path / "topics.yaml").write_text(shared, encoding="utf-8")
    fresh_load(path, passes)
    assert len(calls) == 1 + CHECK_SAMPLES
    upgraded = CachedPasses(passes.root, "code-2")  # an upgrade or an edited check
    fresh_load(path, upgraded)
    assert len(calls) == 1 + CHECK_SAMPLES
    assert [p.name for p in passes.root.iterdir()] == ["code-2"]  # the old code's are gone
    assert len(list(upgraded.folder.iterdir())) == 1


def test_a_refusal_is_never_kept_and_says_the_same_each_time(
        tmp_path: Path, passes: CachedPasses) -> None:
    path = quiz_file(tmp_path, GOOD.replace("bounds: [0, 1]", "bounds: [2, 3]"))
    said = []
    for _ in range(2):
        with pytest.raises(ContentError) as refused:
            fresh_load(path, passes)
        said.append(refused.value.problems)
    assert said[0] == said[1] and "q.yaml:" in said[0][0] and "leaves the bounds" in said[0][0]
    assert not passes.folder.exists()


def test_a_lambda_check_is_not_kept(tmp_path: Path, passes: CachedPasses) -> None:
    loader._VERDICTS.clear()
    load_file(quiz_file(tmp_path), check=lambda quiz: [], passes=passes)
    assert not passes.folder.exists()


def test_stats_and_export_read_the_quizzes_through_the_kept_passes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from adapters.cli import ops

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    content = tmp_path / "content"
    content.mkdir()
    quiz_file(content)
    loader._VERDICTS.clear()
    assert set(ops._quizzes(Config(content_dir=content))) == {"tiny-numbers"}  # pass noted
    kept = list((tmp_path / "cache" / "quizbot" / "passes").rglob("*"))
    assert any(p.is_file() for p in kept)
    loader._VERDICTS.clear()
    monkeypatch.setattr(loader, "sample_problems", None)  # a second read must not sample
    assert set(ops._quizzes(Config(content_dir=content))) == {"tiny-numbers"}


def test_the_fingerprint_follows_every_source_and_locale_file(tmp_path: Path) -> None:
    package = tmp_path / "bot"
    (package / "present").mkdir(parents=True)
    (package / "present" / "limits.py").write_text("LIMIT = 1\n")
    (package / "present" / "en.yaml").write_text("a: b\n")
    first = fingerprint(package)
    (package / "present" / "en.yaml").write_text("a: c\n")
    second = fingerprint(package)
    (package / "present" / "limits.py").write_text("LIMIT = 2\n")
    assert len({first, second, fingerprint(package)}) == 3


def test_play_keeps_passes_in_the_cache_folder_and_validate_does_not(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(cache),
           "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}

    def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "adapters.cli", *args], input=stdin,
                              capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)

    # One shipped file that passes: the whole folder would add seconds of sampling and
    # check nothing more (a pass of any file would be kept if validate kept passes).
    assert cli("validate", str(ROOT / "content" / "parallelism.yaml")).returncode == 0
    assert not (cache / "quizbot").exists()
    done = cli("play", "--user", "tester", stdin="q\n")
    assert done.returncode == 0, done.stderr
    assert any((cache / "quizbot" / "passes").rglob("*"))
