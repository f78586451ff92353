"""Final-answer extraction and equivalence for math environments.

Safe to call from sandboxed environment code: the domain exposes these functions (and nothing else of this
module) as a stand-in through ``spade_sandbox_modules``.

Equivalence is checked cheapest first: normalised string equality, exact rational equality
(:func:`to_number`), then symbolic equality with ``sympy`` (``2\\sqrt{2}`` equals ``sqrt(8)``). Agent text never
reaches ``sympify``/``eval``: :func:`parse_math` is a small recursive-descent parser over a whitelist of tokens
that builds ``sympy`` objects directly, with bounds on length, nesting depth, exponent size and parse time.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import sympy

from spade_core import linear_re
from spade_core.linear_re import DIGIT, SPACE
from spade_domains.math.answers import (
    MAX_EXPR_CHARS,
    THOUSANDS_NUMBER,
    extract_answer,
    mentions_answer,
    normalize_answer,
    safe_echo,
    to_number,
)

__all__ = ["MAX_EXPR_CHARS", "MathParseError", "answers_match", "extract_answer", "mentions_answer",
           "normalize_answer", "parse_math", "safe_echo", "to_number"]

MAX_EXPONENT = 64
"""Largest |exponent| the symbolic parser accepts (``2^64`` yes, ``2^65`` or ``9^9^9`` no)."""
MAX_RESULT_BITS = 4096
"""Largest integer power (in bits) the parser builds: ``(2^64)^64`` is refused before it is computed."""
MAX_DEPTH = 24
PARSE_SECONDS = 0.25
_SAMPLE_POINTS = (Fraction(3, 7), Fraction(-5, 11), Fraction(13, 5))


class MathParseError(ValueError):
    """The text is not a (small, safe) math expression."""


# -- a bounded parser that builds sympy objects directly --------------------------------------------------------
_TOKEN = linear_re.compile(
    rf"[{SPACE}]*(?:(?P<num>{DIGIT}+(?:\.{DIGIT}*)?(?P<exp>[eE][-+]?{DIGIT}{{1,3}})?|\.{DIGIT}+)|(?P<cmd>\\[A-Za-z]+)"
    r"|(?P<name>[A-Za-z]+)|(?P<op>\*\*|[-+*/^(){}\[\],|]))"
)
_KINDS = ("num", "cmd", "name", "op")
_CONSTANTS: dict[str, Any] = {"pi": sympy.pi, "e": sympy.E, "i": sympy.I, "oo": sympy.oo, "infty": sympy.oo,
                              "infinity": sympy.oo}
_FUNCTIONS: dict[str, Any] = {
    "sqrt": sympy.sqrt, "exp": sympy.exp, "ln": sympy.log, "log": sympy.log, "sin": sympy.sin, "cos": sympy.cos,
    "tan": sympy.tan, "abs": sympy.Abs,
}
_LATEX_COMMANDS = {"\\cdot": "*", "\\times": "*", "\\div": "/", "\\pi": "pi", "\\infty": "oo", "\\sqrt": "sqrt",
                   "\\frac": "frac", "\\exp": "exp", "\\ln": "ln", "\\log": "log", "\\sin": "sin", "\\cos": "cos",
                   "\\tan": "tan"}


def _next_token(text: str, pos: int) -> tuple[str, str, int]:
    """The token at ``pos`` (after spaces): its kind, its text and where it ends. An exponent is not read into a
    number where a letter follows it, as ``(?![A-Za-z])`` after the exponent did: ``2e34x`` reads ``2e3``, ``4``,
    ``x``; ``2e3x`` reads ``2``, ``e``, ``3``, ``x``."""
    m = _TOKEN.match(text, pos)
    if not m or m.end() == pos:
        raise MathParseError(f"unexpected character {text[pos]!r}")
    kind = next(k for k in _KINDS if m.group(k) is not None)
    start, end = m.span(kind)
    exp_start, exp_end = m.span("exp")
    if exp_end > 0 and exp_end < len(text) and text[exp_end].isascii() and text[exp_end].isalpha():
        digits = exp_end - exp_start - (2 if text[exp_start + 1] in "+-" else 1)
        end = exp_end - 1 if digits >= 2 else exp_start
    return kind, text[start:end], end


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        kind, value, end = _next_token(text, pos)
        pos = end
        if kind == "cmd":
            if value not in _LATEX_COMMANDS:
                raise MathParseError(f"unsupported LaTeX command {value}")
            value = _LATEX_COMMANDS[value]
            kind = "op" if value in "*/" else "name"
        if kind == "op" and value == "**":
            value = "^"
        if kind == "name" and value not in _CONSTANTS and value not in _FUNCTIONS and value != "frac":
            if len(value) == 1:
                pass
            elif all(ch in _CONSTANTS or len(ch) == 1 for ch in value) and len(value) <= 3:
                # implicit product of single-letter symbols, e.g. "xy" -> x*y
                for ch in value:
                    tokens.append(("name", ch))
                continue
            else:
                raise MathParseError(f"unknown name {value!r}")
        tokens.append((kind, value))
    return tokens


class _Parser:
    """expr := term (+|- term)*; term := unary ((*|/|implicit) unary)*; unary := (+|-) unary | power;
    power := atom (^ unary)?; atom := number | name | func arg | frac{..}{..} | (expr) | {expr} | |expr|."""

    def __init__(self, tokens: list[tuple[str, str]], deadline: float) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0
        self.deadline = deadline

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok is None or (value is not None and tok[1] != value):
            raise MathParseError(f"expected {value or 'more input'}, got {tok[1] if tok else 'end of input'}")
        self.pos += 1
        return tok

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise MathParseError("expression is nested too deeply")
        if time.monotonic() > self.deadline:
            raise MathParseError("expression took too long to parse")

    def parse(self) -> Any:
        value = self.expr()
        if self.peek() is not None:
            raise MathParseError(f"unexpected {self.peek()[1]!r}")
        return value

    def expr(self) -> Any:
        self.enter()
        value = self.term()
        while (tok := self.peek()) is not None and tok[1] in "+-" and tok[0] == "op":
            self.take()
            right = self.term()
            value = value + right if tok[1] == "+" else value - right
        self.depth -= 1
        return value

    def term(self) -> Any:
        value = self.unary()
        while (tok := self.peek()) is not None:
            if tok[0] == "op" and tok[1] in "*/":
                self.take()
                right = self.unary()
                if tok[1] == "/":
                    if right == 0:
                        raise MathParseError("division by zero")
                    value = value / right
                else:
                    value = value * right
            elif tok[0] in ("num", "name") or tok[1] in "({":
                value = value * self.power()
            else:
                break
        return value

    def unary(self) -> Any:
        tok = self.peek()
        if tok is not None and tok[0] == "op" and tok[1] in "+-":
            self.take()
            self.enter()
            value = self.unary()
            self.depth -= 1
            return -value if tok[1] == "-" else value
        return self.power()

    def power(self) -> Any:
        base = self.atom()
        tok = self.peek()
        if tok is not None and tok[1] == "^":
            self.take()
            self.enter()
            exponent = self.unary()
            self.depth -= 1
            return _bounded_pow(base, exponent)
        return base

    def group(self) -> Any:
        opener = self.take()[1]
        if opener not in "({":
            raise MathParseError(f"expected a group, got {opener!r}")
        value = self.expr()
        self.take(")" if opener == "(" else "}")
        return value

    def atom(self) -> Any:
        tok = self.peek()
        if tok is None:
            raise MathParseError("unexpected end of input")
        kind, value = tok
        if kind == "num":
            self.take()
            if "e" in value.lower() or "." in value:
                return sympy.Rational(str(Fraction(value)))
            return sympy.Integer(int(value))
        if kind == "op" and value in "({":
            return self.group()
        if kind == "op" and value == "|":
            self.take()
            inner = self.expr()
            self.take("|")
            return sympy.Abs(inner)
        if kind == "name":
            self.take()
            if value == "frac":
                num = self.group()
                den = self.group()
                if den == 0:
                    raise MathParseError("division by zero")
                return num / den
            if value in _FUNCTIONS:
                if value == "sqrt" and self.peek() is not None and self.peek()[1] == "[":
                    self.take("[")
                    index = self.expr()
                    self.take("]")
                    if not (index.is_Integer and 2 <= int(index) <= MAX_EXPONENT):
                        raise MathParseError("root index must be a small integer")
                    return sympy.root(self.atom(), index)
                nxt = self.peek()
                if nxt is None:
                    raise MathParseError(f"{value} needs an argument")
                arg = self.group() if nxt[1] in "({" else self.power()
                return _FUNCTIONS[value](arg)
            if value in _CONSTANTS:
                return _CONSTANTS[value]
            return sympy.Symbol(value)
        raise MathParseError(f"unexpected {value!r}")


def _bounded_pow(base: Any, exponent: Any) -> Any:
    """``base ** exponent`` unless it could be expensive: |exponent| <= MAX_EXPONENT (at every sample point when
    it has symbols), and an exact integer power of at most MAX_RESULT_BITS bits."""
    if exponent.is_Rational:
        if abs(exponent) > MAX_EXPONENT:
            raise MathParseError(f"exponent {exponent} is larger than {MAX_EXPONENT}")
        if base.is_Rational and base != 0:
            bits = max(int(base.p).bit_length(), int(base.q).bit_length()) * abs(float(exponent))
            if bits > MAX_RESULT_BITS:
                raise MathParseError("power is too large")
        if base == 0 and exponent < 0:
            raise MathParseError("division by zero")
        return sympy.Pow(base, exponent)
    symbols = sorted(exponent.free_symbols, key=lambda s: s.name)
    points = [_sample_values(symbols, k) for k in range(len(_SAMPLE_POINTS))] if symbols else [{}]
    for values in points:
        try:
            size = abs(complex(exponent.evalf(15, subs=values)))
        except (TypeError, ValueError, OverflowError, ArithmeticError):
            raise MathParseError("exponent cannot be evaluated") from None
        if not size <= MAX_EXPONENT:
            raise MathParseError(f"exponent {exponent} is larger than {MAX_EXPONENT}")
    return sympy.Pow(base, exponent)


def parse_math(text: str) -> Any:
    """Parse a small math expression (plain or simple LaTeX) into a sympy object; raise :class:`MathParseError`.

    Only numbers, single-letter symbols, ``pi e i oo``, ``sqrt exp ln log sin cos tan abs``, ``\\frac``,
    ``\\sqrt[n]``, ``+ - * / ^ ** ( ) { } | |`` and implicit multiplication are accepted; at most
    ``MAX_EXPR_CHARS`` characters, exponents up to ``MAX_EXPONENT``.
    """
    if not isinstance(text, str):
        raise MathParseError("not a string")
    s = normalize_answer(text)
    if not s:
        raise MathParseError("empty expression")
    if len(s) > MAX_EXPR_CHARS:
        raise MathParseError(f"expression longer than {MAX_EXPR_CHARS} characters")
    if THOUSANDS_NUMBER.match(s.replace(" ", "")):
        s = s.replace(",", "")
    tokens = _tokenize(s)
    if any(t == ("op", ",") for t in tokens):
        raise MathParseError("a list is not one expression")
    return _Parser(tokens, time.monotonic() + PARSE_SECONDS).parse()


def _split_top_level(text: str) -> list[str] | None:
    """Split ``(a, b, c)`` / ``a, b`` at top-level commas; None when there is no top-level comma."""
    s = normalize_answer(text)
    if THOUSANDS_NUMBER.match(s.replace(" ", "")):
        return None
    if len(s) >= 2 and s[0] + s[-1] in ("()", "[]", "{}"):
        s = s[1:-1]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(s):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(s[start:i])
            start = i + 1
    if not parts:
        return None
    parts.append(s[start:])
    return [p.strip() for p in parts]


def _sample_values(symbols: list[Any], k: int) -> dict[Any, Any]:
    """Deterministic, non-integer values for ``symbols`` (the k-th sample point)."""
    point = _SAMPLE_POINTS[k]
    return {sym: sympy.Rational(point.numerator + (j + k) * point.denominator, point.denominator)
            for j, sym in enumerate(symbols)}


def _close(a: Any, b: Any, rel_tol: float, values: dict[Any, Any] | None = None) -> bool:
    try:
        va = sympy.N(a, 30, subs=values) if values else sympy.N(a, 30)
        vb = sympy.N(b, 30, subs=values) if values else sympy.N(b, 30)
        if not (va.is_number and vb.is_number) or va.has(sympy.nan, sympy.zoo) or vb.has(sympy.nan, sympy.zoo):
            return False
        ca, cb = complex(va), complex(vb)
        return abs(ca - cb) <= rel_tol * max(1.0, abs(cb))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, ArithmeticError):
        return False


def _symbolic_match(given: str, expected: str, rel_tol: float) -> bool:
    try:
        a, b = parse_math(given), parse_math(expected)
    except (MathParseError, TypeError, ValueError, ZeroDivisionError, OverflowError, ArithmeticError, RecursionError):
        return False
    if a.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan) or b.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
        return bool(a == b)
    names_a = {s.name for s in a.free_symbols}
    names_b = {s.name for s in b.free_symbols}
    if names_a != names_b:
        return False
    tol = max(rel_tol, 1e-12)
    if not names_a:
        return _close(a, b, tol)
    symbols = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    return all(_close(a, b, tol, _sample_values(symbols, k)) for k in range(len(_SAMPLE_POINTS)))


def answers_match(given: str, expected: str, *, rel_tol: float = 1e-9) -> bool:
    """True if ``given`` equals ``expected``: as normalised text, as exact numbers, numerically within ``rel_tol``,
    or symbolically (``2\\sqrt{2}`` vs ``sqrt(8)``, ``\\frac{x}{2}`` vs ``x/2``). Lists compare element-wise."""
    if not isinstance(given, str) or not isinstance(expected, str):
        return False
    if len(given) > 4 * MAX_EXPR_CHARS:
        return False
    ng, ne = normalize_answer(given), normalize_answer(expected)
    if ng == ne and ng:
        return True
    a, b = to_number(given), to_number(expected)
    if a is not None and b is not None:
        if a == b:
            return True
        try:
            return abs(float(a) - float(b)) <= rel_tol * max(1.0, abs(float(b)))
        except OverflowError:
            return False
    parts_g, parts_e = _split_top_level(given), _split_top_level(expected)
    if parts_g is not None or parts_e is not None:
        if parts_g is None or parts_e is None or len(parts_g) != len(parts_e):
            return False
        return all(answers_match(g, e, rel_tol=rel_tol) for g, e in zip(parts_g, parts_e, strict=True))
    return _symbolic_match(given, expected, rel_tol)
