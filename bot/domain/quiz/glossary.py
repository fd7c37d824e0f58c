"""The Urdu glossary (content/glossary.yaml): one Urdu term per English term. `quizbot
validate` warns, with file:line, where a quiz or a UI string renders a term otherwise."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from bot.domain.errors import ContentError
from bot.domain.quiz.model import Quiz, Text
from bot.domain.quiz.yaml_lines import LineLoader, LineMap

GLOSSARY_FILE = "glossary.yaml"
_TERM_KEYS = {"en", "ur", "note", "wrong"}
_GLOSS = re.compile(r"\([^()\u0600-\u06ff]*\)")


@dataclass(frozen=True, slots=True)
class Term:
    en: str
    ur: str
    note: str = ""
    wrong: tuple[re.Pattern[str], ...] = ()


@dataclass(frozen=True, slots=True)
class Glossary:
    language: str
    terms: tuple[Term, ...]
    source: str = ""

    def misrenderings(self, text: str) -> Iterator[tuple[str, Term]]:
        """(the wrong rendering found, its term) for each known wrong rendering in `text`;
        an English gloss in brackets after the Urdu term, "(bubbles)", is not one."""
        glosses = [m.span() for m in _GLOSS.finditer(text)]
        for term in self.terms:
            for pattern in term.wrong:
                for match in pattern.finditer(text):
                    if not any(a <= match.start() and match.end() <= b for a, b in glosses):
                        yield match.group(0), term


def is_glossary(path: Path) -> bool:
    """True for the glossary file, which sits among the quizzes but is not one."""
    return path.name == GLOSSARY_FILE


def load_glossary(path: Path) -> Glossary:
    """Read and check a glossary file; ContentError naming file:line for every problem."""
    source = str(path)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=LineLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ContentError([f"{source}: cannot be read as YAML: {exc}"]) from exc
    problems: list[str] = []
    if not isinstance(data, LineMap) or not isinstance(data.get("language"), str) \
            or not isinstance(data.get("terms"), list):
        raise ContentError([f"{source}:1: needs `language: <code>` and a `terms:` list"])
    terms: list[Term] = []
    lines = getattr(data["terms"], "item_lines", [])
    for k, (item, line) in enumerate(zip(data["terms"], lines, strict=True)):
        term = _term(item, f"{source}:{line}: terms[{k}]", problems)
        if term is not None:
            terms.append(term)
    seen: set[str] = set()
    for term, line in zip(terms, lines, strict=False):
        if term.en.lower() in seen:
            problems.append(f"{source}:{line}: {term.en!r} is listed twice")
        seen.add(term.en.lower())
    if problems:
        raise ContentError(problems)
    return Glossary(data["language"], tuple(terms), source)


def _term(item: Any, where: str, problems: list[str]) -> Term | None:
    if not isinstance(item, dict):
        problems.append(f"{where} must be a mapping with en, ur, note, wrong")
        return None
    unknown = set(item) - _TERM_KEYS
    if unknown:
        problems.append(f"{where} has unknown keys {sorted(unknown)} "
                        f"(expected {', '.join(sorted(_TERM_KEYS))})")
    en, ur, note = item.get("en"), item.get("ur"), item.get("note", "")
    if not (isinstance(en, str) and en.strip() and isinstance(ur, str) and ur.strip()):
        problems.append(f"{where} needs non-empty `en` and `ur` strings")
        return None
    wrong = item.get("wrong", [])
    if not isinstance(wrong, list) or not all(isinstance(w, str) and w for w in wrong):
        problems.append(f"{where}.wrong must be a list of regular expressions")
        return None
    patterns = []
    for w in wrong:
        try:
            patterns.append(re.compile(w, re.IGNORECASE))
        except re.error as exc:
            problems.append(f"{where}.wrong {w!r} is not a regular expression: {exc}")
    return Term(en.strip(), ur.strip(), str(note).strip(), tuple(patterns))


def glossary_for(quiz_file: Path, fallback: Path) -> Path | None:
    """The glossary beside a quiz file, else the one in `fallback` (the shipped content)."""
    for folder in (quiz_file.parent, fallback):
        if (folder / GLOSSARY_FILE).is_file():
            return folder / GLOSSARY_FILE
    return None


def glossary_warnings(glossary: Glossary, quiz: Quiz) -> list[str]:
    """One `file:line: message` per wrong rendering in the quiz's texts of that language."""
    if glossary.language not in quiz.languages:
        return []
    fields: list[tuple[str, Text | None, int]] = [
        ("title", quiz.title, 1), ("description", quiz.description, 1)]
    for i, q in enumerate(quiz.questions):
        fields.append((f"questions[{i}].text", q.text, q.line))
        for j, o in enumerate(q.options):
            fields += [(f"questions[{i}].options[{j}].text", o.text, o.line),
                       (f"questions[{i}].options[{j}].why_not", o.why_not, o.line)]
        fields.append((f"questions[{i}].explanation", q.explanation, q.line))
    lines = _file_lines(quiz.source)
    out = []
    for path, text, start in fields:
        if text is not None:
            out += _warn(glossary, quiz.source, lines, path, text.get(glossary.language), start)
    return out


def strings_warnings(glossary: Glossary, path: Path) -> list[str]:
    """Wrong renderings in a UI catalogue (bot/present/locales/<language>.yaml, or the
    gettext <language>.po that holds the strings with plural forms)."""
    if path.stem != glossary.language or not path.is_file():
        return []
    if path.suffix == ".po":
        return _po_warnings(glossary, path)
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=LineLoader)
    if not isinstance(data, LineMap):
        return []
    lines = _file_lines(str(path))
    out = []
    for key, value in data.items():
        if isinstance(value, str):
            out += _warn(glossary, str(path), lines, key, value, data.key_lines.get(key, 1))
    return out


def _po_warnings(glossary: Glossary, path: Path) -> list[str]:
    """Each translated form (msgstr, msgstr[n]) of a .po file, under its msgctxt key."""
    lines = _file_lines(str(path))
    out, key = [], ""
    for n, line in enumerate(lines, 1):
        if line.startswith("msgctxt "):
            key = line[len("msgctxt "):].strip().strip('"')
        elif line.startswith("msgstr") and key:
            text = line.split(" ", 1)[1].strip() if " " in line else ""
            out += _warn(glossary, str(path), lines, key, text.strip('"'), n)
    return out


def _warn(glossary: Glossary, source: str, lines: list[str], path: str, text: str,
          start: int) -> list[str]:
    # The string itself starts at the first line that holds its opening words: the
    # English text of the same field comes first and may hold the same Latin word.
    start = _line_of(lines, start, text.strip()[:40])
    out = []
    for found, term in dict.fromkeys(glossary.misrenderings(text)):
        out.append(f"{source}:{_line_of(lines, start, found)}: {path} ({glossary.language}) "
                   f"renders {term.en!r} as {found!r}; the glossary's term is {term.ur!r}")
    return out


def _file_lines(source: str) -> list[str]:
    try:
        return Path(source).read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError):
        return []


def _line_of(lines: list[str], start: int, snippet: str) -> int:
    """The first line at or after `start` that holds `snippet` (folded YAML strings are
    one line each), else `start`."""
    first = snippet.split("\n")[0].lower()
    for n in range(max(start, 1), len(lines) + 1):
        if first in lines[n - 1].lower():
            return n
    return start


def term_table(glossary: Glossary) -> Mapping[str, str]:
    """English term -> Urdu term, for tests and writers."""
    return {t.en: t.ur for t in glossary.terms}
