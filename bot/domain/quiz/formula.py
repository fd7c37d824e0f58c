"""A small, safe expression language for computed questions, evaluated without `eval`.

A formula is parsed with `ast` and walked over a whitelist: numbers, names, + - * / // % **,
unary - and +, comparisons, `and` / `or` / `not`, the conditional expression `a if c else b`
and calls to a few functions (min, max, ceil, floor, log2, sqrt, round, abs). Anything else
(attributes, subscripts, lambdas, strings, other calls) is refused when the file loads, with
the offending piece named. Every operation that could blow up is bounded: the exponent of
`**` (and its result), the digits of `round`, every integer's size (MAX_BITS) and every
float (no infinity, no NaN), at parse for constants and at evaluation for every result, so
no formula can build a huge number or spend more than a few microseconds a node.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Number = int | float
MAX_LENGTH = 400  # characters of one formula
MAX_NODES = 200  # AST nodes of one formula
MAX_EXPONENT = 64  # |b| in a ** b
MAX_BITS = 256  # an integer result larger than 2**256 is refused
MAX_ROUND_DIGITS = 12  # |digits| in round(x, digits): round(p, -10**9) would build 10**10**9

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne,
}


def _round(x: Number, digits: Number = 0) -> Number:
    if not -MAX_ROUND_DIGITS <= digits <= MAX_ROUND_DIGITS:
        raise FormulaError(f"rounds to {digits} digits; at most {MAX_ROUND_DIGITS} either way")
    return round(x, int(digits)) if digits else round(x)


def _log2(x: Number) -> float:
    return math.log2(x)


# name -> (function, fewest arguments, most arguments)
FUNCTIONS: dict[str, tuple[Callable[..., Number], int, int]] = {
    "min": (min, 2, 8), "max": (max, 2, 8), "ceil": (math.ceil, 1, 1),
    "floor": (math.floor, 1, 1), "log2": (_log2, 1, 1), "sqrt": (math.sqrt, 1, 1),
    "round": (_round, 1, 2), "abs": (abs, 1, 1),
}


class FormulaError(ValueError):
    """A formula that is not allowed, or that failed for these values (one line)."""


@dataclass(frozen=True, slots=True)
class Formula:
    """A parsed formula and the names it reads."""

    source: str
    tree: ast.expr
    names: frozenset[str]
    size: int = 1  # AST nodes: what one evaluation costs, at most MAX_NODES

    def __call__(self, env: Mapping[str, Number]) -> Number:
        """The formula's value with `env`'s values for its names (a condition gives a bool,
        which is an int); FormulaError on failure."""
        try:
            value: Number = _eval(self.tree, env)
            return value
        except FormulaError as exc:
            raise FormulaError(f"{self.source!r} {exc}") from None
        except ZeroDivisionError:
            raise FormulaError(f"{self.source!r} divides by zero") from None
        except (ValueError, OverflowError, TypeError) as exc:
            raise FormulaError(f"{self.source!r} fails: {exc}") from None


def parse(source: object) -> Formula:
    """Parse and check one formula; FormulaError says what is not allowed."""
    if isinstance(source, bool) or not isinstance(source, (str, int, float)):
        raise FormulaError(f"must be a formula (text or a number), got {source!r}")
    text = str(source).strip()
    if not text:
        raise FormulaError("is an empty formula")
    if len(text) > MAX_LENGTH:
        raise FormulaError(f"is {len(text)} characters; a formula may have {MAX_LENGTH}")
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise FormulaError(f"{text!r} is not a formula: {exc.msg}") from None
    nodes = list(ast.walk(tree))
    if len(nodes) > MAX_NODES:
        raise FormulaError(f"{text!r} is too long ({len(nodes)} parts; at most {MAX_NODES})")
    names: set[str] = set()
    callees = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    for node in nodes:
        _check(node, text, names, callees)
    return Formula(text, tree, frozenset(names), len(nodes))


_PLAIN = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp,
          ast.Call, ast.Load, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _check(node: ast.AST, text: str, names: set[str], callees: set[int]) -> None:
    if not isinstance(node, _PLAIN):
        raise FormulaError(f"{text!r} uses {_describe(node)}, which formulas do not allow")
    if isinstance(node, ast.Constant) and (
            isinstance(node.value, bool) or not isinstance(node.value, (int, float))):
        raise FormulaError(f"{text!r} uses the constant {node.value!r}; only numbers are allowed")
    if isinstance(node, ast.Constant):
        try:
            bounded(node.value)
        except FormulaError as exc:
            raise FormulaError(f"{text!r}: the constant {exc}") from None
    if isinstance(node, ast.BinOp) and type(node.op) not in _BINARY:
        raise FormulaError(f"{text!r} uses an operator formulas do not allow")
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        raise FormulaError(f"{text!r} uses an operator formulas do not allow")
    if isinstance(node, ast.Compare) and not all(type(op) in _COMPARE for op in node.ops):
        raise FormulaError(f"{text!r} uses a comparison formulas do not allow (is, in)")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        exp = node.right
        if not any(isinstance(n, ast.Name) for n in ast.walk(exp)):  # a constant exponent
            try:
                value = _eval(exp, {})
            except (ArithmeticError, ValueError, TypeError, FormulaError):
                value = MAX_EXPONENT + 1
            if not isinstance(value, (int, float)) or abs(value) > MAX_EXPONENT:
                raise FormulaError(f"{text!r} raises to the power {ast.unparse(exp)}; at "
                                   f"most {MAX_EXPONENT}")
    if isinstance(node, ast.Call):
        func = node.func
        if not isinstance(func, ast.Name) or func.id not in FUNCTIONS:
            called = func.id if isinstance(func, ast.Name) else ast.unparse(func)
            raise FormulaError(f"{text!r} calls {called}, which is not one of "
                               f"{', '.join(sorted(FUNCTIONS))}")
        if node.keywords:
            raise FormulaError(f"{text!r} passes a keyword argument to {func.id}")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise FormulaError(f"{text!r} unpacks arguments to {func.id}")
        low, high = FUNCTIONS[func.id][1:]
        if not low <= len(node.args) <= high:
            raise FormulaError(f"{text!r} calls {func.id} with {len(node.args)} arguments")
    if isinstance(node, ast.Name):
        if node.id.startswith("_"):
            raise FormulaError(f"{text!r} uses the name {node.id}; names may not start with _")
        if node.id in FUNCTIONS and id(node) not in callees:
            raise FormulaError(f"{text!r} uses the function {node.id} without calling it")
        if node.id not in FUNCTIONS:
            names.add(node.id)


def _describe(node: ast.AST) -> str:
    kinds = {ast.Attribute: "attribute access", ast.Subscript: "indexing",
             ast.Lambda: "a lambda", ast.NamedExpr: "an assignment (:=)",
             ast.JoinedStr: "a string", ast.List: "a list", ast.Tuple: "a tuple",
             ast.Dict: "a dict", ast.Set: "a set", ast.Starred: "unpacking (*)",
             ast.ListComp: "a comprehension", ast.GeneratorExp: "a comprehension",
             ast.Await: "await"}
    return kinds.get(type(node), type(node).__name__)


def _eval(node: ast.expr, env: Mapping[str, Number]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise FormulaError(f"{node.id} is not defined")
        return env[node.id]
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, env), _eval(node.right, env)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        value = _BINARY[type(node.op)](left, right)
        if isinstance(value, complex):
            raise FormulaError("gives a complex number")
        return bounded(value)
    if isinstance(node, ast.UnaryOp):
        operand = _eval(node.operand, env)
        if isinstance(node.op, ast.Not):
            return not operand
        return -operand if isinstance(node.op, ast.USub) else +operand
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = _eval(comparator, env)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return all(_eval(v, env) for v in node.values)
        return any(_eval(v, env) for v in node.values)
    if isinstance(node, ast.IfExp):
        return _eval(node.body if _eval(node.test, env) else node.orelse, env)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        function = FUNCTIONS[node.func.id][0]
        return bounded(function(*(_eval(a, env) for a in node.args)))
    raise FormulaError(f"cannot evaluate {_describe(node)}")  # parse() let nothing else by


def bounded(value: Any) -> Any:
    """`value` when it is a finite number within MAX_BITS; FormulaError (one line) else.
    Every number a formula reads or makes passes here: parameters, constants, results."""
    if isinstance(value, float) and not math.isfinite(value):
        raise FormulaError("is not a number (NaN)" if math.isnan(value)
                           else "gives infinity (a number beyond 1.8e308)")
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        raise FormulaError(f"gives a number over 2**{MAX_BITS}")
    return value


def _check_power(base: Any, exp: Any) -> None:
    if not abs(exp) <= MAX_EXPONENT:  # NaN fails too
        raise FormulaError(f"raises to the power {exp}; at most {MAX_EXPONENT}")
    if (isinstance(base, int) and isinstance(exp, int) and exp > 0
            and base.bit_length() * exp > MAX_BITS):
        raise FormulaError(f"{base} ** {exp} is over 2**{MAX_BITS}")
