"""The calculator: exact arithmetic through an AST walker, and nothing else."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_tools.base import ToolError
from spade_tools.calculator import Calculator, calculate


@pytest.mark.parametrize(("expression", "result"), [
    ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("2 ** 10", 1024), ("7 // 2", 3), ("7 % 4", 3), ("-3 + +2", -1),
    ("0.1 + 0.2", 0.3), ("round(10 / 3, 2)", 3.33), ("sqrt(16)", 4.0), ("max(1, 5, 3)", 5), ("abs(-2.5)", 2.5),
    ("sum(1, 2, 3.5)", 6.5), ("floor(2.7) + ceil(2.1)", 5), ("round(2 * pi, 4)", 6.2832), ("log(8, 2)", 3.0),
    ("2 ** -1", 0.5),
])
def test_arithmetic(expression: str, result) -> None:
    assert calculate(expression)["result"] == result


@pytest.mark.parametrize(("expression", "needle"), [
    ("__import__('os').system('ls')", "not available"),
    ("(1).__class__", "Attribute is not allowed"),
    ("[x for x in (1, 2)]", "not allowed"),
    ("lambda: 1", "not allowed"),
    ("'a' * 3", "only numbers"),
    ("x + 1", "unknown name 'x'"),
    ("9 ^ 2", "use ** for powers"),
    ("1 / 0", "division by zero"),
    ("0 ** -1", "division by zero"),
    ("10 ** 10 ** 10", "too large"),
    ("99999 ** 9999", "too large"),
    ("(-8) ** 0.5", "not a real number"),
    ("sqrt(-1)", "math domain error"),
    ("exp(1000)", "too large"),
    ("round(1, n=2)", "keyword arguments"),
    ("max(1)", "takes 2 to 50"),
    ("1 +", "cannot parse"),
    ("(" * 300 + "1" + ")" * 300, "at most 500"),
    ("(" * 240 + "1" + ")" * 240, "cannot parse"),
    ("-" * 400 + "1", "too complex"),
    ("", "non-empty"),
    ("True + 1", "only numbers"),
])
def test_refused(expression: str, needle: str) -> None:
    with pytest.raises(ToolError) as err:
        calculate(expression)
    assert needle in str(err.value)


def test_tool_set_call_reports_errors() -> None:
    calc = Calculator()
    assert calc.call("calculate", {"expression": "6 * 7"}) == {"expression": "6 * 7", "result": 42}
    assert "division by zero" in calc.call("calculate", {"expression": "1/0"})["error"]
    assert calc.snapshot() == {}


def _tree():
    leaf = st.integers(-50, 50).map(lambda n: (str(n) if n >= 0 else f"({n})", Fraction(n)))

    def combine(children):
        def build(parts):
            (left, lv), op, (right, rv) = parts
            if op == "/" and rv == 0:
                op = "+"
            value = {"+": lv + rv, "-": lv - rv, "*": lv * rv, "/": lv / rv if op == "/" else None}[op]
            return f"({left} {op} {right})", value
        return st.tuples(children, st.sampled_from(["+", "-", "*", "/"]), children).map(build)

    return st.recursive(leaf, combine, max_leaves=8)


@settings(derandomize=True, deadline=None, max_examples=80)
@given(tree=_tree())
def test_matches_exact_rational_arithmetic(tree) -> None:
    expression, expected = tree
    result = calculate(expression)["result"]
    assert abs(result - float(expected)) <= 1e-9 * max(1.0, abs(float(expected)))
