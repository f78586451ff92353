"""Final-answer extraction, normalisation and exact numbers for math environments: plain Python, no ``sympy``.

The domain plugin parses every agent action with :func:`extract_answer`, and plugin discovery runs at
``import spade_core``, so this module must stay cheap to import. Symbolic equivalence (``sympy``) is in
:mod:`spade_domains.math.verify`, which re-exports these functions for environment code.
"""

from __future__ import annotations

from fractions import Fraction

from spade_core import linear_re

_BOXED = linear_re.compile(r"\\(?:boxed|fbox)\s*\{")
_ANSWER = linear_re.compile(r"(?i)(?:final\s+answer|answer)\s*(?:is\s*[:=]?|[:=])\s*(.+)")
_NUMBER = linear_re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,3})?$")
_FRACTION = linear_re.compile(r"^([-+]?\d+)\s*/\s*([-+]?\d+)$")
THOUSANDS_NUMBER = linear_re.compile(r"^[-+]?\d{1,3}(,\d{3})+(\.\d+)?$")

MAX_EXPR_CHARS = 200
"""Longer answers are compared as strings only; they never reach the symbolic parser."""


# -- extraction ----------------------------------------------------------------------------------------------
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
        return lines[-1].rstrip(".").strip().strip("$").strip() or None
    stripped = text.strip().rstrip(".")
    if len(stripped) <= 64 and (_NUMBER.match(stripped.replace(",", "")) or _FRACTION.match(stripped)):
        return stripped
    return None


# -- normalisation -------------------------------------------------------------------------------------------
_DROP = (r"\left", r"\right", r"\!", r"\,", r"\;", r"\:", r"\ ", "$", r"\displaystyle", r"\%", "%", "°")
_TEXT_BLOCK = linear_re.compile(r"\\(?:text|mathrm|textbf|mbox)\s*\{([^{}]*)\}")
_VAR_PREFIX = linear_re.compile(r"^[A-Za-z]\s*=\s*(\S)")
_FRAC = linear_re.compile(r"\\frac\{([-+]?\d+)\}\{([-+]?\d+)\}")
_DEGREES = linear_re.compile(r"\^\s*\{?\s*\\circ\s*\}?")


def normalize_answer(text: str) -> str:
    """A canonical spelling of an answer: no ``$``, spacing macros, units in ``\\text{}``, ``x =`` prefix or ``%``."""
    if not isinstance(text, str):
        return ""
    s = text.strip()
    s = _DEGREES.sub("", s)
    whole = _TEXT_BLOCK.fullmatch(s)
    if whole:
        s = whole.group(1)
    else:
        s = _TEXT_BLOCK.sub(lambda m: "" if m.group(1).strip().isalpha() or not m.group(1).strip() else m.group(1), s)
    for token in _DROP:
        s = s.replace(token, "")
    s = s.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    s = _VAR_PREFIX.sub(r"\1", s.strip())
    s = " ".join(s.split()).rstrip(".").strip()
    return s.lower() if s.isalpha() else s


def to_number(text: str) -> Fraction | None:
    """Parse an integer, decimal, ``a/b`` fraction or ``\\frac{a}{b}`` into an exact Fraction."""
    if not isinstance(text, str) or len(text) > MAX_EXPR_CHARS:
        return None
    s = normalize_answer(text).replace(" ", "")
    if THOUSANDS_NUMBER.match(s):
        s = s.replace(",", "")
    sign = ""
    if s[:1] in "+-" and s[1:2] == "\\":
        sign, s = s[0], s[1:]
    frac = _FRAC.fullmatch(s)
    if frac:
        s = f"{frac.group(1)}/{frac.group(2)}"
    m = _FRACTION.match(s)
    value: Fraction | None = None
    if m:
        den = int(m.group(2))
        value = None if den == 0 else Fraction(int(m.group(1)), den)
    elif _NUMBER.match(s):
        try:
            value = Fraction(s)
        except (ValueError, ZeroDivisionError):
            value = None
    if value is not None and sign == "-":
        value = -value
    return value


def safe_echo(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters with unprintable ones (and lone surrogates) shown as ``?``.

    For echoing an agent's answer back in an observation without copying megabytes or unencodable text.
    """
    if not isinstance(text, str):
        return ""
    cut = text[:limit]
    shown = "".join(ch if ch.isprintable() else "?" for ch in cut)
    return shown + ("..." if len(text) > limit else "")


_NUMBER_TOKEN = linear_re.compile(r"-?\d+(?:\.\d+)?(?:/\d+)?")


def mentions_answer(text: str, answer: str) -> bool:
    """True if ``text`` gives ``answer`` away: it contains the normalised answer, or a number equal to it.

    Use it to keep a privileged hint clean: ``if mentions_answer(hint, str(answer)): hint = <a plan instead>``.
    """
    if not isinstance(text, str) or not isinstance(answer, str):
        return False
    squash = "".join(normalize_answer(text).lower().split())
    target = "".join(normalize_answer(answer).lower().split())
    if target and target in squash:
        return True
    value = to_number(answer)
    if value is None:
        return False
    for token in _NUMBER_TOKEN.findall(text.replace(",", "")):
        number = to_number(token)
        if number is not None and (number == value or number == -value):
            return True
    return False
