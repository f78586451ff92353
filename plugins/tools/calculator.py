"""A calculator tool that evaluates arithmetic safely: an AST walker over a fixed grammar, never ``eval``.

Allowed: numbers, ``+ - * / // % **``, parentheses, unary ``+``/``-``, the constants ``pi``, ``e``, ``tau`` and
the functions in :data:`FUNCTIONS`. Everything else (names, attributes, subscripts, comprehensions, strings,
keyword arguments, ``^``) is refused with a message. Sizes are bounded so no expression can exhaust memory or time.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from spade_registry.syntax import parse_source
from spade_tools.base import ToolDef, ToolError, ToolSet
from spade_tools.schema import obj

MAX_EXPRESSION_CHARS = 500
MAX_INT_BITS = 4096
MAX_EXPONENT = 10_000
MAX_NODES = 200


def _round(x: float, ndigits: int = 0) -> float | int:
    if isinstance(ndigits, float) and ndigits.is_integer():
        ndigits = int(ndigits)
    if not isinstance(ndigits, int) or not -20 <= ndigits <= 20:
        raise ToolError("round(x, n) needs an integer n between -20 and 20")
    return round(x) if ndigits == 0 else round(x, ndigits)


def _log(x: float, base: float | None = None) -> float:
    return math.log(x) if base is None else math.log(x, base)


FUNCTIONS: dict[str, tuple[Any, int, int]] = {
    # name: (implementation, min args, max args)
    "abs": (abs, 1, 1),
    "round": (_round, 1, 2),
    "min": (min, 2, 50),
    "max": (max, 2, 50),
    "sum": (lambda *xs: sum(xs), 1, 50),
    "sqrt": (math.sqrt, 1, 1),
    "floor": (math.floor, 1, 1),
    "ceil": (math.ceil, 1, 1),
    "exp": (math.exp, 1, 1),
    "log": (_log, 1, 2),
    "log10": (math.log10, 1, 1),
    "log2": (math.log2, 1, 1),
    "sin": (math.sin, 1, 1),
    "cos": (math.cos, 1, 1),
    "tan": (math.tan, 1, 1),
}
CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}
_OPERATORS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
}


def _check_size(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
        raise ToolError("result is too large")
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError("result is not a finite number")
    return value


def _binary(op: str, left: Any, right: Any) -> Any:
    if op in ("/", "//", "%") and right == 0:
        raise ToolError("division by zero")
    if op == "**":
        if abs(right) > MAX_EXPONENT:
            raise ToolError(f"exponent is too large (at most {MAX_EXPONENT})")
        if isinstance(left, int) and isinstance(right, int) and right > 0:
            if max(left.bit_length(), 1) * right > MAX_INT_BITS * 2:
                raise ToolError("result is too large")
        if left == 0 and right < 0:
            raise ToolError("division by zero")
        if left < 0 and isinstance(right, float) and not right.is_integer():
            raise ToolError("a negative number to a fractional power is not a real number")
        if isinstance(left, int) and isinstance(right, int) and right < 0:
            left = float(left)
    if op in ("*",) and isinstance(left, int) and isinstance(right, int):
        if left.bit_length() + right.bit_length() > MAX_INT_BITS + 1:
            raise ToolError("result is too large")
    try:
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "*":
            return left * right
        if op == "/":
            return left / right
        if op == "//":
            return left // right
        if op == "%":
            return left % right
        return left**right
    except OverflowError:
        raise ToolError("result is too large") from None


class _Evaluator:
    def __init__(self) -> None:
        self.nodes = 0

    def eval(self, node: ast.AST) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise ToolError(f"expression is too complex (at most {MAX_NODES} parts)")
        if isinstance(node, ast.Expression):
            return self.eval(node.body)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise ToolError(f"only numbers are allowed, got {node.value!r}")
            return _check_size(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            value = self.eval(node.operand)
            return -value if isinstance(node.op, ast.USub) else +value
        if isinstance(node, ast.BinOp):
            op = _OPERATORS.get(type(node.op))
            if op is None:
                if isinstance(node.op, ast.BitXor):
                    raise ToolError("'^' is not a power operator here; use ** for powers")
                raise ToolError(f"operator {type(node.op).__name__} is not allowed")
            return _check_size(_binary(op, self.eval(node.left), self.eval(node.right)))
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            raise ToolError(f"unknown name '{node.id}' (constants: {', '.join(CONSTANTS)})")
        if isinstance(node, ast.Call):
            return self._call(node)
        raise ToolError(f"{type(node).__name__} is not allowed in a calculator expression")

    def _call(self, node: ast.Call) -> Any:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            name = node.func.id if isinstance(node.func, ast.Name) else "that"
            raise ToolError(f"function '{name}' is not available (functions: {', '.join(FUNCTIONS)})")
        if node.keywords:
            raise ToolError("keyword arguments are not allowed")
        func, low, high = FUNCTIONS[node.func.id]
        if not low <= len(node.args) <= high:
            raise ToolError(f"{node.func.id}() takes {low}{'' if low == high else f' to {high}'} argument(s)")
        args = [self.eval(a) for a in node.args]
        try:
            return _check_size(func(*args))
        except OverflowError:
            raise ToolError(f"{node.func.id}(): result is too large") from None
        except (ValueError, ZeroDivisionError) as err:
            raise ToolError(f"{node.func.id}(): {err}") from None


def calculate(expression: str) -> dict[str, Any]:
    """Evaluate an arithmetic expression; returns ``{"expression", "result"}`` or raises :class:`ToolError`."""
    if not isinstance(expression, str) or not expression.strip():
        raise ToolError("expression must be a non-empty string")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolError(f"expression has at most {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = parse_source(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as err:
        raise ToolError(f"cannot parse expression: {getattr(err, 'msg', None) or err}") from None
    try:
        result = _Evaluator().eval(tree)
    except RecursionError:
        raise ToolError("expression is nested too deeply") from None
    if isinstance(result, float):
        result = round(result, 12)
    return {"expression": expression.strip(), "result": result}


class Calculator(ToolSet):
    """The calculator as a (stateless) tool set, so a :class:`~spade_tools.toolbox.Toolbox` can hold it."""

    KIND = "calculator"
    TOOL_DEFS = (
        ToolDef("calculate", "Evaluate an arithmetic expression, e.g. '(12.5 + 7.25) * 3' or 'round(10 / 3, 2)'. "
                             f"Functions: {', '.join(FUNCTIONS)}; constants: {', '.join(CONSTANTS)}.", obj({
            "expression": {"type": "string", "minLength": 1, "maxLength": MAX_EXPRESSION_CHARS},
        }, ["expression"])),
    )

    def calculate(self, expression: str) -> dict[str, Any]:
        return calculate(expression)

    def snapshot(self) -> dict[str, Any]:
        return {}
