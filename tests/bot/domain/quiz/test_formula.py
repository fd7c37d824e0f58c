"""The formula language of computed questions: an AST whitelist, never `eval`, and templates."""

from __future__ import annotations

import math

import pytest

from bot.domain.quiz.formula import FormulaError, parse
from bot.domain.quiz.template import compile_template, format_number


@pytest.mark.parametrize(("source", "env", "value"), [
    ("(p-1)/(m+p-1)", {"p": 8, "m": 24}, 7 / 31),
    ("2*(t-1)/t * 2*b*s*h", {"t": 4, "b": 1, "s": 2048, "h": 4096}, 1.5 * 2 * 2048 * 4096),
    ("((p-1)*(100-B) + B - 1)//B", {"p": 8, "B": 5}, 133),
    ("-x + +y % 3", {"x": 2, "y": 7}, -1),
    ("2 ** ceil(log2(n))", {"n": 9}, 16),
    ("max(1, floor(sqrt(n)), round(n/4))", {"n": 10}, 3),
    ("round(x, 2) + abs(-y)", {"x": 1.23456, "y": 2}, 3.23),
    ("a if a > b else b", {"a": 3, "b": 5}, 5),
    ("1 < x <= 3 and not x == 2", {"x": 3}, True),
    ("x < 0 or x > 10", {"x": 5}, False),
])
def test_whitelisted_formulas_evaluate(source: str, env: dict, value: float) -> None:
    got = parse(source)(env)
    assert got == pytest.approx(value)


@pytest.mark.parametrize(("source", "says"), [
    ("p.__class__", "attribute access"),
    ("().__class__.__bases__[0].__subclasses__()", "is not one of"),
    ("__import__('os').system('true')", "calls __import__"),
    ("eval('1')", "calls eval"),
    ("open('/etc/passwd')", "calls open"),
    ("x[0]", "indexing"),
    ("(lambda: 1)()", "calls lambda"),
    ("lambda: 1", "a lambda"),
    ("'a' * 3", "only numbers"),
    ("[1, 2]", "a list"),
    ("(y := 3)", "assignment"),
    ("x in y", "comparison formulas do not allow"),
    ("x is None", "comparison formulas do not allow"),
    ("2 ** 1000", "power 1000"),
    ("9 ** 9 ** 9", "power"),
    ("x << 3", "operator"),
    ("min", "without calling it"),
    ("max(*x)", "unpacks"),
    ("round(x, ndigits=2)", "keyword"),
    ("ceil(1, 2)", "2 arguments"),
    ("_secret + 1", "may not start with _"),
    ("p +", "is not a formula"),
    ("", "empty"),
    ("1 + " * 300 + "1", "characters"),
])
def test_anything_else_is_refused_at_parse_time(source: str, says: str) -> None:
    with pytest.raises(FormulaError) as info:
        parse(source)
    assert says in str(info.value)


def test_powers_are_bounded_when_evaluated_too() -> None:
    huge = parse("n ** e")
    with pytest.raises(FormulaError, match="at most 64"):
        huge({"n": 2, "e": 100})
    with pytest.raises(FormulaError, match="over 2\\*\\*256"):
        huge({"n": 10**30, "e": 20})
    assert huge({"n": 2, "e": 10}) == 1024
    # no nesting of bounded steps can build a huge integer either
    with pytest.raises(FormulaError, match="over 2\\*\\*256"):
        parse("(n ** 60) ** 60")({"n": 7})


def test_evaluation_failures_are_formula_errors() -> None:
    with pytest.raises(FormulaError, match="divides by zero"):
        parse("1/(m-8)")({"m": 8})
    with pytest.raises(FormulaError, match="fails"):
        parse("sqrt(x)")({"x": -1})
    with pytest.raises(FormulaError, match="fails"):
        parse("log2(x)")({"x": 0})
    with pytest.raises(FormulaError, match="y is not defined"):
        parse("x + y")({"x": 1})


def test_names_are_collected_without_the_functions() -> None:
    assert parse("max(p, m) + ceil(s/h)").names == {"p", "m", "s", "h"}


def test_templates_fill_formulas_with_formats() -> None:
    t = compile_template("p = {p}, {p-1}/{m+p-1} ≈ {(p-1)/(m+p-1):.1%}; {{literal}} {h}")
    assert t.names == {"p", "m", "h"}
    assert t.fill({"p": 8, "m": 24, "h": 12288}) == "p = 8, 7/31 ≈ 22.6%; {literal} 12,288"


@pytest.mark.parametrize(("value", "spec", "shown"), [
    (1234.5678, "", "1235"),  # four digits are not grouped (SI/ISO 80000)
    (1822, "", "1822"),  # a year in an imported question, not "1,822"
    (4096, "d", "4096"),
    (-4096, "", "-4096"),
    (65536, "", "65,536"),  # from five digits on, grouped
    (-65536, "d", "-65,536"),
    (12288.25, ".2f", "12,288.25"),
    (1234.5, ".1f", "1234.5"),
    (1e12, "", "1,000,000,000,000"),
    (26.038, "", "26"),
    (0.40265, "", "0.403"),
    (3.0, "", "3"),
    (2.5, "d", "2"),  # banker's rounding, as Python's round()
    (539.0, ".2f", "539.00"),
    (7 / 31, ".1%", "22.6%"),
    (0.0001234, ".2g", "0.00012"),
    (-0.0001, ".1f", "0.0"),
])
def test_number_formats(value: float, spec: str, shown: str) -> None:
    assert format_number(value, spec) == shown


@pytest.mark.parametrize(("source", "says"), [
    ("{p", "without its '}'"),
    ("p}", "without its '{'"),
    ("{p:.1x}", "use d, .Nf, .N% or .Ng"),
    ("{p.real}", "attribute access"),
])
def test_bad_templates_are_refused(source: str, says: str) -> None:
    with pytest.raises(FormulaError) as info:
        compile_template(source)
    assert says in str(info.value)


def test_a_value_that_cannot_be_shown_fails_the_fill() -> None:
    with pytest.raises(FormulaError, match="gives infinity"):
        compile_template("{x*1e308*10}").fill({"x": 1.0})
    assert math.isinf(1e308 * 10)
