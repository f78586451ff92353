"""Final-answer extraction and equivalence for math environments.

Safe to call from sandboxed environment code: the domain exposes these functions (and nothing else of this
module) as a stand-in through ``spade_sandbox_modules``.
"""

from __future__ import annotations

import re
from fractions import Fraction

_BOXED = re.compile(r"\\boxed\s*\{")
_ANSWER = re.compile(r"(?:final\s+answer|answer)\s*(?:is)?\s*[:=]\s*(.+)", re.IGNORECASE)
_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
_FRACTION = re.compile(r"^([-+]?\d+)\s*/\s*([-+]?\d+)$")


def _boxed_contents(text: str) -> str | None:
    """Contents of the last ``\\boxed{...}`` with balanced braces."""
    matches = list(_BOXED.finditer(text))
    if not matches:
        return None
    start = matches[-1].end()
    depth = 1
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start:i].strip()
    return None


def extract_answer(text: str) -> str | None:
    """The final answer in ``text``: ``\\boxed{...}``, else an ``Answer: ...`` line, else a bare number; or None."""
    if not isinstance(text, str):
        return None
    boxed = _boxed_contents(text)
    if boxed:
        return boxed
    lines = [m.group(1).strip() for m in _ANSWER.finditer(text)]
    if lines:
        return lines[-1].rstrip(".").strip() or None
    stripped = text.strip().rstrip(".")
    if _NUMBER.match(stripped.replace(",", "")) or _FRACTION.match(stripped):
        return stripped
    return None


def to_number(text: str) -> Fraction | None:
    """Parse an integer, decimal, ``a/b`` fraction or ``\\frac{a}{b}`` into an exact Fraction."""
    if not isinstance(text, str):
        return None
    s = text.strip().replace(",", "").replace("$", "").replace(" ", "")
    frac = re.fullmatch(r"\\d?frac\{([-+]?\d+)\}\{([-+]?\d+)\}", s)
    if frac:
        s = f"{frac.group(1)}/{frac.group(2)}"
    m = _FRACTION.match(s)
    if m:
        den = int(m.group(2))
        return None if den == 0 else Fraction(int(m.group(1)), den)
    if _NUMBER.match(s):
        try:
            return Fraction(s)
        except (ValueError, ZeroDivisionError):
            return None
    return None


def answers_match(given: str, expected: str, *, rel_tol: float = 1e-9) -> bool:
    """True if ``given`` equals ``expected`` exactly (normalised) or numerically (within ``rel_tol``)."""
    if not isinstance(given, str) or not isinstance(expected, str):
        return False
    if " ".join(given.split()).lower() == " ".join(expected.split()).lower():
        return True
    a, b = to_number(given), to_number(expected)
    if a is None or b is None:
        return False
    if a == b:
        return True
    return abs(float(a) - float(b)) <= rel_tol * max(1.0, abs(float(b)))
