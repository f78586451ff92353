"""Model-chosen arguments against in-process tool code: bounded numbers, bounded time, no leaked context.

Through the public paths: ``ToolSet.call`` / ``Toolbox.call`` (what every tool-use environment runs), a bundled
tool-use seed's ``step()`` (the ``deposit(amount=1e308)`` and 5000-digit literal classes), and the BFCL adapter's
environment (``power(10, 10**7)``, huge decimal and mpmath precisions, a loop that would never end).
"""

from __future__ import annotations

import decimal
import json
import math
import sys
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core.contract import SpadeEnv
from spade_core.contract.inner import LocalInnerEnv, load_trusted_module
from spade_registry.manifest import EnvManifest
from spade_tools.base import ToolDef, ToolError, ToolSet
from spade_tools.calculator import Calculator
from spade_tools.guard import (
    DEFAULT_TIMEOUT_S,
    MAX_DECIMAL_PREC,
    BoundedInt,
    CallTimeout,
    guarded_arguments,
    guarded_call,
    plain_data_problem,
)
from spade_tools.ledger import Ledger
from spade_tools.schema import obj
from spade_tools.toolbox import Toolbox

CALL_BUDGET_S = DEFAULT_TIMEOUT_S + 1.5
"""A guarded call returns within its deadline plus scheduling slack on a loaded machine."""


class Hostile(ToolSet):
    """A tool set whose methods do what careless tool code does with a model's numbers."""

    KIND = "hostile"
    CALL_TIMEOUT_S = 0.3
    TOOL_DEFS = (
        ToolDef("power", "base ** exponent", obj({"base": {"type": "number"}, "exponent": {"type": "number"}},
                                                 ["base", "exponent"])),
        ToolDef("sqrt", "decimal square root", obj({"x": {"type": "number"}, "precision": {"type": "integer"}},
                                                   ["x", "precision"])),
        ToolDef("spin", "loops while n > 0, swallowing errors", obj({"n": {"type": "integer"}}, ["n"])),
        ToolDef("repeat", "text * n", obj({"text": {"type": "string"}, "n": {"type": "integer"}}, ["text", "n"])),
        ToolDef("digits", "len(str((n ** 60) ** 4))", obj({"n": {"type": "integer"}}, ["n"])),
    )

    def power(self, base: float, exponent: float) -> dict:
        return {"result": base ** exponent}

    def sqrt(self, x: float, precision: int) -> dict:
        decimal.getcontext().prec = precision
        return {"result": str(decimal.Decimal(x).sqrt())}

    def spin(self, n: int) -> dict:
        while n > 0:
            try:
                n = n + 1
            except Exception:  # careless code that swallows everything
                pass
        return {"n": n}

    def repeat(self, text: str, n: int) -> dict:
        return {"text": text * n}

    def digits(self, n: int) -> dict:
        if n < 0:
            raise ToolError("n must be >= 0")
        plain = int(n ** 60)  # a plain int escapes BoundedInt's checks: the int-to-str limit still holds
        return {"digits": len(str(plain ** 4))}

    def snapshot(self) -> dict:
        return {}


def timed(fn):
    started = time.monotonic()
    out = fn()
    return out, time.monotonic() - started


@pytest.mark.parametrize(("name", "arguments"), [
    ("power", {"base": 10, "exponent": 10 ** 7}),
    ("power", {"base": 10.0, "exponent": 1e300}),
    ("power", {"base": 1e308, "exponent": 2}),
    ("sqrt", {"x": 2, "precision": 10 ** 9}),
    ("spin", {"n": 1}),
    ("repeat", {"text": "ab", "n": 2 ** 40}),
    ("digits", {"n": 2 ** 63}),
])
def test_hostile_tool_arguments_become_error_results_in_bounded_time(name: str, arguments: dict) -> None:
    tool = Hostile()
    before = (decimal.getcontext().prec, decimal.getcontext().rounding)
    result, elapsed = timed(lambda: tool.call(name, arguments))
    assert set(result) == {"error"} and result["error"].startswith(name), result
    assert elapsed < CALL_BUDGET_S
    assert (decimal.getcontext().prec, decimal.getcontext().rounding) == before


@pytest.mark.parametrize("value", [10 ** 500, 2 ** 64, float("inf"), float("nan"), "\ud800", [[[[[[[[[[[[[[[[[[[[[[[[
    [[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]], {1: 2}, object()])
def test_arguments_that_are_not_small_plain_data_are_refused_before_the_tool_runs(value: object) -> None:
    result = Hostile().call("power", {"base": value, "exponent": 2})
    assert "error" in result and result["error"].startswith("tool 'power'"), result


def test_a_huge_amount_in_a_ledger_deposit_is_a_tool_error() -> None:
    ledger = Ledger({"operating": 10})
    before = ledger.snapshot()
    for amount in (1e308, -1e308, 1e30, 2 ** 63, 9_007_199_254_740_993):
        result = ledger.call("deposit", {"account": "operating", "amount": amount})
        assert "error" in result, (amount, result)
    assert ledger.snapshot() == before


def test_an_integral_float_beyond_2_53_is_not_an_integer_argument() -> None:
    box = Toolbox(Ledger({"operating": 10}))
    result = box.call("history", {"account": "operating", "limit": 1e308})
    assert "must be integer" in result["error"]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(expression=st.one_of(
    st.builds(lambda a, b: f"{a}**{b}", st.integers(-10 ** 6, 10 ** 6), st.integers(-10 ** 9, 10 ** 9)),
    st.builds(lambda a, b: f"{a}*{b}", st.integers(1, 480).map(lambda n: "9" * n), st.integers(1, 480).map(
        lambda n: "9" * n)),
    st.sampled_from(["exp(1e308)", "1e308*10", "sqrt(-1)", "floor(1e308)", "round(1e308, -20)", "9" * 499,
                     "(" * 150 + "1" + ")" * 150, "ceil(1e300)*ceil(1e300)", "log(0)", "10**10**7", "2.0**99999"]),
))
def test_calculator_tool_never_raises_and_stays_finite(expression: str) -> None:
    result, elapsed = timed(lambda: Calculator().call("calculate", {"expression": expression}))
    assert elapsed < CALL_BUDGET_S
    if "error" not in result:
        value = result["result"]
        assert isinstance(value, int) or math.isfinite(value)
        json.dumps(result)


def tool_use_seed(module: str) -> SpadeEnv:
    raw, cls = load_trusted_module(module)
    return SpadeEnv(EnvManifest.from_dict(raw, source=module), lambda knobs: LocalInnerEnv(cls, knobs), env_id=module)


@pytest.mark.parametrize("amount", ["1e308", "9" * 5000, "1e999", "NaN", "-Infinity", "18446744073709551617"])
def test_a_tool_use_seed_turns_huge_amounts_into_a_format_or_tool_error(amount: str) -> None:
    env = tool_use_seed("spade_domains.tool_use.seeds.pay_invoices")
    env.reset(seed=3)
    action = '{"name": "deposit", "arguments": {"account": "operating", "amount": ' + amount + "}}"
    obs, reward, terminated, truncated, info = env.step(action)
    assert "sandbox_error" not in info
    assert info["format_error"] or "error" in obs
    assert reward == 0.0 and not terminated and not truncated


# -- the guard itself ------------------------------------------------------------------------------------------------
def test_bounded_int_behaves_like_int_where_results_are_small() -> None:
    a, b = guarded_arguments([12, 7])
    assert isinstance(a, BoundedInt)
    assert (a ** b, a * b, a << b, 3 ** a, a + b, a // b, -a, abs(-a)) == (12 ** 7, 84, 12 << 7, 3 ** 12, 19, 1, -12, 12)
    assert json.dumps({"a": a}) == '{"a": 12}' and repr(a) == "12" and a == 12 and hash(a) == hash(12)
    with pytest.raises(OverflowError):
        _ = a ** 10 ** 6
    with pytest.raises(OverflowError):
        _ = 10 ** BoundedInt(10 ** 6)
    with pytest.raises(OverflowError):
        _ = "x" * BoundedInt(10 ** 9)


def test_guarded_calls_leave_decimal_and_mpmath_precision_unchanged() -> None:
    mpmath = pytest.importorskip("mpmath")
    decimal_before, mp_before = decimal.getcontext().prec, mpmath.mp.prec

    def careless() -> str:
        decimal.getcontext().prec = MAX_DECIMAL_PREC
        mpmath.mp.dps = 500
        return str(decimal.Decimal(2).sqrt())[:10]

    assert guarded_call(careless) == "1.41421356"
    assert (decimal.getcontext().prec, mpmath.mp.prec) == (decimal_before, mp_before)
    with pytest.raises(ValueError, match="precision"):
        guarded_call(lambda: setattr(decimal.getcontext(), "prec", MAX_DECIMAL_PREC + 1))
    with pytest.raises(ValueError, match="precision"):
        guarded_call(lambda: setattr(mpmath.mp, "dps", 10 ** 6))
    assert decimal.getcontext().prec == decimal_before and mpmath.mp.prec == mp_before
    mpmath.mp.dps = 2000  # outside a guarded call mpmath is untouched
    mpmath.mp.prec = mp_before


def test_the_deadline_stops_only_the_guarded_call_and_never_leaks() -> None:
    def forever() -> None:
        while True:
            try:
                sum(range(1000))
            except Exception:
                pass

    _, elapsed = timed(lambda: pytest.raises(CallTimeout, guarded_call, forever, timeout_s=0.2))
    assert elapsed < 0.2 + 1.5
    failures: list[BaseException] = []

    def many_close_calls() -> None:
        for _ in range(200):
            try:
                guarded_call(lambda: sum(range(5000)), timeout_s=0.0005)
            except CallTimeout:
                pass
        try:  # nothing pending may land after the guarded calls returned
            deadline = time.monotonic() + 0.3
            while time.monotonic() < deadline:
                pass
        except BaseException as exc:  # pragma: no cover - the failure being tested for
            failures.append(exc)

    threads = [threading.Thread(target=many_close_calls) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_plain_data_problem_names_the_argument_and_the_limit() -> None:
    assert "argument 'a.b'" in plain_data_problem({"a": {"b": 2 ** 70}})
    assert "finite" in plain_data_problem({"x": [1.0, float("nan")]})
    assert "nested more than" in plain_data_problem(json.loads("[" * 40 + "]" * 40))
    assert "surrogate" in plain_data_problem({"k": "a\udc80"})
    assert plain_data_problem({"ok": [1, 2.5, "x", None, True, {"y": -(2 ** 63)}]}) is None
    assert sys.get_int_max_str_digits() > 0  # the interpreter's own limit stays in force


# -- BFCL ------------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def math_task():
    bfcl = pytest.importorskip("spade_domains.benchmarks.bfcl")
    pytest.importorskip("bfcl_eval", reason="bfcl-eval is not installed (pip install --no-deps bfcl-eval)")
    return next(e for e in bfcl.load_entries("base") if "MathAPI" in e.involved_classes)


@pytest.mark.parametrize("action", [
    "power(base=10, exponent=10000000)",
    '{"name": "power", "arguments": {"base": 10, "exponent": 10000000}}',
    "square_root(number=2, precision=1000000000)",
    "logarithm(value=10, base=3, precision=1000000)",
    "power(base=2.5, exponent=1e300)",
    "power(base=10, exponent=" + "9" * 5000 + ")",
    "add(a=1e999, b=1)",
    "mean(numbers=[" + ",".join(["1e308"] * 200) + "])",
    "round_number(number=1e308, decimal_places=9000000000000000000)",
    "add(a=" + "[" * 3000 + "1" + "]" * 3000 + ", b=1)",
    "[" + ", ".join(["power(base=7, exponent=999999)"] * 8) + "]",
])
def test_bfcl_calls_with_huge_arguments_return_in_bounded_time_and_keep_the_context(math_task, action: str) -> None:
    from spade_domains.benchmarks import bfcl

    mpmath = pytest.importorskip("mpmath")
    env = bfcl.make_env(math_task)
    env.reset(seed=0)
    decimal_before = (decimal.getcontext().prec, decimal.getcontext().rounding, decimal.getcontext().Emax)
    mp_before = mpmath.mp.prec
    (obs, reward, terminated, truncated, info), elapsed = timed(lambda: env.step(action))
    calls = max(1, action.count("(") if action.startswith("[") else 1)
    assert elapsed < calls * (bfcl.CALL_TIMEOUT_S + 0.5) + 1.0, elapsed
    assert "sandbox_error" not in info
    assert math.isfinite(reward)
    assert (decimal.getcontext().prec, decimal.getcontext().rounding, decimal.getcontext().Emax) == decimal_before
    assert mpmath.mp.prec == mp_before
    assert info["format_error"] or obs.startswith("Results:\n1. ")
