"""A listed legal move is accepted (part of the ``out_of_rules`` stage: games that list their legal moves).

The property, straight from the games contract (``info['legal_moves']`` lists the moves of the seat to act as the
agent would type them): a move the game lists is never refused. A random legal player (every seat) picks each move
from the list the game showed just before; where the game answers such a move with ``info['format_error']`` or
``action_is_valid`` False, its list and its ``step`` disagree (a list counted from 0 while ``step`` counts from 1, a
list of the other seat's moves), and an agent that trusts the list is refused, or forfeits, for playing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from spade_core.contract.env import LEGAL_MOVES_KEY
from spade_core.validation.adversaries import random_legal
from spade_core.validation.candidate import Candidate
from spade_core.validation.replay import labelled

GAMES = 3
"""Seeds a random legal player plays (every seat) to look for a refused listed move."""
MAX_STEPS = 120
"""Steps one such game plays at most."""


def listed_moves(info: dict[str, Any]) -> set[str] | None:
    """The legal moves the game lists in ``info`` (lower case, stripped), or None where it lists none."""
    legal = info.get(LEGAL_MOVES_KEY)
    if isinstance(legal, list) and legal and all(isinstance(m, str) for m in legal):
        return {m.strip().lower() for m in legal}
    return None


@dataclass(frozen=True)
class RefusedListed:
    """A listed legal move the game refused: where, what, and what the game said."""

    seed: int
    turn: int
    move: str
    said: str


def refused_listed(c: Candidate, seeds: list[int]) -> tuple[RefusedListed | None, int]:
    """The first listed legal move a random legal player saw refused on ``seeds[:GAMES]``, and how many listed moves
    were played (None when every one was accepted)."""
    assert c.manifest is not None
    played = 0
    for seed in seeds[:GAMES]:
        episode = labelled(c.run(seed, random_legal(seed), max_steps=min(MAX_STEPS, c.manifest.max_turns)),
                           "a random legal player at every seat")
        before = [episode.reset_info, *episode.infos]
        for turn, (step, info) in enumerate(zip(episode.steps, episode.infos, strict=False)):
            legal = listed_moves(before[turn])
            if legal is None or step[0].strip().lower() not in legal:
                continue
            played += 1
            if info.get("format_error") is not None or info.get("action_is_valid") is False:
                said = str(info.get("format_error") or step[1])
                return RefusedListed(seed, turn, step[0], said), played
        if episode.error is not None:
            break
    return None, played
