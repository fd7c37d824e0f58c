"""Text templates of computed questions: ``"p = {p}, bubble {answer:.1%}"``.

A placeholder is ``{formula}`` or ``{formula:spec}``; ``{{`` and ``}}`` are literal braces.
Specs: ``d`` (a whole number), ``.Nf`` (N decimals), ``.N%`` (a percentage with N decimals),
``.Ng`` (N significant digits). ``{if formula: words|other words}`` shows the first words
when the formula holds and the others when not (either may be empty), so a template says
"far over" only when the drawn numbers are. Without a spec a whole number shows whole and any other
number with `digits` significant digits. Thousands are grouped with a comma from five digits
on ("12,288", but "4096" and a year "1822": `bot.domain.numeric.grouped`).
Numbers use Latin digits in every language: the renderer isolates each left-to-right run
inside right-to-left text (`bot.present.i18n.isolate_latin`), so a filled-in formula such
as "7/31 ≈ 22.6%" reads whole in Urdu, exactly as hand-written numbers do.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from bot.domain.numeric import grouped
from bot.domain.quiz.formula import Formula, FormulaError, Number, parse

_SPEC = re.compile(r"d|\.(\d)(f|%|g)")
DEFAULT_DIGITS = 3


@dataclass(frozen=True, slots=True)
class Slot:
    formula: Formula
    spec: str
    # `{if cond: then|else}`: the words shown when `formula` holds, and when not.
    branches: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Template:
    """Literal pieces and placeholders, alternating: pieces[0] slot[0] pieces[1] ..."""

    source: str
    pieces: tuple[str, ...]
    slots: tuple[Slot, ...]

    @property
    def names(self) -> frozenset[str]:
        """Every name the placeholders read."""
        return frozenset().union(*(s.formula.names for s in self.slots))

    def fill(self, env: Mapping[str, Number], *, digits: int = DEFAULT_DIGITS) -> str:
        """The text with every placeholder's value formatted; FormulaError on failure."""
        out = [self.pieces[0]]
        for slot, piece in zip(self.slots, self.pieces[1:], strict=True):
            value = slot.formula(env)
            if slot.branches is not None:
                out.append(slot.branches[0] if value else slot.branches[1])
            else:
                out.append(format_number(value, slot.spec, digits=digits))
            out.append(piece)
        return "".join(out)


def compile_template(source: str) -> Template:
    """Split a template into pieces and checked formulas; FormulaError names the problem."""
    pieces: list[str] = []
    slots: list[Slot] = []
    literal: list[str] = []
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        if ch == "{" and source.startswith("{{", i):
            literal.append("{")
            i += 2
        elif ch == "}" and source.startswith("}}", i):
            literal.append("}")
            i += 2
        elif ch == "}":
            raise FormulaError(f"has a '}}' without its '{{' at character {i + 1} "
                               "(write }} for a literal brace)")
        elif ch == "{":
            end = source.find("}", i + 1)
            if end < 0:
                raise FormulaError(f"has a '{{' without its '}}' at character {i + 1}")
            body = source[i + 1:end]
            pieces.append("".join(literal))
            literal = []
            slots.append(_condition(body) if body.startswith("if ") else _placeholder(body))
            i = end + 1
        else:
            literal.append(ch)
            i += 1
    pieces.append("".join(literal))
    return Template(source, tuple(pieces), tuple(slots))


def _placeholder(body: str) -> Slot:
    """`formula` or `formula:spec`."""
    expr, _, spec = body.rpartition(":") if ":" in body else (body, "", "")
    spec = spec.strip()
    if spec and not _SPEC.fullmatch(spec):
        raise FormulaError(f"{{{body}}} has the format {spec!r}; use d, .Nf, .N% or .Ng")
    return Slot(parse(expr), spec)


def _condition(body: str) -> Slot:
    """`if formula: words|other words`: the words that agree with the drawn numbers."""
    cond, colon, words = body[3:].partition(":")
    then, bar, other = words.partition("|")
    if not colon or not bar or "|" in other:
        raise FormulaError(f"{{{body}}} must read {{if condition: words|other words}} "
                           "(one ':' and one '|')")
    return Slot(parse(cond), "", (then.strip(), other.strip()))


def format_number(value: Number | bool, spec: str = "", *, digits: int = DEFAULT_DIGITS) -> str:
    """One value as shown: see the module docstring for the specs."""
    x = float(value)
    if not math.isfinite(x):
        raise FormulaError(f"gives {x}, which cannot be shown")
    if spec == "d":
        return grouped(str(round(x)))
    match = _SPEC.fullmatch(spec) if spec else None
    if match:
        n, kind = int(match.group(1)), match.group(2)
        if kind == "f":
            return _fixed(x, n)
        if kind == "%":
            return _fixed(100 * x, n) + "%"
        return _significant(x, n)
    if x.is_integer() and abs(x) < 1e15:
        return grouped(str(int(x)))
    return _significant(x, digits)


def _fixed(x: float, decimals: int) -> str:
    text = f"{x:.{decimals}f}"
    if text.startswith("-") and not any(c in "123456789" for c in text):
        text = text[1:]  # "-0.0" reads as 0.0
    return grouped(text)


def _significant(x: float, digits: int) -> str:
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    text = _fixed(x, decimals)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text
