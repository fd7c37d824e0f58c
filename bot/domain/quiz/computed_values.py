"""The numbers of a computed question (`params:`, `let:`, `where:`, `bounds:`, `digits:`,
`tolerance:`/`min_gap:`): each formula parsed against the names defined so far and every
number finite and bounded, each problem named with file:line. `ComputedChecker`
(`bot.domain.quiz.computed_check`) builds on these checks for the question's texts."""

from __future__ import annotations

import re
from typing import Any, Protocol

from bot.domain.quiz.computed import RESERVED, Bound, Let, Param
from bot.domain.quiz.formula import FUNCTIONS, Formula, FormulaError, Number, bounded, parse
from bot.domain.quiz.model import Text
from bot.domain.quiz.yaml_lines import LineMap
from bot.domain.results import Reference

NAME_RE = re.compile(r"[a-zA-Z][a-zA-Z0-9_]{0,19}")
MAX_VALUES = 10_000  # values one range parameter may take
MAX_PARAMS = 12  # parameters of one question (the shipped ones use at most 6)
MAX_LETS = 24  # derived values of one question
MAX_WHERE = 12  # constraints of one question


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


class ValueChecks:
    """One computed question's mapping `q` at `path`: its parameters and formulas."""

    def __init__(self, checker: FileChecker, q: LineMap, path: str) -> None:
        self.ck, self.q, self.path = checker, q, path
        self.ok = True
        self.declared: set[str] = set()  # parameter names, even those whose values are bad

    def error(self, line: int | None, where: str, message: str) -> None:
        self.ok = False
        self.ck.error(line, where, message)

    def line(self, key: str) -> int:
        return self.q.key_lines.get(key, self.q.line)

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

    def finite(self, numbers: list[Any], line: int, where: str) -> tuple[Number, ...]:
        """The numbers without repeats, or () with one error when one is infinite, NaN or
        an integer beyond the formulas' size."""
        for x in numbers:
            try:
                bounded(x)
            except FormulaError as exc:
                self.error(line, where, f"has {short(x)}, which {exc}; every number must "
                           "be finite")
                return ()
        return tuple(dict.fromkeys(numbers))

    def values(self, spec: Any, line: int, where: str) -> tuple[Number, ...]:
        if isinstance(spec, list):
            if not spec or not all(is_number(x) for x in spec):
                self.error(line, where, f"must list numbers, got {short(spec)}")
                return ()
            if len(spec) > MAX_VALUES:
                self.error(line, where, f"lists {len(spec)} values; at most {MAX_VALUES}")
                return ()
            return self.finite(spec, line, where)
        if isinstance(spec, dict) and {"min", "max"} <= set(spec) <= {"min", "max", "step"}:
            low, high, step = spec["min"], spec["max"], spec.get("step", 1)
            numbers = all(is_number(x) for x in (low, high, step))
            if numbers and not self.finite([low, high, step], line, where):
                return ()
            if not numbers or step <= 0 or high < low:
                self.error(line, where, "needs numbers min <= max and step > 0, got "
                           f"{short(dict(spec))}")
                return ()
            span = (high - low) / step  # inf for ±1e308 or a step of 1e-320
            if not span < MAX_VALUES:
                self.error(line, where, f"takes {count_of(span)} values; at most {MAX_VALUES}")
                return ()
            count = int(span + 1e-9) + 1
            whole = all(isinstance(x, int) for x in (low, high, step))
            return tuple(low + k * step if whole else round(low + k * step, 9)
                         for k in range(count))
        self.error(line, where, "must be a list of choices [4, 8] or a range "
                   f"{{min: 1, max: 64, step: 1}}, got {short(spec)}")
        return ()

    def params(self) -> list[Param]:
        items, line = self.q.get("params"), self.line("params")
        where = f"{self.path}.params"
        if not isinstance(items, dict):
            self.error(line, where, "must map each parameter name to its choices [4, 8] "
                       "or a range {min: 1, max: 64, step: 1} ({} for fixed numbers)")
            return []
        if not items:  # fixed numbers: a typed-number question imported from Moodle or GIFT
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
                           f"got {short(limits)}")
                continue
            numbers = [x for x in limits if is_number(x)]
            if numbers and not self.finite(numbers, bline, bwhere):
                continue
            low, high = (self.formula(x, bline, bwhere, known) for x in limits)
            if (low is not None and high is not None and not low.names and not high.names
                    and float(low({})) > float(high({}))):
                self.error(bline, bwhere, f"has low above high: {short(limits)}")
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

    def absolute(self) -> float | None:
        """`absolute_tolerance`: how far (in the answer's unit, 0 for exactly) a typed number
        may be from the answer; None when the question gives none (then `tolerance`)."""
        value = self.q.get("absolute_tolerance")
        if value is None:
            return None
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not 0 <= value < 1e15):
            self.error(self.line("absolute_tolerance"), f"{self.path}.absolute_tolerance",
                       f"must be a number, 0 or more (in the answer's unit), got {value!r}")
            return None
        if "tolerance" in self.q:
            self.error(self.line("tolerance"), f"{self.path}.tolerance",
                       "and absolute_tolerance both say how far a typed number may be; "
                       "keep one")
        return float(value)

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


def is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def count_of(span: float) -> str:
    return f"{int(span) + 1}" if span < 1e15 else "more than 10**15"


def short(value: Any, limit: int = 80) -> str:
    """A value for a one-line message: cut, and never an error of its own (a huge int)."""
    try:
        text = repr(value)
    except ValueError:
        text = "a number too long to show"
    return text if len(text) <= limit else text[:limit] + "..."
