"""Moodle's calculated questions <-> our computed questions (content/README.md, "Computed
questions").

Moodle (https://docs.moodle.org/en/Calculated_question_type, .../Calculated_multichoice_
question_type) writes a wildcard as `{a}`, a formula as `{a} * pow({b}, 2)` and, in a
calculatedmulti text or answer, an inline result as `{={a}*{b}}`; its datasets give each
wildcard a range (minimum, maximum, decimals) and usually the drawn items. Here a formula
is rewritten through Python's `ast` (`pow(x, y)` <-> `x ** y`, `pi()` <-> its value,
`fmod` <-> `%`, `log(x)/log(2)` <-> `log2(x)`) and must then pass our safe formula
language (`bot.domain.quiz.formula.parse`); anything else is a per-question message.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.domain.quiz.computed import DrawFailed, draw
from bot.domain.quiz.computed_values import MAX_VALUES
from bot.domain.quiz.formats.draft import Draft, DraftQuestion, key_index
from bot.domain.quiz.formula import FormulaError, Number, parse
from bot.domain.quiz.model import Question
from bot.domain.quiz.template import Template

if TYPE_CHECKING:
    from bot.domain.quiz.formats.moodle_xml import Node

DATASET_ITEMS = 20  # drawn sets written for Moodle (it takes up to 100)
_WILDCARD = re.compile(r"\{([A-Za-z_]\w*)\}")
_INLINE = re.compile(r"\{=((?:[^{}]|\{[A-Za-z_]\w*\})*)\}")


class Unmapped(ValueError):
    """A formula or template that has no counterpart on the other side (one line)."""


# --- Moodle -> ours --------------------------------------------------------------------


class _FromMoodle(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        name = node.func.id if isinstance(node.func, ast.Name) else ""
        if name == "pi" and not node.args:
            return ast.Constant(math.pi)
        if name == "pow" and len(node.args) == 2:
            return ast.BinOp(node.args[0], ast.Pow(), node.args[1])
        if name == "fmod" and len(node.args) == 2:
            return ast.BinOp(node.args[0], ast.Mod(), node.args[1])
        return node


def formula_from_moodle(source: str) -> str:
    """A Moodle formula in our language; Unmapped says what does not fit."""
    text = _WILDCARD.sub(r"\1", source.strip())
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise Unmapped(f"the formula {source!r} is not one our formulas can read") from None
    ours = ast.unparse(_FromMoodle().visit(tree))
    try:
        parse(ours)
    except FormulaError as exc:
        raise Unmapped(f"the formula {source!r}: {exc}") from None
    return ours


def template_from_moodle(text: str, spec: str = "") -> str:
    """A Moodle text with `{a}` and `{=...}` as one of our templates (other braces doubled)."""
    out, pos = [], 0
    pattern = re.compile(f"{_INLINE.pattern}|{_WILDCARD.pattern}")
    for match in pattern.finditer(text):
        out.append(text[pos:match.start()].replace("{", "{{").replace("}", "}}"))
        inline, name = match.group(1), match.group(2)
        out.append(f"{{{formula_from_moodle(inline)}{spec}}}" if inline is not None
                   else f"{{{name}}}")
        pos = match.end()
    out.append(text[pos:].replace("{", "{{").replace("}", "}}"))
    return "".join(out)


def read(node: Node, q: DraftQuestion, draft: Draft) -> None:
    """Fill `q.computed` from a calculated/calculatedmulti question (its options already
    read, their text the Moodle formulas), or say per question why it cannot be."""
    kind = node.attrs.get("type", "calculated")
    if len(q.options) < 2:
        draft.skip(q.where, kind, "it has one answer, typed in; give it wrong answers to "
                   "choose from, as a calculatedmulti", name=q.name or q.text)
        return
    key = key_index(q, draft)
    if key is None:
        return
    try:
        params = _params(node)
        first = node.find("answer")
        spec = _spec(first) if first is not None else ""
        values, texts = [], []
        for option in q.options:
            formula, text = _choice(option.text, kind, spec)
            values.append(formula)
            texts.append(text)
        q.computed = {
            "params": params,
            "answer": ({"value": values[key], "text": texts[key]} if texts[key]
                       else values[key]),
            "option": f"{{value{spec}}}",
            "text": template_from_moodle(q.text),
            "mistakes": [_mistake(n, o.feedback, v, t, spec)
                         for n, (o, v, t) in enumerate(zip(q.options, values, texts,
                                                           strict=True))
                         if n != key],
            "explanation": template_from_moodle(q.general or q.options[key].feedback, spec)
            or f"{{answer{spec}}}",
        }
    except Unmapped as exc:
        draft.skip(q.where, kind, str(exc), name=q.name or q.text)
        return
    draft.questions.append(q)


def _choice(text: str, kind: str, spec: str) -> tuple[str, str]:
    """(our formula, its text template or "") of one answer."""
    if kind == "calculated":
        return formula_from_moodle(text), ""
    inline = _INLINE.findall(text)
    if len(inline) != 1:
        raise Unmapped(f"the answer {text!r} must hold one {{=formula}}")
    rest = _INLINE.sub("", text).strip()
    formula = formula_from_moodle(inline[0])
    return formula, template_from_moodle(_INLINE.sub("{=value}", text), spec) if rest else ""


def _mistake(n: int, feedback: str, value: str, text: str, spec: str) -> dict[str, Any]:
    out: dict[str, Any] = {"name": f"wrong-{n + 1}", "value": value}
    if text:
        out["text"] = text
    out["why_not"] = template_from_moodle(feedback) or f"{{value{spec}}} ≠ {{answer{spec}}}"
    return out


def _spec(answer: Node) -> str:
    """Our format spec from Moodle's correctanswerformat (1 decimals, 2 significant) and
    correctanswerlength."""
    length = answer.value("correctanswerlength").strip()
    if not length.isdigit():
        return ""
    kind = "g" if answer.value("correctanswerformat").strip() == "2" else "f"
    return f":.{min(int(length), 9) or (1 if kind == 'g' else 0)}{kind}"


def _params(node: Node) -> dict[str, Any]:
    out: dict[str, Any] = {}
    definitions = node.find("dataset_definitions")
    for d in definitions.all("dataset_definition") if definitions else []:
        name = d.value("name", "text").strip()
        items = d.find("dataset_items")
        values = [_number(i.value("value")) for i in items.all("dataset_item")] if items else []
        if values:
            out[name] = list(dict.fromkeys(values))
            continue
        low, high = _number(d.value("minimum", "text")), _number(d.value("maximum", "text"))
        decimals = d.value("decimals", "text").strip()
        step: float | int = 10 ** -int(decimals) if decimals.isdigit() and int(decimals) else 1
        if (high - low) / step + 1 > MAX_VALUES:
            raise Unmapped(f"the wildcard {name} takes over {MAX_VALUES:,} values in "
                           f"{low}..{high}; give it dataset items")
        out[name] = {"min": low, "max": high, "step": step}
    if not out:
        raise Unmapped("it declares no wildcards (dataset definitions)")
    return out


def _number(text: str) -> int | float:
    try:
        value = float(text)
    except ValueError:
        raise Unmapped(f"{text.strip()!r} is not a number") from None
    return int(value) if value.is_integer() else value


# --- ours -> Moodle --------------------------------------------------------------------


@dataclass(slots=True)
class Calculated:
    """A computed question as Moodle's calculatedmulti writes it."""

    id: str
    text: str  # with {p} and {=formula}
    answers: list[tuple[str, float, str]]  # (text with {=formula}, fraction, feedback)
    explanation: str
    datasets: dict[str, list[Number]]  # wildcard -> items (item k of each: one draw)
    decimals: tuple[int, int]  # (correctanswerformat: 1 decimals | 2 significant, length)
    category: str = ""


def to_calculated(q: Question, lang: str, category: str) -> Calculated:
    """`q` (a computed question) as a calculatedmulti; Unmapped when a formula or template
    has no Moodle form. Its `let` values are written into the formulas that use them, and
    its datasets are DATASET_ITEMS of our own draws (so every `where` holds)."""
    c = q.computed
    assert c is not None
    subs: dict[str, str] = {p.name: f"{{{p.name}}}" for p in c.params}
    for let in c.lets:
        subs[let.name] = _moodle(let.formula.tree, subs)
    answer = _moodle(c.choices[0].value.tree, subs)
    answers = []
    for k, choice in enumerate(c.choices):
        local = {**subs, "value": _moodle(choice.value.tree, subs), "answer": answer}
        why = _template(dict(choice.why_not)[lang], local) if choice.why_not else ""
        answers.append((_template(dict(choice.text)[lang], local), 100.0 if k == 0 else 0.0,
                        why))
    items: dict[str, list[Number]] = {p.name: [] for p in c.params}
    try:
        for seed in range(DATASET_ITEMS):
            for name, value in draw(q, seed).drawn:
                items[name].append(value)
    except DrawFailed as exc:
        raise Unmapped(f"no numbers could be drawn ({exc})") from None
    return Calculated(q.id, _template(dict(c.text.templates)[lang], subs), answers,
                      _template(dict(c.explanation.templates)[lang], {**subs, "answer": answer}),
                      items, _decimals(dict(c.choices[0].text)[lang], c.digits), category)


def _template(t: Template, subs: Mapping[str, str]) -> str:
    out = [t.pieces[0]]
    for slot, piece in zip(t.slots, t.pieces[1:], strict=True):
        tree = slot.formula.tree
        percent = slot.spec.endswith("%")
        if isinstance(tree, ast.Name) and tree.id in subs and subs[tree.id].startswith("{") \
                and subs[tree.id].endswith("}") and not percent:
            out.append(subs[tree.id])
        else:
            formula = _moodle(tree, subs)
            out.append(f"{{=100 * {formula}}}%" if percent else f"{{={formula}}}")
        out.append(piece)
    return "".join(out)


def _decimals(option: Template, digits: int) -> tuple[int, int]:
    spec = option.slots[0].spec if option.slots else ""
    if spec == "d":
        return 1, 0
    if spec[-1:] in ("f", "%"):
        return 1, int(spec[1:-1])
    if spec[-1:] == "g":
        return 2, int(spec[1:-1])
    return 2, digits


def _moodle(node: ast.expr, subs: Mapping[str, str]) -> str:
    if isinstance(node, ast.Constant):
        return repr(node.value)
    if isinstance(node, ast.Name):
        if node.id not in subs:
            raise Unmapped(f"{node.id} has no Moodle form")
        return subs[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = "-" if isinstance(node.op, ast.USub) else "+"
        return f"{sign}{_moodle(node.operand, subs)}"
    if isinstance(node, ast.BinOp):
        a, b = _moodle(node.left, subs), _moodle(node.right, subs)
        simple = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
        if type(node.op) in simple:
            return f"({a} {simple[type(node.op)]} {b})"
        if isinstance(node.op, ast.Pow):
            return f"pow({a}, {b})"
        if isinstance(node.op, ast.FloorDiv):
            return f"floor({a} / {b})"
        if isinstance(node.op, ast.Mod):
            return f"fmod({a}, {b})"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        args = [_moodle(a, subs) for a in node.args]
        if node.func.id == "log2":
            return f"(log({args[0]}) / log(2))"
        return f"{node.func.id}({', '.join(args)})"
    raise Unmapped(f"{ast.unparse(node)!r} is a condition or comparison, which Moodle "
                   "formulas do not have")
