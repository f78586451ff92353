"""Move parsing and bookkeeping helpers for game environments.

Safe to call from sandboxed environment code: the domain exposes these functions (and nothing else of this
module) as a stand-in through ``spade_sandbox_modules``. None of them raises on any string input.
"""

from __future__ import annotations

from spade_core import linear_re

MAX_MOVE_CHARS = 200
"""A move is a short string; anything longer is a format error, never parsed."""

_WORD = linear_re.compile(r"[a-z]+|-?\d+")
_LABEL = linear_re.compile(r"^[A-Za-z][A-Za-z ]{0,15}:\s*")


def clean_move(text: str, limit: int = MAX_MOVE_CHARS) -> str | None:
    """A move normalised for matching: the last line of the reply, without a leading label (``Move:``,
    ``Guess:``), surrounding quotes, backticks or a final period, in lower case with single spaces; None when
    empty, too long or unprintable."""
    if not isinstance(text, str) or len(text) > limit:
        return None
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return None
    move = _LABEL.sub("", lines[-1], count=1)
    for _ in range(2):  # quotes around a final period, or a period inside quotes
        move = move.strip().rstrip(".!").strip().strip("`'\"*").strip()
    if not move or not all(ch.isprintable() for ch in move):
        return None
    return " ".join(move.lower().split())


def move_tokens(text: str, limit: int = MAX_MOVE_CHARS) -> list[str]:
    """The words and integers of a cleaned move (``"Take 3 from heap 2"`` -> ``["take", "3", "from", "heap",
    "2"]``); empty when the move does not clean."""
    move = clean_move(text, limit)
    if move is None:
        return []
    return _WORD.findall(move)


def move_integers(text: str, limit: int = MAX_MOVE_CHARS) -> list[int]:
    """The integers in a cleaned move, in order (each at most 9 digits, so no huge numbers are built)."""
    return [int(tok) for tok in move_tokens(text, limit) if tok.lstrip("-").isdigit() and len(tok) <= 10]


def safe_echo(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters, unprintable characters (and lone surrogates) shown as ``?``."""
    if not isinstance(text, str):
        return ""
    shown = "".join(ch if ch.isprintable() else "?" for ch in text[:limit])
    return shown + ("..." if len(text) > limit else "")


def zero_sum_rewards(winner: int | None, players: int = 2) -> list[float]:
    """Per-seat final rewards: +1 for the winner, -1 split over the others (a zero sum), all 0 for a draw."""
    if winner is None or not 0 <= winner < players:
        return [0.0] * players
    loss = -1.0 / (players - 1) if players > 1 else 0.0
    return [1.0 if seat == winner else loss for seat in range(players)]
