"""Validation of computed questions (`params:` in a question): every formula parsed and
every template name defined at load, each problem named with file:line.

A file from someone else cannot make loading or drawing slow: parameters, values, lets,
constraints and formula parts are bounded per question and per file (the limits below), and
every number read must be finite and within the formulas' integer size."""

from __future__ import annotations

import re
from typing import Any, Protocol

from bot.domain.numeric import QUESTION_UNITS, known_unit, unit_of_option
from bot.domain.pipeline import KINDS
from bot.domain.quiz.computed import (
    RESERVED,
    Bound,
    Choice,
    Computed,
    Field,
    Let,
    Param,
    options_of,
    sources,
)
from bot.domain.quiz.formula import (
    FUNCTIONS,
    Formula,
    FormulaError,
    Number,
    bounded,
    parse,
)
from bot.domain.quiz.model import Question, Text
from bot.domain.quiz.template import Template, compile_template
from bot.domain.quiz.yaml_lines import LineList, LineMap
from bot.domain.results import Reference

COMPUTED_KEYS = {"id", "text", "params", "let", "where", "answer", "bounds", "digits",
                 "option", "mistakes", "explanation", "references", "schedule", "tolerance",
                 "unit", "min_gap", "takeaway", "topics"}
COMPUTED_REQUIRED = {"id", "text", "params", "answer", "mistakes", "explanation"}
MISTAKE_KEYS = {"name", "value", "text", "why_not"}
NAME_RE = re.compile(r"[a-zA-Z][a-zA-Z0-9_]{0,19}")
MISTAKE_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
MAX_VALUES = 10_000  # values one range parameter may take
MAX_MISTAKES = 9
MAX_PARAMS = 12  # parameters of one question (the shipped ones use at most 6)
MAX_LETS = 24  # derived values of one question
MAX_WHERE = 12  # constraints of one question
MAX_QUESTION_NODES = 1_500  # formula parts (AST nodes) of one question, templates included
MAX_FILE_NODES = 8_000  # of one file: each is evaluated for every sampled draw
MAX_FILE_VALUES = 50_000  # parameter values held for one file


class FileChecker(Protocol):
    """What a computed question's reader needs from the file's checker
    (`bot.domain.quiz.validate.Checker`)."""

    languages: tuple[str, ...]
    nodes: int  # formula parts of the file's computed questions so far
    values: int  # and their parameters' values

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
        known |= {let.name for let in lets} | self.declared
        where = self.where(known)
        answer_value, answer_text = self.answer(known)
        default_option = self.template_field("option", known | RESERVED, default="{value}")
        answer = Choice("answer", answer_value or parse("0"),
                        answer_text or default_option.templates, line=self.line("answer"))
        mistakes = self.mistakes(known, default_option)
        text = self.template_field("text", known, max_len=1500)
        explanation = self.template_field("explanation", known | {"answer"}, max_len=1500)
        bounds = self.bounds(known | {"answer"})
        digits = self.digits()
        tolerance = self.relative("tolerance", 0.02, "tolerance")
        unit = self.unit(answer.text)
        min_gap = self.relative("min_gap", 0.05, "gap between any two options")
        schedule = self.schedule(known)
        references = self.ck.references(self.q, self.path)
        if not self.ok or references is None or not isinstance(qid, str) or answer_value is None:
            return None
        computed = Computed(tuple(params), tuple(lets), tuple(where), (answer, *mistakes),
                            text, explanation, bounds=bounds, digits=digits,
                            schedule=schedule, tolerance=tolerance, unit=unit,
                            schedule_line=self.line("schedule"), min_gap=min_gap)
        if not self.cost_ok(computed):
            return None
        text_src = sources(text)
        return Question(qid, text_src, options_of(computed), 0, sources(explanation),
                        references, line=self.q.line, computed=computed)

    def cost_ok(self, c: Computed) -> bool:
        """Within MAX_QUESTION_NODES, and the file within MAX_FILE_NODES (one error each)."""
        size = cost_of(c)
        if size > MAX_QUESTION_NODES:
            self.error(self.q.line, self.path, f"has {size} formula parts (in lets, where, "
                       f"answer, mistakes and templates); at most {MAX_QUESTION_NODES}")
            return False
        values = sum(len(p.choices) for p in c.params)
        nodes, self.ck.nodes = self.ck.nodes, self.ck.nodes + size
        held, self.ck.values = self.ck.values, self.ck.values + values
        for what, was, now, most in (("formula parts", nodes, self.ck.nodes, MAX_FILE_NODES),
                                     ("parameter values", held, self.ck.values,
                                      MAX_FILE_VALUES)):
            if now > most:
                if was <= most:  # said once, at the question that crossed the line
                    self.error(self.q.line, self.path, f"brings the file's {what} to {now}; "
                               f"at most {most} in one file (split it)")
                return False
        return True

    # --- pieces ------------------------------------------------------------------------

    def params(self) -> list[Param]:
        items, line = self.q.get("params"), self.line("params")
        where = f"{self.path}.params"
        if not isinstance(items, dict) or not items:
            self.error(line, where, "must map each parameter name to its choices [4, 8] "
                       "or a range {min: 1, max: 64, step: 1}")
            return []
        assert isinstance(items, LineMap)
        if len(items) > MAX_PARAMS:
            self.error(line, where, f"declares {len(items)} parameters; at most {MAX_PARAMS}")
            self.declared.update(map(str, items))  # no cascade of "not defined"
            return []
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
                self.error(line, where, f"must list numbers, got {_short(spec)}")
                return ()
            if len(spec) > MAX_VALUES:
                self.error(line, where, f"lists {len(spec)} values; at most {MAX_VALUES}")
                return ()
            return self.finite(spec, line, where)
        if isinstance(spec, dict) and {"min", "max"} <= set(spec) <= {"min", "max", "step"}:
            low, high, step = spec["min"], spec["max"], spec.get("step", 1)
            numbers = all(_is_number(x) for x in (low, high, step))
            if numbers and not self.finite([low, high, step], line, where):
                return ()
            if not numbers or step <= 0 or high < low:
                self.error(line, where, "needs numbers min <= max and step > 0, got "
                           f"{_short(dict(spec))}")
                return ()
            span = (high - low) / step  # inf for ±1e308 or a step of 1e-320
            if not span < MAX_VALUES:
                self.error(line, where, f"takes {_count(span)} values; at most {MAX_VALUES}")
                return ()
            count = int(span + 1e-9) + 1
            whole = all(isinstance(x, int) for x in (low, high, step))
            return tuple(low + k * step if whole else round(low + k * step, 9)
                         for k in range(count))
        self.error(line, where, "must be a list of choices [4, 8] or a range "
                   f"{{min: 1, max: 64, step: 1}}, got {_short(spec)}")
        return ()

    def finite(self, numbers: list[Any], line: int, where: str) -> tuple[Number, ...]:
        """The numbers without repeats, or () with one error when one is infinite, NaN or
        an integer beyond the formulas' size."""
        for x in numbers:
            try:
                bounded(x)
            except FormulaError as exc:
                self.error(line, where, f"has {_short(x)}, which {exc}; every number must "
                           "be finite")
                return ()
        return tuple(dict.fromkeys(numbers))

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
        if len(items) > MAX_LETS:
            self.error(line, where, f"defines {len(items)} values; at most {MAX_LETS}")
            self.declared.update(map(str, items))
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
        if len(items) > MAX_WHERE:
            self.error(line, f"{self.path}.where",
                       f"lists {len(items)} conditions; at most {MAX_WHERE}")
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

    def bounds(self, known: set[str]) -> tuple[Bound, ...]:
        """`bounds: [low, high]` (the answer's) or `{name: [low, high], ...}` for any
        parameter, `let` or the answer, each limit a number or a formula."""
        value, line = self.q.get("bounds"), self.line("bounds")
        where = f"{self.path}.bounds"
        if value is None:
            return ()
        items = value if isinstance(value, dict) else {"answer": value}
        out = []
        for name, limits in items.items():
            bline = int(getattr(items, "key_lines", {}).get(str(name), line))
            bwhere = f"{where}.{name}" if isinstance(value, dict) else where
            if name not in known:
                self.error(bline, bwhere, f"names {name!r}, not a parameter, a `let` or "
                           f"the answer (known: {', '.join(sorted(known))})")
                continue
            if not isinstance(limits, list) or len(limits) != 2:
                self.error(bline, bwhere, f"must be [low, high] (numbers or formulas), "
                           f"got {_short(limits)}")
                continue
            numbers = [x for x in limits if _is_number(x)]
            if numbers and not self.finite(numbers, bline, bwhere):
                continue
            low, high = (self.formula(x, bline, bwhere, known) for x in limits)
            if (low is not None and high is not None and not low.names and not high.names
                    and float(low({})) > float(high({}))):
                self.error(bline, bwhere, f"has low above high: {_short(limits)}")
            elif low is not None and high is not None:
                out.append(Bound(str(name), low, high, line=bline))
        return tuple(out)

    def digits(self) -> int:
        value = self.q.get("digits", 3)
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 9:
            self.error(self.line("digits"), f"{self.path}.digits",
                       f"must be 1 to 9 significant digits, got {value!r}")
            return 3
        return value

    def relative(self, key: str, default: float, what: str) -> float:
        """A relative distance (0.02 = 2 %) above 0 and at most 0.25: `tolerance` (how far
        a typed number may be from the answer) or `min_gap` (between any two options)."""
        value = self.q.get(key, default)
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not 0 < value <= 0.25):
            self.error(self.line(key), f"{self.path}.{key}",
                       f"must be a relative {what} above 0 and at most 0.25 (0.02 = 2 %), "
                       f"got {value!r}")
            return default
        return float(value)

    def unit(self, shown: tuple[tuple[str, Template], ...]) -> str:
        """The unit a typed answer is read in (`bot.domain.numeric`): `unit:`, else the one
        the answer's option template shows ("{value} GB": GB; "{value:.1%}": %)."""
        value = self.q.get("unit")
        if value is None:
            return unit_of_option(shown[0][1].source) if shown else ""
        if not isinstance(value, str) or not known_unit(value):
            self.error(self.line("unit"), f"{self.path}.unit",
                       f"must be one of {', '.join(repr(u) for u in QUESTION_UNITS)}, "
                       f"got {value!r}")
            return ""
        return value

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


def cost_of(c: Computed) -> int:
    """Formula parts evaluated by one try at drawing `c` (lets, where, values, templates)."""
    formulas = [let.formula for let in c.lets] + [f for f, _ in c.where]
    formulas += [choice.value for choice in c.choices]
    templates = [t for choice in c.choices for _, t in (*choice.text, *choice.why_not)]
    templates += [t for _, t in (*c.text.templates, *c.explanation.templates)]
    formulas += [slot.formula for t in templates for slot in t.slots]
    if c.schedule is not None:
        formulas += [f for f in c.schedule[1:] if f is not None]
    formulas += [f for b in c.bounds for f in (b.low, b.high)]
    return sum(f.size for f in formulas)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _count(span: float) -> str:
    return f"{int(span) + 1}" if span < 1e15 else "more than 10**15"


def _short(value: Any, limit: int = 80) -> str:
    """A value for a one-line message: cut, and never an error of its own (a huge int)."""
    try:
        text = repr(value)
    except ValueError:
        text = "a number too long to show"
    return text if len(text) <= limit else text[:limit] + "..."
