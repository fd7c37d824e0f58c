"""Computed questions: numbers drawn for each attempt, the answer and its distractors worked
out with them.

A computed question declares parameters (choices or ranges), derived values (`let`),
constraints (`where`), the answer's formula and one formula per named mistake. A draw picks
the parameters from a seed, rejects it when a constraint fails, a formula fails, the answer
leaves its declared bounds or two options would read the same (after rounding), and tries
again, at most MAX_TRIES times. Every text is a template (`bot.domain.quiz.template`) filled
with the drawn values. The draw is a pure function of (seed, question id): resume, restart,
a double tap, a second process and every member of a round see the same numbers.
"""

from __future__ import annotations

import random
from dataclasses import replace

from bot.domain.pipeline import ScheduleSpec
from bot.domain.quiz.computed_spec import (
    Bound,
    Choice,
    Computed,
    DrawFailed,
    Field,
    Let,
    Param,
    Rejected,
)
from bot.domain.quiz.formula import Formula, FormulaError, Number
from bot.domain.quiz.model import Option, Question, Text
from bot.domain.quiz.template import Template

__all__ = ["Bound", "Choice", "Computed", "DrawFailed", "Field", "Let", "Param", "Rejected"]

MAX_TRIES = 50
CACHE_SIZE = 256  # drawn questions kept per computed question (~8 kB each; safe to drop)
RESERVED = frozenset({"value", "answer"})  # names the templates get besides the parameters


def seed_of(seed: int | None, fallback: int) -> int:
    """An attempt's seed: the stored one, else (a row from before seeds) its id."""
    return fallback if seed is None else seed


def draw_key(seed: int, question_id: str) -> str:
    """The string that seeds one question's draw within an attempt."""
    return f"{seed}:{question_id}"


def attempt(question: Question, key: str, tries: int = 0) -> Question | Rejected:
    """One try at drawing `question` (a computed one): the filled-in question, or why not."""
    c = question.computed
    assert c is not None
    rng = random.Random(f"{key}#{tries}")  # str seeds hash with SHA-512: same in every process
    env: dict[str, Number] = {p.name: p.draw(rng) for p in c.params}
    line = 0  # where the formula being evaluated stands, for the message
    try:
        for let in c.lets:
            line = let.line
            env[let.name] = _number(let.formula(env), let.formula)
        for check, line in c.where:
            if not check(env):
                return Rejected(f"the constraint {check.source!r} fails", line)
        values = []
        for choice in c.choices:
            line = choice.line
            values.append(_number(choice.value(env), choice.value))
    except FormulaError as exc:
        return Rejected(f"{exc} (with {drawn_text(env)})", line, fatal=True)
    env["answer"] = values[0]
    for bound in c.bounds:
        try:
            x, low, high = float(env[bound.name]), float(bound.low(env)), float(bound.high(env))
        except FormulaError as exc:
            return Rejected(f"{exc} (with {drawn_text(env)})", bound.line, fatal=True)
        if not low <= x <= high:
            what = "the answer" if bound.name == "answer" else bound.name
            return Rejected(f"{what} {x:g} leaves the bounds [{low:g}, {high:g}] "
                            f"(with {drawn_text(env)})", bound.line, fatal=True)
    try:
        return _filled(question, c, env, values)
    except _Coincide as exc:
        return Rejected(str(exc), exc.line)
    except _TemplateFailed as exc:
        return Rejected(str(exc), exc.line, fatal=True)


def draw(question: Question, seed: int) -> Question:
    """`question` with this attempt's numbers (a plain question is returned as it is).

    Bounded tries; when none succeeds (validate reports such a question) the last try's
    reason is raised as DrawFailed.
    """
    c = question.computed
    if c is None:
        return question
    ckey = (seed, question.id)
    with c._lock:
        hit: Question | None = c._cache.get(ckey)
        if hit is not None:
            c._cache.move_to_end(ckey)
            return hit
    key, last = draw_key(seed, question.id), Rejected("no attempt", question.line)
    for tries in range(MAX_TRIES):
        got = attempt(question, key, tries)
        if not isinstance(got, Rejected):
            with c._lock:
                c._cache[ckey] = got
                while len(c._cache) > CACHE_SIZE:
                    c._cache.popitem(last=False)
            return got
        last = got
    raise DrawFailed(last)


def drawn_values(question: Question, seed: int) -> tuple[dict[str, Number], list[Number]]:
    """The numbers behind one draw (what `draw` shows for this seed): the parameters and
    `let` values, and each option's value, the answer first then the mistakes in file order.
    DrawFailed as `draw`."""
    c = question.computed
    assert c is not None
    env: dict[str, Number] = dict(draw(question, seed).drawn)
    for let in c.lets:
        env[let.name] = _number(let.formula(env), let.formula)
    return env, [_number(choice.value(env), choice.value) for choice in c.choices]


def value_text(question: Question, seed: int, value: Number, lang: str) -> str | None:
    """`value` written as this draw's options write theirs in `lang`, through the answer's
    option template ("60.0 ms", "p = 32"); None when the template cannot show it."""
    c = question.computed
    assert c is not None
    texts = dict(c.choices[0].text)
    template = texts.get(lang) or next(iter(texts.values()), None)
    if template is None:
        return None
    env, _values = drawn_values(question, seed)
    try:
        return template.fill({**env, "value": value}, digits=c.digits)
    except FormulaError:
        return None


def shown_text(question: Question, lang: str, seed: int | None) -> str:
    """A question's text for a list (/stats): drawn with `seed`, or with seed 0 (an
    example) when the learner has no finished attempt; DrawFailed shows the template."""
    if question.computed is None:
        return question.text.get(lang)
    try:
        return draw(question, 0 if seed is None else seed).text.get(lang)
    except DrawFailed:
        return question.text.get(lang)


def named_option(question: Question, index: int, lang: str) -> str:
    """An option as a reader names it in a list of results: its text; for a computed
    question (numbers differ per learner) the mistake it stands for in words ("why not",
    else its text) with the numbers of the example (seed 0) a list shows for the question."""
    if question.computed is None:
        return question.options[index].text.get(lang)
    try:
        option = draw(question, 0).options[index]
    except DrawFailed:
        return question.options[index].text.get(lang)
    return (option.why_not or option.text).get(lang)


def drawn_text(env: dict[str, Number] | tuple[tuple[str, Number], ...]) -> str:
    """The drawn values as 'p=8, m=24' (for messages and exports)."""
    items = env.items() if isinstance(env, dict) else env
    return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in items if k not in RESERVED)


class _Coincide(Exception):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


class _TemplateFailed(Exception):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def _filled(question: Question, c: Computed, env: dict[str, Number],
            values: list[Number]) -> Question:
    langs = [lang for lang, _ in c.text.templates]
    texts: list[dict[str, str]] = []
    seen_values: dict[str, int] = {}
    for k, (choice, value) in enumerate(zip(c.choices, values, strict=True)):
        local = {**env, "value": value}
        texts.append({lang: _fill(t, local, c, choice.line, f"option {choice.name}")
                      for lang, t in choice.text})
        rounded = f"{value:.9g}"
        if rounded in seen_values:
            other = c.choices[seen_values[rounded]]
            raise _Coincide(f"options {other.name!r} and {choice.name!r} have the same value "
                            f"{rounded} (with {drawn_text(env)})", choice.line)
        seen_values[rounded] = k
    for lang in langs:
        shown: dict[str, int] = {}
        for k, t in enumerate(texts):
            if t[lang] in shown:
                other = c.choices[shown[t[lang]]]
                raise _Coincide(f"options {other.name!r} and {c.choices[k].name!r} both read "
                                f"{t[lang]!r} ({lang}, with {drawn_text(env)})",
                                c.choices[k].line)
            shown[t[lang]] = k
    options: list[Option] = []
    for k, (choice, value) in enumerate(zip(c.choices, values, strict=True)):
        local = {**env, "value": value}
        why = (Text(tuple((lang, _fill(t, local, c, choice.line, f"why_not of {choice.name}"))
                          for lang, t in choice.why_not)) if choice.why_not else None)
        options.append(Option(Text(tuple(texts[k].items())), why, line=choice.line))
    text = _field(c.text, env, c)
    explanation = _field(c.explanation, env, c)
    return replace(question, text=text, options=tuple(options), correct=0,
                   explanation=explanation, schedule=_schedule(c, env), computed=None,
                   drawn=tuple((p.name, env[p.name]) for p in c.params))


def _field(f: Field, env: dict[str, Number], c: Computed) -> Text:
    lines = dict(f.lines)
    what = f.path.split(".", 1)[-1]  # "explanation": the question is named by the caller
    return Text(tuple((lang, _fill(t, env, c, lines.get(lang, 0), f"{what}.{lang}"))
                      for lang, t in f.templates))


def _fill(t: Template, env: dict[str, Number], c: Computed, line: int, what: str) -> str:
    try:
        return t.fill(env, digits=c.digits)
    except FormulaError as exc:
        raise _TemplateFailed(f"{what}: {exc} (with {drawn_text(env)})", line) from None


def _schedule(c: Computed, env: dict[str, Number]) -> ScheduleSpec | None:
    """The schedule to draw for these numbers; none when they are beyond the simulator's.
    A formula that fails (infinity, a division by zero) fails the draw, as others do."""
    if c.schedule is None:
        return None
    kind, p, m, v = c.schedule
    try:
        counts = int(p(env)), int(m(env)), int(v(env)) if v else 1
    except FormulaError as exc:
        raise _TemplateFailed(f"schedule: {exc} (with {drawn_text(env)})",
                              c.schedule_line) from None
    try:
        return ScheduleSpec(kind, *counts)
    except ValueError:
        return None


def _number(value: object, formula: Formula) -> Number:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormulaError(f"{formula.source!r} gives {value!r}, not a number")
    return value


def options_of(c: Computed) -> tuple[Option, ...]:
    """The undrawn options (their template sources), for code that only counts options."""
    return tuple(Option(Text(tuple((lang, t.source) for lang, t in ch.text)),
                        Text(tuple((lang, t.source) for lang, t in ch.why_not))
                        if ch.why_not else None, line=ch.line)
                 for ch in c.choices)


def sources(f: Field) -> Text:
    """A field's template sources as a Text (what an undrawn question shows)."""
    return Text(tuple((lang, t.source) for lang, t in f.templates))
