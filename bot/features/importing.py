"""A quiz file in any format we read (GIFT, Moodle XML, Aiken, CSV, Excel .xlsx, or our YAML)
turned into our YAML and put through every check `quizbot validate` runs
(`content_check.check_paths`), in a private folder: nothing is written where it counts until
the caller decides.

`quizbot import` writes the result beside the other quizzes; an upload in chat installs it
in the database (`bot.features.installed`).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePath, PurePosixPath

from bot.domain.errors import DIRECTION_CONTROLS
from bot.domain.quiz import Quiz, default_content_dir
from bot.domain.quiz.formats import FORMATS, ImportRefused, guess_format, read_draft
from bot.domain.quiz.formats.draft import decode, written_in
from bot.domain.quiz.formats.to_yaml import Converted, kept_ids, quiz_id_for, to_yaml
from bot.domain.quiz.load import MAX_FILE_BYTES
from bot.domain.quiz.topics import TOPICS_FILE, read_topics_file
from bot.domain.quiz.validate import ID_RE, LANG_RE
from bot.features.content_check import check_paths

YAML = "yaml"
# Files teachers have that hold questions in a form we do not read: what to send instead
_DOCUMENT = ("is a document; write the questions as Aiken or GIFT text (a .txt file) or "
             "export them from Moodle as Moodle XML")
_SAVE_AS = {".xls": "is an old Excel workbook (.xls); save it as .xlsx or CSV (Excel: File > "
                    "Save As > Excel Workbook) and use that file",
            ".ods": "is an OpenDocument spreadsheet (.ods); save it as .xlsx or CSV "
                    "(LibreOffice: File > Save As > Excel 2007-365) and use that file",
            ".docx": _DOCUMENT, ".doc": _DOCUMENT, ".odt": _DOCUMENT, ".pdf": _DOCUMENT,
            ".mbz": "is a Moodle course backup; export the question bank as Moodle XML "
                    "(Question bank > Export) and use that file"}


@dataclass(slots=True)
class Imported:
    """What an import gives: the quiz when it is valid, the YAML and pictures to write,
    and every problem (each refuses it) and warning (skipped questions among them)."""

    source: str
    yaml: str = ""
    topics: Path | None = None  # the shared topics the quiz is checked against
    images: dict[str, bytes] = field(default_factory=dict)
    quiz: Quiz | None = None
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.quiz is not None


def convert(data: bytes, name: str, *, fmt: str | None = None, quiz_id: str | None = None,
            lang: str | None = None, topics: Path | None = None,
            before: Quiz | None = None, title: str | None = None,
            pictures: Mapping[str, bytes] | None = None) -> Imported:
    """Read `data` (a file called `name`) and check the quiz it makes, in `lang` (default:
    the one its questions are written in, `written_in`). Its questions may name the shared
    topics of `topics` (a topics.yaml; default: the shipped one). `before`, the version of
    the quiz imported before: an unnamed question unchanged since keeps its id. `title`
    (an upload's caption) names a converted quiz, over the title its file gives.
    `pictures` ("img/x.png" -> bytes): the pictures a quiz file of ours (YAML) names,
    read from beside it (`quizbot quizzes add`); a chat upload is the one file."""
    out = Imported(name, topics=topics or default_content_dir() / TOPICS_FILE)
    if quiz_id is not None and not ID_RE.fullmatch(quiz_id):
        out.problems.append(f"--id {quiz_id!r}: must be 1-40 of a-z, 0-9, '-', '_'")
    if lang is not None and not LANG_RE.fullmatch(lang):
        out.problems.append(f"--lang {lang!r}: must be a language code like en or ur")
    suffix = PurePath(name).suffix.lower()
    fmt = fmt or (YAML if suffix in (".yaml", ".yml") else guess_format(name, data))
    if fmt is None and suffix in _SAVE_AS:
        out.problems.append(f"{name}: {_SAVE_AS[suffix]}")
    elif fmt is None:
        # a chat upload and `quizbot quizzes add` have no --format: the name must say it
        out.problems.append(f"{name}: cannot tell its format; name the file .yaml, .gift, "
                            ".xml (Moodle XML), .csv or .xlsx, or give an Aiken file its "
                            "ANSWER: lines (quizbot import also takes --format "
                            f"{'|'.join(FORMATS)})")
    if out.problems:
        return out
    try:
        converted = _converted(data, name, fmt or YAML, quiz_id, lang, out, before,
                               caption_title(title))
        if converted is not None and fmt == YAML:
            converted.images = {rel: picture for rel, picture in (pictures or {}).items()
                                if inside(rel)}
    except ImportRefused as exc:
        out.problems.extend(exc.problems)
        return out
    if converted is not None:
        _check(converted, out)
        out.problems.sort(key=_line)  # the reader's and the checks' problems, in file order
    return out


def caption_title(caption: str | None) -> str:
    """The title an upload's caption gives: its first line, spacing and direction controls
    aside ("" for none)."""
    first = DIRECTION_CONTROLS.sub("", caption or "").strip().split("\n", 1)[0]
    return " ".join(first.split())


def inside(rel: str) -> bool:
    """A picture's path as a quiz file may name it: relative, never out of its folder."""
    path = PurePosixPath(rel)
    return bool(rel) and not path.is_absolute() and ".." not in path.parts and "\\" not in rel


def _line(problem: str) -> int:
    """The source line a problem is told at ("week3.gift:12: ..."), 0 for the whole file."""
    found = re.match(r"[^\n]*?:(\d+): ", problem)
    return int(found.group(1)) if found else 0


def _converted(data: bytes, name: str, fmt: str, quiz_id: str | None, lang: str | None,
               out: Imported, before: Quiz | None, title: str) -> Converted | None:
    if fmt == YAML:
        return Converted(decode(data, name))
    draft = read_draft(data, name, fmt, lang or "en")
    if lang is None:
        lang = written_in(draft)
        if lang != "en":  # read again: true/false options are named in the language
            draft = read_draft(data, name, fmt, lang)
    # a question the reader already refused is not checked again (its empty option would
    # be told twice); the others are, below
    told = {_line(problem) for problem in draft.problems} - {0}
    starts = [_line(f"{q.where}: ") for q in draft.questions]
    ends = [*starts[1:], float("inf")]
    draft.questions = [q for q, start, end in zip(draft.questions, starts, ends, strict=False)
                       if not any(start <= line < end for line in told)]
    draft.title = title or draft.title
    quiz_id = quiz_id or quiz_id_for(name)
    keep = kept_ids(before) if before is not None and before.id == quiz_id else None
    converted = to_yaml(draft, quiz_id, lang, keep, reserved=_shipped_topics(out.topics))
    out.warnings.extend(draft.skipped + draft.warnings)
    out.problems.extend(draft.problems)
    if not draft.questions and not draft.problems:
        out.problems.append(f"{name}: no question could be imported"
                            + (" (every one was skipped)" if draft.skipped else ""))
    # the questions that did convert are checked too: every problem is told in one pass
    # (not one question without a key now, another's long explanation next time), and
    # --force has them to write
    return converted if converted.starts else None


def _shipped_topics(topics: Path | None) -> set[str]:
    """The shipped topics' ids, which no category may take, but those `topics` (a folder's
    own topics.yaml, beside an --output) declares: a teacher's shared topic is theirs."""
    shipped = default_content_dir() / TOPICS_FILE
    own = set(read_topics_file(topics)[0]) if topics and topics != shipped else set()
    return set(read_topics_file(shipped)[0]) - own


def _check(converted: Converted, out: Imported) -> None:
    """Write the YAML and its pictures into a private folder and check them there exactly
    as `quizbot validate` would; problems are told at the source's positions."""
    shown = PurePath(out.source).with_suffix(".yaml").name
    out.yaml, out.images = converted.yaml, converted.images
    size, count = len(converted.yaml.encode()), len(converted.starts)
    if size > MAX_FILE_BYTES and count:
        # told in the sender's terms: the quiz their file makes, not a size their file is not
        # (a 349 kB GIFT was 'is 1398 kB; a quiz file may have 512 kB (split it)')
        out.problems.append(
            f"{out.source}: its {count} questions make a quiz of {size // 1024} kB; a quiz "
            f"may have {MAX_FILE_BYTES // 1024} kB: split it into files of at most "
            f"{count * MAX_FILE_BYTES // size} questions")
        return
    with tempfile.TemporaryDirectory(prefix="quizbot-import-") as folder:
        path = Path(folder) / shown
        path.write_text(converted.yaml, encoding="utf-8")
        with_shared_topics(Path(folder), out.topics)
        for rel, data in converted.images.items():
            (Path(folder) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(folder) / rel).write_bytes(data)
        # no format but ours has a takeaway: its absence is not the sender's to fix there
        checked = check_paths([path], ui_strings=False, takeaways=not converted.starts)
    prefix, inside = str(path), os.path.join(folder, "")

    def shown_as(text: str) -> str:  # the private folder is ours, not the sender's
        return text.replace(prefix, shown).replace(inside, "")

    out.problems.extend(converted.locate(shown_as(p), shown, out.source)
                        for p in checked.problems)
    out.warnings.extend(converted.locate(shown_as(w), shown, out.source)
                        for w in checked.warnings)
    quiz = next(iter(checked.quizzes.values()), None)
    out.quiz = quiz if not out.problems else None


def with_shared_topics(folder: Path, topics: Path | None) -> None:
    """Put a copy of `topics` (a topics.yaml) into `folder`, where the loader looks for the
    shared topics a quiz beside it may name."""
    if topics is not None and topics.is_file() and not (folder / TOPICS_FILE).exists():
        shutil.copyfile(topics, folder / TOPICS_FILE)
