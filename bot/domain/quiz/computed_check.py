"""Validation of computed questions (`params:` in a question): every formula parsed and
every template name defined at load, each problem named with file:line."""

from __future__ import annotations

import re
from typing import Any, Protocol

from bot.domain.pipeline import KINDS
from bot.domain.quiz.computed import (
    RESERVED,
    Choice,
    Computed,
    Field,
    Let,
    Param,
    options_of,
    sources,
)
from bot.domain.quiz.formula import FUNCTIONS, Formula, FormulaError, Number, parse
from bot.domain.quiz.model import Question, Text
from bot.domain.quiz.template import Template, compile_template
from bot.domain.quiz.yaml_lines import LineList, LineMap
from bot.domain.results import Reference

COMPUTED_KEYS = {"id", "text", "params", "let", "where", "answer", "bounds", "digits",
                 "option", "mistakes", "explanation", "references", "schedule", "tolerance",
                 "takeaway", "topics"}
COMPUTED_REQUIRED = {"id", "text", "params", "answer", "mistakes", "explanation"}
MISTAKE_KEYS = {"name", "value", "text", "why_not"}
NAME_RE = re.compile(r"[a-zA-Z][a-zA-Z0-9_]{0,19}")
MISTAKE_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
MAX_VALUES = 10_000  # values one range parameter may take
MAX_MISTAKES = 9


class FileChecker(Protocol):
    """What a computed question's reader needs from the file's checker
    (`bot.domain.quiz.validate.Checker`)."""

    languages: tuple[str, ...]

    def error(self, line: int | None, path: str, message: str) -> None: ...
    def mapping(self, value: Any, line: int | None, path: str, keys: set[str],
                required: set[str]) -> LineMap | None: ...
    def text(self, parent: LineMap, key: str, path: str, *, max_len: int) -> Text | None: ...
    def references(self, q: LineMap, path: str) -> tuple[Reference, ...] | None: ...


class ComputedChecker:
    """Reads one computed question's mapping; problems go to the file's `FileChecker`."""

    def __init__(self, checker: FileChecker, q: LineMap, path: str) -> None:
        self.ck, self.q, self.path = checker, q, path
        self.ok = True
        self.declared: set[str] = set()  # parameter names, even those whose values are bad

    def error(self, line: int | None, where: str, message: str) -> None:
        self.ok = False
        self.ck.error(line, where, message)

    def line(self, key: str) -> int:
        return self.q.key_lines.get(key, self.q.line)

    def question(self, qid: Any) -> Question | None:
        """The computed question, or None when anything was wrong (all of it reported)."""
        params = self.params()
        known = {p.name for p in params} | self.declared  # no cascade from a bad range
        lets = self.lets(known)
        known |= {let.name for let in lets}
        where = self.where(known)
        answer_value, answer_text = self.answer(known)
        default_option = self.template_field("option", known | RESERVED, default="{value}")
        answer = Choice("answer", answer_value or parse("0"),
                        answer_text or default_option.templates, line=self.line("answer"))
        mistakes = self.mistakes(known, default_option)
        text = self.template_field("text", known, max_len=1500)
        explanation = self.template_field("explanation", known | {"answer"}, max_len=1500)
        bounds = self.bounds()
        digits = self.digits()
        tolerance = self.tolerance()
        schedule = self.schedule(known)
        references = self.ck.references(self.q, self.path)
        if not self.ok or references is None or not isinstance(qid, str) or answer_value is None:
            return None
        computed = Computed(tuple(params), tuple(lets), tuple(where), (answer, *mistakes),
                            text, explanation, bounds, self.line("bounds"), digits, schedule,
                            tolerance)
        text_src = sources(text)
        return Question(qid, text_src, options_of(computed), 0, sources(explanation),
                        references, line=self.q.line, computed=computed)

    # --- pieces ------------------------------------------------------------------------

    def params(self) -> list[Param]:
        items, line = self.q.get("params"), self.line("params")
        where = f"{self.path}.params"
        if not isinstance(items, dict) or not items:
            self.error(line, where, "must map each parameter name to its choices [4, 8] "
                       "or a range {min: 1, max: 64, step: 1}")
            return []
        assert isinstance(items, LineMap)
        out = []
        for name, spec in items.items():
            pline = items.key_lines.get(str(name), line)
            if self.name_ok(name, pline, f"{where}.{name}"):
                self.declared.add(str(name))
                values = self.values(spec, pline, f"{where}.{name}")
                if values:
                    out.append(Param(str(name), values, line=pline))
        return out

    def name_ok(self, name: Any, line: int, where: str) -> bool:
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            self.error(line, where, "must be a name of letters, digits and _ (starting with "
                       "a letter, at most 20)")
            return False
        if name in RESERVED or name in FUNCTIONS:
            self.error(line, where, f"{name!r} is reserved (value, answer and the function "
                       "names)")
            return False
        return True

    def values(self, spec: Any, line: int, where: str) -> tuple[Number, ...]:
        if isinstance(spec, list):
            if not spec or not all(_is_number(x) for x in spec):
                self.error(line, where, f"must list numbers, got {spec!r}")
                return ()
            return tuple(dict.fromkeys(spec))
        if isinstance(spec, dict) and {"min", "max"} <= set(spec) <= {"min", "max", "step"}:
            low, high, step = spec["min"], spec["max"], spec.get("step", 1)
            if not all(_is_number(x) for x in (low, high, step)) or step <= 0 or high < low:
                self.error(line, where, f"needs numbers min <= max and step > 0, got {dict(spec)}")
                return ()
            count = int((high - low) / step + 1e-9) + 1
            if count > MAX_VALUES:
                self.error(line, where, f"takes {count} values; at most {MAX_VALUES}")
                return ()
            whole = all(isinstance(x, int) for x in (low, high, step))
            return tuple(low + k * step if whole else round(low + k * step, 9)
                         for k in range(count))
        self.error(line, where, "must be a list of choices [4, 8] or a range "
                   f"{{min: 1, max: 64, step: 1}}, got {spec!r}")
        return ()

    def formula(self, value: Any, line: int, where: str, known: set[str]) -> Formula | None:
        try:
            f = parse(value)
        except FormulaError as exc:
            self.error(line, where, str(exc))
            return None
        missing = sorted(f.names - known)
        if missing:
            self.error(line, where, f"{f.source!r} uses {', '.join(missing)}, not defined "
                       f"here (known: {', '.join(sorted(known))})")
            return None
        return f

    def lets(self, known: set[str]) -> list[Let]:
        items = self.q.get("let", {})
        line, where = self.line("let"), f"{self.path}.let"
        if not isinstance(items, dict):
            self.error(line, where, "must map names to formulas")
            return []
        out, seen = [], set(known)
        for name, source in items.items():
            lline = getattr(items, "key_lines", {}).get(str(name), line)
            if not self.name_ok(name, lline, f"{where}.{name}"):
                continue
            if name in seen:
                self.error(lline, f"{where}.{name}", "is already defined")
                continue
            f = self.formula(source, lline, f"{where}.{name}", seen)
            seen.add(str(name))
            if f is not None:
                out.append(Let(str(name), f, line=lline))
        return out

    def where(self, known: set[str]) -> list[tuple[Formula, int]]:
        items = self.q.get("where", [])
        line = self.line("where")
        if not isinstance(items, list):
            self.error(line, f"{self.path}.where", "must be a list of conditions")
            return []
        lines = getattr(items, "item_lines", [line] * len(items))
        out = []
        for k, (item, iline) in enumerate(zip(items, lines, strict=True)):
            f = self.formula(item, iline, f"{self.path}.where[{k}]", known)
            if f is not None:
                out.append((f, iline))
        return out

    def answer(self, known: set[str]) -> tuple[Formula | None, tuple[tuple[str, Template], ...]]:
        value, line = self.q.get("answer"), self.line("answer")
        where = f"{self.path}.answer"
        if isinstance(value, dict):
            for key in sorted(set(value) - {"value", "text"}):
                self.error(line, f"{where}.{key}", "is not a known key (value, text)")
            text = (self.templates(value, "text", where, known | RESERVED, max_len=500)
                    if "text" in value and isinstance(value, LineMap) else ())
            return self.formula(value.get("value"), line, f"{where}.value", known), text
        return self.formula(value, line, where, known), ()

    def mistakes(self, known: set[str], default: Field) -> list[Choice]:
        items, line = self.q.get("mistakes"), self.line("mistakes")
        where = f"{self.path}.mistakes"
        if not isinstance(items, list) or not 1 <= len(items) <= MAX_MISTAKES:
            self.error(line, where, f"must list 1 to {MAX_MISTAKES} named mistakes")
            return []
        assert isinstance(items, LineList)
        out, names = [], {"answer"}
        for k, (item, iline) in enumerate(zip(items, items.item_lines, strict=True)):
            mpath = f"{where}[{k}]"
            m = self.ck.mapping(item, iline, mpath, MISTAKE_KEYS, {"name", "value", "why_not"})
            if m is None:
                self.ok = False
                continue
            name = m.get("name")
            if not isinstance(name, str) or not MISTAKE_RE.fullmatch(name) or name in names:
                self.error(m.key_lines.get("name", iline), f"{mpath}.name",
                           f"must be a new kebab-case name, got {name!r}")
                continue
            names.add(name)
            value = self.formula(m.get("value"), m.key_lines.get("value", iline),
                                 f"{mpath}.value", known)
            text = (self.templates(m, "text", mpath, known | RESERVED, max_len=500)
                    if "text" in m else default.templates)
            why = self.templates(m, "why_not", mpath, known | RESERVED, max_len=500)
            if value is not None and text and why:
                out.append(Choice(name, value, text, why, line=iline))
        return out

    def templates(self, parent: LineMap, key: str, path: str, known: set[str], *,
                  max_len: int) -> tuple[tuple[str, Template], ...]:
        return self.template_field(key, known, parent=parent, path=path,
                                   max_len=max_len).templates

    def template_field(self, key: str, known: set[str], *, parent: LineMap | None = None,
                       path: str | None = None, default: str | None = None,
                       max_len: int = 500) -> Field:
        parent = self.q if parent is None else parent
        path = self.path if path is None else path
        full = f"{path}.{key}"
        if key not in parent and default is not None:
            parent = LineMap({key: default})
            parent.line, parent.key_lines = self.q.line, {key: self.q.line}
        if key not in parent:
            return Field(full, (), ())
        if isinstance(parent[key], str):  # one template for every language (numbers only)
            line = parent.key_lines.get(key, parent.line)
            parent = LineMap({key: dict.fromkeys(self.ck.languages, parent[key])})
            parent.line, parent.key_lines = line, {key: line}
        text = self.ck.text(parent, key, path, max_len=max_len)
        if text is None:
            self.ok = False
            return Field(full, (), ())
        value, line = parent[key], parent.key_lines.get(key, parent.line)
        out, lines = [], []
        for lang, source in text.values:
            lline = int(getattr(value, "key_lines", {}).get(lang, line))
            try:
                t = compile_template(source)
            except FormulaError as exc:
                self.error(lline, f"{full}.{lang}", str(exc))
                continue
            missing = sorted(t.names - known)
            if missing:
                self.error(lline, f"{full}.{lang}", f"uses {', '.join(missing)}, not defined "
                           f"here (known: {', '.join(sorted(known))})")
                continue
            out.append((lang, t))
            lines.append((lang, lline))
        return Field(full, tuple(out), tuple(lines))

    def bounds(self) -> tuple[float, float] | None:
        value = self.q.get("bounds")
        if value is None:
            return None
        if (not isinstance(value, list) or len(value) != 2
                or not all(_is_number(x) for x in value) or value[0] > value[1]):
            self.error(self.line("bounds"), f"{self.path}.bounds",
                       f"must be [low, high] numbers, got {value!r}")
            return None
        return float(value[0]), float(value[1])

    def digits(self) -> int:
        value = self.q.get("digits", 3)
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 9:
            self.error(self.line("digits"), f"{self.path}.digits",
                       f"must be 1 to 9 significant digits, got {value!r}")
            return 3
        return value

    def tolerance(self) -> float:
        """How far a typed number may be from the answer, relative (0.02 = 2 %)."""
        value = self.q.get("tolerance", 0.02)
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not 0 < value <= 0.25):
            self.error(self.line("tolerance"), f"{self.path}.tolerance",
                       f"must be a relative tolerance above 0 and at most 0.25 (0.02 = 2 %), "
                       f"got {value!r}")
            return 0.02
        return float(value)

    def schedule(self, known: set[str]) -> tuple[str, Formula, Formula, Formula | None] | None:
        value, line = self.q.get("schedule"), self.line("schedule")
        where = f"{self.path}.schedule"
        if value is None:
            return None
        if (not isinstance(value, dict) or value.get("kind") not in KINDS
                or not {"p", "m"} <= set(value) or not set(value) <= {"kind", "p", "m", "v"}):
            self.error(line, where, f"must be {{kind: {'|'.join(KINDS)}, p: ..., m: ..., "
                       f"v: ...}} with formulas, got {value!r}")
            return None
        p = self.formula(value["p"], line, f"{where}.p", known)
        m = self.formula(value["m"], line, f"{where}.m", known)
        v = self.formula(value["v"], line, f"{where}.v", known) if "v" in value else None
        if p is None or m is None or ("v" in value and v is None):
            return None
        return str(value["kind"]), p, m, v


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)
