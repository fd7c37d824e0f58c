"""Loading quiz files: every problem is collected (not just the first) and names file,
line and field path, e.g. ``content/x.yaml:42: questions[3].correct is 5 but the question
has 4 options``.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from threading import Lock
from typing import Protocol

import yaml

from bot.domain.errors import ContentError
from bot.domain.quiz.glossary import is_glossary
from bot.domain.quiz.model import Quiz
from bot.domain.quiz.sampling import sample_problems
from bot.domain.quiz.topics import TOPICS_FILE, read_topics_file
from bot.domain.quiz.validate import Checker
from bot.domain.quiz.yaml_lines import LineLoader, RefusedYAML

# A check the content must also pass, handed in by whoever loads it (the composition root
# and the CLI pass `bot.present.limits.check_rendered_sizes`): one problem per line.
Check = Callable[[Quiz], list[str]]
MAX_FILE_BYTES = 512 * 1024  # the largest shipped file is about 110 kB


def load_file(path: Path, *, display: str | None = None, check: Check | None = None,
              passes: Passes | None = None) -> Quiz:
    """Load and validate one quiz file (and `check` it), its computed questions sampled;
    raise ContentError listing every problem. The one verdict on a file: `validate`, `run`,
    `check`, `play` and /reload all come here. `passes`: files earlier loads passed (a
    file it knows skips `check` and the sampling; the YAML and the Checker still run)."""
    source = display or str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ContentError([f"{source}: is {size // 1024} kB; a quiz file may have "
                                f"{MAX_FILE_BYTES // 1024} kB (split it)"])
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ContentError([f"{source}: cannot be read: {exc}"]) from exc
    loader = LineLoader(raw)
    try:
        data = loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else source
        why = getattr(exc, "problem", exc)
        raise ContentError([f"{where}: {why}" if isinstance(exc, RefusedYAML)
                            else f"{where}: is not valid YAML: {why}"]) from None
    finally:
        loader.dispose()
    shared, topic_problems = read_topics_file(path.parent / TOPICS_FILE)
    checker = Checker(source, base=path.parent, shared_topics=shared)
    checker.problems += topic_problems
    for dotted, first, again in loader.duplicates:
        key = dotted.rpartition(".")[2]
        checker.problems.append(f"{source}:{again}: key {key!r} is given twice (also at "
                                f"{source}:{first}); the last would silently win")
    quiz = checker.quiz(data)
    lasting = None if passes is None else _lasting_key(source, raw, repr(shared), check)
    if quiz is not None and not checker.problems and passes is not None \
            and lasting is not None and passes.passed(lasting):
        return quiz  # this text, topics and check passed both steps below with this code
    if quiz is not None and check is not None:
        checker.problems.extend(check(quiz))
    if quiz is not None and not checker.problems:  # drawn numbers: what learners would get
        checker.problems.extend(_sampled(quiz, raw, check))
        if not checker.problems and passes is not None and lasting is not None:
            passes.note_pass(lasting)
    if checker.problems or quiz is None:
        raise ContentError(checker.problems or [f"{source}: no quiz found"])
    return quiz


def is_quiz_file(path: Path) -> bool:
    """A *.yaml / *.yml file that is not the glossary or the shared topics."""
    return (path.suffix in (".yaml", ".yml") and not is_glossary(path)
            and path.name != TOPICS_FILE)


# Sampling is a pure function of the file's text (and the check): its verdict is kept per
# text, so a /reload of unchanged files, or the next test that loads the shipped content,
# does not draw the same 200 x 14 numbers again (about a second of CPU each time).
_VERDICTS: OrderedDict[tuple[str, str, Check | None], tuple[str, ...]] = OrderedDict()
_VERDICTS_KEPT = 64
_verdicts_lock = Lock()


class Passes(Protocol):
    """Where a terminal start finds the files earlier starts passed (the CLI's cache
    folder, `adapters.cli.verdicts`), keyed by file, text, shared topics and check; the
    store also keys them by the code that passed them. Only passes are kept: a refusal is
    found anew at every load."""

    def passed(self, key: str) -> bool: ...
    def note_pass(self, key: str) -> None: ...


def _lasting_key(source: str, raw: str, topics: str, check: Check | None) -> str | None:
    """The key of a pass in `Passes`; None for a check another process cannot name."""
    if check is not None and "<" in check.__qualname__:  # a lambda or a local function
        return None
    name = "" if check is None else f"{check.__module__}.{check.__qualname__}"
    text = hashlib.sha256(f"{raw}\0{topics}".encode()).hexdigest()
    return f"{source}\0{text}\0{name}"


def _sampled(quiz: Quiz, raw: str, check: Check | None) -> list[str]:
    key = (quiz.source, hashlib.sha256(raw.encode("utf-8")).hexdigest(), check)
    with _verdicts_lock:
        kept = _VERDICTS.get(key)
    if kept is None:
        kept = tuple(sample_problems(quiz, check=check))
        with _verdicts_lock:
            _VERDICTS[key] = kept
            while len(_VERDICTS) > _VERDICTS_KEPT:
                _VERDICTS.popitem(last=False)
    return list(kept)


def iter_quiz_files(paths: Iterable[Path]) -> Iterator[Path]:
    """Every quiz file named or found below the given paths, sorted; the glossary
    (content/glossary.yaml) and the topics (content/topics.yaml) are not quizzes."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if is_quiz_file(p))
        elif not is_glossary(path) and path.name != TOPICS_FILE:
            yield path


def load_all(paths: Iterable[Path], *, check: Check | None = None,
             passes: Passes | None = None) -> tuple[dict[str, Quiz], list[str]]:
    """Every valid quiz under `paths`, and every problem found on the way."""
    paths = list(paths)
    quizzes: dict[str, Quiz] = {}
    problems: list[str] = []
    for path in iter_quiz_files(paths):
        if not path.exists():
            problems.append(f"{path}: no such file or folder")
            continue
        try:
            quiz = load_file(path, check=check, passes=passes)
        except ContentError as exc:
            problems.extend(exc.problems)
            continue
        if quiz.id in quizzes:
            problems.append(
                f"{path}:1: id {quiz.id!r} is already used by {quizzes[quiz.id].source}")
            continue
        quizzes[quiz.id] = quiz
    if not quizzes and not problems:
        problems.append(f"{', '.join(map(str, paths))}: no quiz files (*.yaml) found; write "
                        "one as content/README.md shows, or convert a GIFT, Moodle XML, Aiken "
                        "or CSV file with quizbot import")
    problems += unknown_next(quizzes, [p for p in paths if p.is_dir()])
    return quizzes, problems


def unknown_next(quizzes: dict[str, Quiz], folders: list[Path]) -> list[str]:
    """A quiz's `next` must name a quiz loaded with it when its whole folder was read (a
    single file may point at a quiz in a file not given), and the links must end: a path
    that comes back to where it started leads a learner round in circles."""
    out = []
    for quiz in quizzes.values():
        src = Path(quiz.source).resolve().parent
        whole = any(src == f.resolve() or f.resolve() in src.parents for f in folders)
        if quiz.next and quiz.next not in quizzes and whole:
            out.append(f"{quiz.source}:1: next names quiz {quiz.next!r}, which is not among "
                       f"the quizzes loaded ({', '.join(sorted(quizzes))})")
    reported: set[str] = set()
    for start in sorted(quizzes):
        path = [start]
        while (step := quizzes[path[-1]].next) in quizzes and step not in path:
            path.append(step)
        if step == start and start not in reported:
            reported.update(path)
            out.append(f"{quizzes[start].source}:1: next links go round in a loop: "
                       f"{' -> '.join([*path, start])}; let the last quiz of a path name none")
    return out


def load_quizzes(paths: Iterable[Path], *, check: Check | None = None,
                 passes: Passes | None = None) -> dict[str, Quiz]:
    """Load every quiz file under `paths`; raise one ContentError with all problems."""
    quizzes, problems = load_all(paths, check=check, passes=passes)
    if problems:
        raise ContentError(problems)
    return quizzes


def built_in_ids() -> frozenset[str]:
    """The ids of the quizzes quizbot ships (each shipped file is named after its quiz)."""
    return frozenset(path.stem for path in default_content_dir().glob("*.yaml"))


def default_content_dir() -> Path:
    """The shipped content/: inside the wheel as bot/_content, else the source checkout's."""
    packaged = Path(__file__).resolve().parents[2] / "_content"
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[3] / "content"
