"""Test asserts decided in the host: which parts the agent's worker evaluates, and the comparison itself.

``assert add(2, 3) == 5, "msg"`` is planned (:func:`plan_test`) into *leaves* — the operands that need the agent's
code (``add(2, 3)``; literals such as ``5`` are evaluated here with :func:`ast.literal_eval`) — and a small tree of
``and``/``or``/``not``/comparisons over them. The agent's worker evaluates the leaves and returns canonical plain
data (:mod:`.canon`); :func:`decide` applies the tree to the decoded values. The agent's objects never take part
in the comparison, so an always-true ``__eq__`` or a lying ``__bool__`` cannot make a test pass.

A test whose last statement is not an ``assert`` runs as plain statements in the agent's worker and passes when
it raises nothing (there is nothing to compare).
"""

from __future__ import annotations

import ast
import operator
import reprlib
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from spade_registry.syntax import parse_source

_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_repr = reprlib.Repr()
_repr.maxstring = 120
_repr.maxother = 120
_repr.maxlong = 60


@dataclass(frozen=True)
class Node:
    """One node of a planned assertion: ``lit`` (value), ``leaf`` (index), ``not``, ``and``, ``or``, ``cmp``."""

    kind: str
    value: Any = None
    children: tuple[Node, ...] = ()
    ops: tuple[type[ast.cmpop], ...] = ()


@dataclass(frozen=True)
class TestPlan:
    """How one test runs: ``setup`` statements in the agent's worker, then ``leaves`` evaluated there and
    ``check`` decided here (``check`` is None: the whole test is statements, passing when nothing raises)."""

    source: str
    setup: str | None
    check: Node | None
    leaves: tuple[str, ...]
    message: Node | None
    shown: str
    line: int = 1


class LeafFailed(Exception):
    """A leaf the decision needs raised in the agent's worker (its message is the agent code's error)."""


def plan_test(source: str) -> TestPlan:
    """Split a test into worker-side leaves and a host-side check (see the module docstring)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = parse_source(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return TestPlan(source, source, None, (), None, source)
    if not tree.body or not isinstance(tree.body[-1], ast.Assert):
        return TestPlan(source, source, None, (), None, source)
    statement = tree.body[-1]
    setup = ast.unparse(ast.Module(body=tree.body[:-1], type_ignores=[])) if len(tree.body) > 1 else None
    leaves: list[str] = []
    check = _plan(statement.test, leaves)
    message = _plan(statement.msg, leaves) if statement.msg is not None else None
    return TestPlan(source, setup, check, tuple(leaves), message, ast.unparse(statement.test), statement.lineno)


def _plan(node: ast.expr, leaves: list[str]) -> Node:
    if isinstance(node, ast.BoolOp):
        kind = "and" if isinstance(node.op, ast.And) else "or"
        return Node(kind, children=tuple(_plan(v, leaves) for v in node.values))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return Node("not", children=(_plan(node.operand, leaves),))
    if isinstance(node, ast.Compare):
        parts = (node.left, *node.comparators)
        return Node("cmp", children=tuple(_plan_operand(p, leaves) for p in parts), ops=tuple(type(o) for o in node.ops))
    return _plan_operand(node, leaves)


def _plan_operand(node: ast.expr, leaves: list[str]) -> Node:
    try:
        return Node("lit", value=ast.literal_eval(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    leaves.append(ast.unparse(node))
    return Node("leaf", value=len(leaves) - 1)


def decide(plan: TestPlan, values: Sequence[tuple[bool, Any]]) -> tuple[bool, str | None]:
    """``(passed, error)`` for a planned assert given each leaf's ``(ok, decoded value or error text)``."""
    assert plan.check is not None
    try:
        if _truth(_eval(plan.check, values)):
            return True, None
    except LeafFailed as exc:
        return False, str(exc)
    except (TypeError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
        return False, f"{type(exc).__name__} while checking {_short(plan.shown)}: {exc}"
    return False, f"line {plan.line}: AssertionError: " + _failure_text(plan, values)


def _failure_text(plan: TestPlan, values: Sequence[tuple[bool, Any]]) -> str:
    if plan.message is not None:
        try:
            message = _eval(plan.message, values)
        except (LeafFailed, TypeError, ValueError, RecursionError):
            message = None
        if message is not None:
            return message if isinstance(message, str) else _safe_repr(message)
    check = plan.check
    assert check is not None
    if check.kind == "cmp":
        try:
            shown = [_safe_repr(_eval(child, values)) for child in check.children]
        except LeafFailed:
            shown = []
        if shown:
            return f"{_short(plan.shown)} is false (values: {', '.join(shown)})"
    return f"{_short(plan.shown)} is false"


def _eval(node: Node, values: Sequence[tuple[bool, Any]]) -> Any:
    kind = node.kind
    if kind == "lit":
        return node.value
    if kind == "leaf":
        ok, value = values[node.value]
        if not ok:
            raise LeafFailed(str(value))
        return value
    if kind == "not":
        return not _truth(_eval(node.children[0], values))
    if kind == "and":
        result: Any = True
        for child in node.children:
            result = _eval(child, values)
            if not _truth(result):
                return result
        return result
    if kind == "or":
        result = False
        for child in node.children:
            result = _eval(child, values)
            if _truth(result):
                return result
        return result
    left = _eval(node.children[0], values)
    for op, child in zip(node.ops, node.children[1:]):
        right = _eval(child, values)
        if not _COMPARE[op](left, right):
            return False
        left = right
    return True


def _truth(value: Any) -> bool:
    return bool(value)


def _safe_repr(value: Any) -> str:
    try:
        return _repr.repr(value)
    except (ValueError, RecursionError):
        return f"<{type(value).__name__}>"


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
