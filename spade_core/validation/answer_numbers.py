"""The one number an answer gives, wherever the answer's form puts it: the whole answer (``\\boxed{42}``, ``-3.50``,
``1,234``) or the one plain number literal in it (``12.5 km``, ``35.24 €``, a tool call's ``"answer": "88.50"``).
Precision probes move it; near misses that leave it unchanged are the same answer."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from spade_core import linear_re
from spade_core.validation.hint_leaks import answer_core, parse_number

MAX_ANSWER_CHARS = 200
"""Only an action this short is read for its number (an answer, a unit-ful value, one finishing tool call)."""

_LITERAL = linear_re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_WHOLE = linear_re.compile(r"-?[0-9]+")


def whole_answer(action: str) -> str | None:
    """The answer of ``action`` (its core: :func:`~spade_core.validation.hint_leaks.answer_core`) when that is a plain
    whole number (``\\boxed{-42}``, ``Answer: 7``), else None."""
    core = answer_core(action)
    return core if _WHOLE.fullmatch(core) else None


@dataclass(frozen=True)
class AnswerNumber:
    """The number an answer gives, where it sits in the action (``start``/``end``) and the decimal places it is
    written with (-1 for a number not written as a plain decimal: ``3.3e-02``, ``1,234``)."""

    value: Fraction
    start: int
    end: int
    places: int


def answer_number(action: str) -> AnswerNumber | None:
    """The number ``action`` answers with, or None when it gives none, several, or a fraction."""
    if len(action) > MAX_ANSWER_CHARS:
        return None
    core = answer_core(action)
    value = parse_number(core)
    if value is not None:
        at = action.rfind(core)
        if "/" in core or at < 0:
            return None
        return AnswerNumber(value, at, at + len(core), _places(core) if _LITERAL.fullmatch(core) else -1)
    found = [m for m in _LITERAL.finditer(action) if _standalone(action, m.start(), m.end())]
    if len(found) != 1:
        return None
    text = found[0].group(0)
    return AnswerNumber(Fraction(text), found[0].start(), found[0].end(), _places(text))


def _standalone(text: str, start: int, end: int) -> bool:
    """Whether the literal at ``text[start:end]`` is a number of its own, not part of a name (``x2``), a longer
    number (``1,234``, ``1.2.3``) or a fraction."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or before in "_./,") and not (after.isalnum() or after in "_/,")


def _places(literal: str) -> int:
    return len(literal.split(".")[1]) if "." in literal else 0
