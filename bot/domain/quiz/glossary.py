"""The Urdu glossary (content/glossary.yaml): one Urdu term per English term. `quizbot
validate` warns, with file:line, where a quiz or a UI string renders a term otherwise: a
known wrong rendering (`wrong`), or, aligning each English field with its Urdu field, a
term the English uses whose Urdu term the Urdu field lacks."""

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
_TERM_KEYS = {"en", "ur", "note", "wrong", "match", "forms"}
_LATIN = re.compile(r"[A-Za-z]")
_GLOSS = re.compile(r"\([^()\u0600-\u06ff]*\)")
_PLACEHOLDER = re.compile(r"\{[^{}\s]*\}")  # a UI string's {state} is a name, not a word


@dataclass(frozen=True, slots=True)
class Term:
    en: str
    ur: str
    note: str = ""
    wrong: tuple[re.Pattern[str], ...] = ()
    # Where the English uses the term (None: never checked by alignment) and the Urdu
    # renderings that count as the term (its inflections; the Latin term where kept).
    match: re.Pattern[str] | None = None
    forms: tuple[re.Pattern[str], ...] = ()

    def used_in(self, english: str) -> str | None:
        """The English words that use this term in `english`, else None."""
        found = self.match.search(english) if self.match is not None else None
        return found.group(0) if found else None

    def rendered_in(self, urdu: str) -> bool:
        return any(form.search(urdu) for form in self.forms)


@dataclass(frozen=True, slots=True)
class Glossary:
    language: str
    terms: tuple[Term, ...]
    source: str = ""

    def misrenderings(self, text: str) -> Iterator[tuple[str, Term]]:
        """(the wrong rendering found, its term) for each known wrong rendering in `text`;
        an English gloss in brackets after the Urdu term, "(bubbles)", is not one."""
        glosses = [m.span() for m in _GLOSS.finditer(text)]
        glosses += [m.span() for m in _PLACEHOLDER.finditer(text)]
        for term in self.terms:
            for pattern in term.wrong:
                for match in pattern.finditer(text):
                    if not any(a <= match.start() and match.end() <= b for a, b in glosses):
                        yield match.group(0), term

    def missing(self, english: str, urdu: str) -> Iterator[tuple[str, Term]]:
        """(the English words, their term) for each term `english` uses whose Urdu term
        `urdu` lacks; a longer term that holds a shorter one ("sequence parallelism",
        "sequence") answers for the words it covers."""
        covered = [m.span() for m in _PLACEHOLDER.finditer(english)]
        for term in sorted(self.terms, key=lambda t: -len(t.en)):
            if term.match is None:
                continue
            spans = [m.span() for m in term.match.finditer(english)]
            own = [(a, b) for a, b in spans
                   if not any(c <= a and b <= d for c, d in covered)]
            covered += spans
            if own and not term.rendered_in(urdu):
                yield english[own[0][0]:own[0][1]], term


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
    en, ur = en.strip(), ur.strip()
    match_text = item.get("match", _default_match(en))
    form_texts = item.get("forms", _default_forms(ur))
    if not isinstance(match_text, str) or not isinstance(form_texts, list) \
            or not all(isinstance(f, str) and f for f in form_texts):
        problems.append(f"{where}: `match` must be a regular expression ('' for none) and "
                        "`forms` a list of them")
        return None
    if _LATIN.search(ur) and "forms" not in item:  # kept in Latin: the word itself counts
        form_texts = [_default_match(en)]
    match = _compile(match_text, f"{where}.match", problems) if match_text else None
    forms = [_compile(f, f"{where}.forms", problems) for f in form_texts]
    return Term(en, ur, str(note).strip(), tuple(patterns), match,
                tuple(f for f in forms if f is not None))


def _default_match(en: str) -> str:
    """The English term as a whole word, with a plural -s: "stage" finds "stages" but not
    "multi-stage" or "staged"."""
    words = r"[ -]".join(re.escape(w) for w in en.split())
    return rf"(?<![-\w]){words}(?:e?s)?(?![-\w])"


def _default_forms(ur: str) -> list[str]:
    """The Urdu term; for a verb (اکٹھا کرنا) its stem, so that اکٹھے کیے counts too."""
    if ur.endswith(" کرنا"):
        return [re.escape(ur[: -len(" کرنا")].rstrip("ایےہ"))]
    return [re.escape(ur)]


def _compile(text: str, where: str, problems: list[str]) -> re.Pattern[str] | None:
    try:
        return re.compile(text, re.IGNORECASE)
    except re.error as exc:
        problems.append(f"{where} {text!r} is not a regular expression: {exc}")
        return None


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
        fields.append((f"questions[{i}].takeaway", q.takeaway, q.line))
    lines = _file_lines(quiz.source)
    out = []
    for path, text, start in fields:
        if text is None:
            continue
        urdu = dict(text.values).get(glossary.language)
        if urdu is None:
            continue
        out += _warn(glossary, quiz.source, lines, path, urdu, start)
        english = dict(text.values).get("en")
        if english:
            out += _align(glossary, quiz.source, lines, path, english, urdu, start)
    return out


def _align(glossary: Glossary, source: str, lines: list[str], path: str, english: str,
           urdu: str, start: int) -> list[str]:
    """A term the English field uses whose Urdu term its Urdu field lacks (a term already
    reported as misrendered in this field is not reported twice)."""
    start = _line_of(lines, start, urdu.strip()[:40])
    misrendered = {term.en for _, term in glossary.misrenderings(urdu)}
    return [f"{source}:{start}: {path} ({glossary.language}) does not render "
            f"{term.en!r} (English: {words!r}) with the glossary's {term.ur!r}"
            for words, term in glossary.missing(english, urdu) if term.en not in misrendered]


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
    english_file = path.with_name(f"en{path.suffix}")
    english = yaml.safe_load(english_file.read_text(encoding="utf-8")) \
        if english_file.is_file() else {}
    lines = _file_lines(str(path))
    out = []
    for key, value in data.items():
        if isinstance(value, str):
            start = data.key_lines.get(key, 1)
            out += _warn(glossary, str(path), lines, key, value, start)
            en = english.get(key) if isinstance(english, dict) else None
            if isinstance(en, str):
                out += _align(glossary, str(path), lines, key, en, value, start)
    return out


def _po_warnings(glossary: Glossary, path: Path) -> list[str]:
    """Each translated form (msgstr, msgstr[n]) of a .po file, under its msgctxt key,
    aligned with its English (msgid for the first form, msgid_plural for the others)."""
    lines = _file_lines(str(path))
    out, key, english = [], "", {"msgid": "", "msgid_plural": ""}
    for n, line in enumerate(lines, 1):
        head, _, rest = line.partition(" ")
        text = rest.strip().strip('"')
        if head == "msgctxt":
            key = text
        elif head in english:
            english[head] = text
        elif head.startswith("msgstr") and key:
            out += _warn(glossary, str(path), lines, key, text, n)
            en = english["msgid" if head in ("msgstr", "msgstr[0]") else "msgid_plural"]
            out += _align(glossary, str(path), lines, key, en, text, n)
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
