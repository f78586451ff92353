"""Helpers of the scale-out tests (plain functions; fixtures live in ``conftest.py``)."""

from __future__ import annotations

import re
from pathlib import Path

CORPUS = Path(__file__).parent.parent / "validation" / "corpus"
SANDBOXED_NAME = "RayScaleSecret"  # a name no other test registers


def env_id_named(name: str) -> str:
    """The id the session's default store gives a bundled seed environment."""
    from spade_core.gym_bridge import open_store

    return next(r.env_id for r in open_store(None).query(status="accepted") if r.name == name)


def scripted_act(prompt: str) -> str:
    """A deterministic policy for the seed games: the first free tic-tac-toe cell, else a fixed number guess."""
    if "Board" in prompt:
        board = prompt[prompt.rindex("Board"):]
        rows = [line for line in board.splitlines()[1:6] if "|" in line]
        free = [c.strip() for row in rows for c in row.split("|") if re.fullmatch(r"[1-9]", c.strip())]
        if free:
            return free[0]
    return "\\boxed{500}"
