"""Validation of computed questions (`params:` in a question): every formula parsed and
every template name defined at load, each problem named with file:line.

A file from someone else cannot make loading or drawing slow: parameters, values, lets,
constraints and formula parts are bounded per question and per file (the limits below), and
every number read must be finite and within the formulas' integer size."""

from __future__ import annotations

import re
from typing import Any

from bot.domain.numeric import QUESTION_UNITS, known_unit, unit_of_option
from bot.domain.pipeline import KINDS
from bot.domain.quiz.computed import (
    RESERVED,
    Choice,
    Computed,
    Field,
    options_of,
    sources,
)
from bot.domain.quiz.computed_values import ValueChecks
from bot.domain.quiz.formula import (
    Formula,
    FormulaError,
    parse,
)
from bot.domain.quiz.model import Question
from bot.domain.quiz.template import Template, compile_template
from bot.domain.quiz.yaml_lines import LineList, LineMap

COMPUTED_KEYS = {"id", "text", "params", "let", "where", "answer", "bounds", "digits",
                 "option", "mistakes", "explanation", "references", "schedule", "tolerance",
                 "absolute_tolerance", "unit", "min_gap", "takeaway", "topics", "image"}
COMPUTED_REQUIRED = {"id", "text", "params", "answer", "mistakes", "explanation"}
MISTAKE_KEYS = {"name", "value", "text", "why_not"}
MISTAKE_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
MAX_MISTAKES = 9
MAX_QUESTION_NODES = 1_500  # formula parts (AST nodes) of one question, templates included
MAX_FILE_NODES = 8_000  # of one file: each is evaluated for every sampled draw
MAX_FILE_VALUES = 50_000  # parameter values held for one file


class ComputedChecker(ValueChecks):
    """Reads one computed question's mapping; problems go to the file's `FileChecker`
    (its parameters, formulas and numbers through `ValueChecks`)."""

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
        absolute = self.absolute()
        unit = self.unit(answer.text)
        min_gap = self.relative("min_gap", 0.05, "gap between any two options")
        schedule = self.schedule(known)
        references = self.ck.references(self.q, self.path)
        if not self.ok or references is None or not isinstance(qid, str) or answer_value is None:
            return None
        computed = Computed(tuple(params), tuple(lets), tuple(where), (answer, *mistakes),
                            text, explanation, bounds=bounds, digits=digits,
                            schedule=schedule, tolerance=tolerance, absolute=absolute,
                            unit=unit,
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
