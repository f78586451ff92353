"""A refused move keeps the turn: two-player games (part of the ``out_of_rules`` stage).

The property: where a game refuses a move (``info['format_error']``, or ``info['action_is_valid']`` False) and goes
on, the seat to act next (``info['player_id']``) is the seat that sent it. The contract counts three invalid moves
in a row by one seat as a forfeit, so until then that seat plays again; a game that hands the turn over lets a seat
sending junk give its opponent two moves in a row, and a cheap policy wins by passing.
"""

from __future__ import annotations

from dataclasses import dataclass

from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode
from spade_core.validation.replay import replay_at

SEEDS = 3
"""Reference games junk is sent in."""
TURNS = 4
"""Turns of each game (its first ones) at which junk is sent instead of the reference's move."""
JUNK = ("pass", "zzz 0")
"""Moves sent in place of the reference's: a word most games do not have, and text no game has."""


@dataclass(frozen=True)
class HandedOver:
    seed: int
    turn: int
    move: str
    seat: int
    next_seat: int


def _seat_before(reference: Episode, turn: int) -> object:
    return reference.reset_info.get("player_id") if turn == 0 else reference.infos[turn - 1].get("player_id")


def handed_over(c: Candidate, references: list[Episode]) -> tuple[HandedOver | None, int]:
    """The first refused move after which another seat is to act, and how many refused moves were judged."""
    judged = 0
    for reference in references[:SEEDS]:
        for turn in range(min(TURNS, len(reference.steps) - 1)):
            seat = _seat_before(reference, turn)
            if not isinstance(seat, int) or isinstance(seat, bool):
                continue
            for move in JUNK:
                played = replay_at(c, reference, turn, move)
                if played is None:
                    continue
                _, _, terminated, info = played
                refused = info.get("format_error") is not None or info.get("action_is_valid") is False
                if not refused or terminated:
                    continue
                judged += 1
                after = info.get("player_id")
                if isinstance(after, int) and not isinstance(after, bool) and after != seat:
                    return HandedOver(reference.seed, turn, move, seat, after), judged
    return None, judged
