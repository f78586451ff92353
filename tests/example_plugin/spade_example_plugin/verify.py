"""The tally domain's verification helpers, importable from sandboxed environment code (the plugin exposes exactly
these names through ``spade_sandbox_modules``).

A count is a whole number written as ``\\boxed{7}``, ``Answer: 7``, ``7`` or ``7.0``: every spelling of the same
value reads the same, and anything else (two numbers, a fraction that is not whole, words) reads as no count.
"""

from __future__ import annotations

import re
from fractions import Fraction

MAX_REPLY_CHARS = 4000
"""Longer replies are not read (a count is short)."""
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_LABEL = re.compile(r"^\s*(?:final\s+)?(?:answer|count|total)\s*[:=]\s*", re.IGNORECASE)
_NUMBER = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def read_count(text: str) -> int | None:
    """The whole number ``text`` answers with (the last ``\\boxed{}`` if there is one), or None when it gives no
    single whole number (``"6, 7, 8"``, ``"7.5"``, ``"seven"`` and ``"1e3"`` all read as None)."""
    if not isinstance(text, str) or len(text) > MAX_REPLY_CHARS:
        return None
    boxed = _BOXED.findall(text)
    core = boxed[-1] if boxed else _LABEL.sub("", text.strip(), count=1)
    core = core.strip().rstrip(".").strip()
    if not _NUMBER.fullmatch(core):
        return None
    value = Fraction(core)
    return int(value) if value.denominator == 1 else None


def safe_echo(text: str, limit: int = 40) -> str:
    """The agent's reply shortened to ``limit`` printable characters, for quoting it back in feedback."""
    if not isinstance(text, str):
        return ""
    shown = "".join(ch if ch.isprintable() else "?" for ch in text[:limit])
    return shown + ("..." if len(text) > limit else "")
