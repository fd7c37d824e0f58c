"""Typed-number questions from Moodle (`<question type="numerical">`) and GIFT (`{#...}`) as
our computed questions with fixed numbers (`params: {}`): the answer typed in private chats
and the terminal, within the source's absolute tolerance (`absolute_tolerance`), and buttons
wherever typing is not taken (rounds, groups).

Moodle grades a typed number against each answer within that answer's tolerance and gives
that answer's credit. Here only an answer worth 100% is right; every other one (0% or partial
credit) becomes a named mistake whose feedback is its why-not, and the import says so. A
question with no wrong answers gets three buttons of our own beside the answer (the answer
halved or doubled, a tenth or ten times, a fifth or five times; or steps outside the
tolerance when the answer is 0 or the tolerance wide), above or below it as each attempt
draws, and the import says that too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from bot.domain.numeric import known_unit
from bot.domain.quiz.formats.draft import Draft, DraftQuestion

MAX_MISTAKES = 9  # as computed_check.MAX_MISTAKES
DEFAULT_GAP = 0.05  # as computed_check's default min_gap
OWN = "\0own"  # stands for OWN_WHY_NOT until the quiz's language is known
# The why-not of a button of our own, in the quiz's language (content written into its file,
# as draft.TRUE_FALSE); a language without one here gets English.
OWN_WHY_NOT = {
    "en": "{value} is not it: the answer is {answer}.",
    "ur": "{value} درست نہیں: جواب {answer} ہے۔",
}


@dataclass(slots=True)
class NumberAnswer:
    """One answer of a typed-number question as the source gives it."""

    value: str  # as written; "*" is Moodle's "any other answer"
    tolerance: str  # absolute, as written ("" for none)
    fraction: float  # percent: 100 is right
    feedback: str = ""


def number(text: str) -> float | None:
    """A number as Moodle and GIFT write one ("3.5", "-2", "1e-3", "3,5"), else None."""
    try:
        value = float(text.strip().replace(",", "."))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def convert(q: DraftQuestion, answers: list[NumberAnswer], draft: Draft, kind: str,
            unit: str = "") -> None:
    """Fill `q.computed` (our YAML) from a typed-number question's answers and add it to the
    draft, or skip it saying why; what is not kept (partial credit, "any other answer"'s
    feedback, a unit our typed numbers cannot read) is a warning."""
    right: list[tuple[float, float, NumberAnswer]] = []
    wrong: list[tuple[float, NumberAnswer]] = []
    for a in answers:
        if a.value.strip() == "*":
            if a.feedback:
                draft.warnings.append(f"{q.where}: the feedback for any other answer ('*') is "
                                      "not kept; put it in the explanation")
            continue
        value, tolerance = number(a.value), number(a.tolerance or "0")
        if value is None or tolerance is None:
            draft.skip(q.where, kind, f"its answer {a.value.strip()!r} is not a number",
                      name=q.name or q.text)
            return
        if abs(a.fraction - 100) < 1e-6:
            right.append((value, abs(tolerance), a))
        else:
            wrong.append((value, a))
    if not right:
        draft.skip(q.where, kind, "no answer is worth 100%", name=q.name or q.text)
        return
    if len({v for v, _t, _a in right}) > 1:
        shown = ", ".join(f"{v:g}" for v, _t, _a in right)
        draft.skip(q.where, kind, f"it has {len(right)} right answers ({shown}); a typed "
                   "number here has one", name=q.name or q.text)
        return
    answer, tolerance, key = right[0]
    partial = [f"{a.fraction:g}%" for _v, a in wrong if a.fraction > 0]
    if partial:
        draft.warnings.append(f"{q.where}: partial credit ({', '.join(partial)}) is not kept: "
                              "only the 100% answer counts as right; the others are wrong "
                              "answers with their feedback")
    mistakes = _given(wrong, answer, tolerance, q, draft)
    params: dict[str, Any] = {}
    if not mistakes:
        params, mistakes = {"up": [0, 1, 2, 3]}, _own(answer, tolerance)
        draft.warnings.append(f"{q.where}: no wrong answers to offer as buttons (where typing "
                              "is not taken, as in rounds); three of our own are shown beside "
                              "the answer: add wrong answers (0%) with feedback to choose them")
    explanation = "\n\n".join(x for x in dict.fromkeys((q.general, key.feedback)) if x)
    if not explanation:
        draft.warnings.append(f"{q.where}: no general feedback; the explanation is the right "
                              "answer (write a better one)")
    shown_unit = unit if unit and known_unit(unit) else ""  # else shown, typed or not
    option = f"{{value}} {unit}" if unit and unit != "%" else "{value}%" if unit else "{value}"
    values = [answer, *(float(m["value"]) for m in mistakes if not params)]
    gaps = [abs(a - b) / max(abs(a), abs(b)) for k, a in enumerate(values)
            for b in values[k + 1:] if a != b]
    q.computed = {
        "text": _template(q.text),
        "params": params,
        "answer": _literal(answer),
        "absolute_tolerance": _literal(tolerance),
        "digits": _digits([answer, *(_number_of(m["value"]) for m in mistakes)]),
        "option": option,
        "mistakes": mistakes,
        "explanation": _template(explanation) or f"{option.replace('value', 'answer')}",
    }
    if gaps and min(gaps) < DEFAULT_GAP:  # the teacher's own wrong answers, kept as given
        q.computed["min_gap"] = max(float(f"{min(gaps) * 0.9:.2g}"), 1e-6)
    if shown_unit:
        q.computed["unit"] = shown_unit if shown_unit != "%" else "percent"
    draft.questions.append(q)


def _given(wrong: list[tuple[float, NumberAnswer]], answer: float, tolerance: float,
           q: DraftQuestion, draft: Draft) -> list[dict[str, Any]]:
    """The source's wrong answers as named mistakes: one per value, none a learner typing it
    would be told is right (within the answer's tolerance), at most MAX_MISTAKES."""
    out: list[dict[str, Any]] = []
    seen: set[float] = set()
    for value, a in wrong:
        if value in seen:
            continue
        if abs(value - answer) <= tolerance:
            draft.warnings.append(f"{q.where}: the answer {a.value.strip()} ({a.fraction:g}%) "
                                  f"is within the right answer's tolerance (±{tolerance:g}) "
                                  "and is left out: typing it counts as right")
            continue
        if len(out) == MAX_MISTAKES:
            draft.warnings.append(f"{q.where}: more than {MAX_MISTAKES} wrong answers; the "
                                  "rest are left out")
            break
        seen.add(value)
        out.append({"name": f"wrong-{len(out) + 1}", "value": _literal(value),
                    "why_not": _template(a.feedback) or "{value} ≠ {answer}"})
    return out


def in_language(computed: dict[str, Any], lang: str) -> dict[str, Any]:
    """A converted question with our own buttons' why-not in the quiz's language (known only
    once the whole file is read)."""
    why = OWN_WHY_NOT.get(lang, OWN_WHY_NOT["en"])
    mistakes = [{**m, "why_not": why} if m.get("why_not") == OWN else m
                for m in computed.get("mistakes", [])]
    return {**computed, "mistakes": mistakes}


def _own(answer: float, tolerance: float) -> list[dict[str, Any]]:
    """Three wrong buttons of our own: `up` (drawn per attempt, 0-3) of them above the
    answer, so the answer's place among the buttons tells nothing."""
    why = OWN
    a = _literal(answer)
    if answer != 0 and tolerance < abs(answer) / 4:  # a slip of scale: x2, x10, x5
        pairs = [(f"{a} * {f}", f"{a} / {f}") for f in (2, 10, 5)]
    else:  # steps beyond the tolerance
        step = _nice(max(2.5 * tolerance, abs(answer) / 2, 1e-9) if tolerance or answer
                     else 1.0)
        pairs = [(f"{a} + {_literal(k * step)}", f"{a} - {_literal(k * step)}")
                 for k in (1, 2, 3)]
    return [{"name": f"wrong-{k}", "value": f"{above} if up >= {k} else {below}",
             "why_not": why} for k, (above, below) in enumerate(pairs, 1)]


def _nice(x: float) -> float:
    """The smallest of 1, 2, 5 times a power of ten at or above `x`."""
    power = 10.0 ** math.floor(math.log10(x))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= x * (1 - 1e-12))


def _literal(x: float) -> int | float:
    return int(x) if float(x).is_integer() and abs(x) < 1e15 else x


def _number_of(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def _digits(values: list[float]) -> int:
    """Significant digits that show every given value as written (at least 3, at most 9)."""
    most = 3
    for v in values:
        if v and not float(v).is_integer():
            digits = len(f"{abs(v):.9g}".replace(".", "").lstrip("0").split("e")[0])
            most = max(most, digits)
    return min(most, 9)


def _template(text: str) -> str:
    """A teacher's text as one of our templates: its braces are literal."""
    return text.replace("{", "{{").replace("}", "}}")
