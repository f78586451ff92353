"""Moves outside the stated rules do not win: the ``out_of_rules`` stage (label answers: games' moves).

The property: a player that only makes moves outside the legal set the game itself states does not win on most
seeds. The legal set is ``info['legal_moves']`` where the game lists it, else the numbers its observation allows
("take 1, 2 or 3", "1 to 6", "between 1 and 9"); a move is outside it when it is not listed, or when a number in it is
not allowed (with no stated range, only numbers of 100,000 or more are out of range). The moves tried are the
reference's own moves with their number replaced (in the reference's format: ``move 3`` -> ``move 999999``) by
extreme values and by each number the first observation shows (the target, the goal cell), and the reference's last
move played first (a jump straight to the end). Every turn the player makes the next of them that is outside the
rules then; it stops when none is. A game that accepts them (a clamped step, a jump to the target, an unchecked
count) is won this way; a sound one refuses each, and the player never wins.
"""

from __future__ import annotations

from typing import Any

from spade_core import linear_re
from spade_core.contract.env import LEGAL_MOVES_KEY
from spade_core.validation.adversaries import MAX_OBSERVATION_CHARS, ActionTemplate
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode, begin, reference_policy, take_step
from spade_core.validation.replay import labelled, seat_winner, too_often
from spade_core.validation.report import StageResult, fail_rule, ok

RULE = "moves outside the stated rules (out-of-range numbers, a jump to the target) never win"

EXTREMES = ("999999", "-999999", "-1", "0", "99")
"""Values put where the reference's moves put their number."""
HUGE = 100_000
"""A number this large is out of range even where the game states no range."""
SEEDS = 8
"""Seeds the out-of-rules player plays."""
MAX_GOALS = 6
"""Numbers of the first observation tried as moves at most."""

_INT = linear_re.compile(r"-?[0-9]+")
_LIST = linear_re.compile(r"([0-9]+)((?:, [0-9]+)*),? or ([0-9]+)")
_SPAN = linear_re.compile(r"(?i)(?:between )?([0-9]+) (?:to|and) ([0-9]+)|([0-9]+)-([0-9]+)")


def stated_numbers(obs: str) -> set[int] | None:
    """The numbers the observation allows ("1, 2 or 3", "1 to 6", "between 1 and 9", "1-3"); None when it states
    none."""
    obs = obs[:MAX_OBSERVATION_CHARS]
    allowed: set[int] = set()
    for match in _LIST.finditer(obs):
        allowed.update(int(n) for n in _INT.findall(match.group()))
    for match in _SPAN.finditer(obs):
        low, high = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        a, b = int(low), int(high)
        if a <= b and b - a <= 10_000:
            allowed.update(range(a, b + 1))
    return allowed or None


def outside_rules(action: str, obs: str, info: dict[str, Any]) -> bool:
    """Whether ``action`` is outside the legal set the game states before it (see the module's docstring)."""
    legal = info.get(LEGAL_MOVES_KEY)
    if isinstance(legal, list) and legal and all(isinstance(m, str) for m in legal):
        return action.strip().lower() not in {m.strip().lower() for m in legal}
    numbers = [int(n) for n in _INT.findall(action)]
    if any(abs(n) >= HUGE for n in numbers):
        return True
    allowed = stated_numbers(obs)
    return allowed is not None and any(n not in allowed for n in numbers)


def candidates(reference: Episode) -> list[str]:
    """The moves tried: the reference's moves with extreme values and the first observation's numbers in place of
    their number, and its last move."""
    goals = list(dict.fromkeys(_INT.findall(reference.reset_obs[:MAX_OBSERVATION_CHARS])))[:MAX_GOALS]
    templates = [t for t in dict.fromkeys(ActionTemplate.of(a) for a in reference.actions) if not t.raw] or \
        [ActionTemplate()]
    out = [t.render(v) for t in templates for v in (*EXTREMES, *goals)]
    return list(dict.fromkeys([*out, *reference.actions[-1:]]))


def play_outside(c: Candidate, seed: int, moves: list[str], seat: int) -> tuple[Episode, int]:
    """``seat`` makes, every turn, the next of ``moves`` outside the rules then (the reference plays the other
    seats); stops when none is. Returns the episode and how many out-of-rules moves were made."""
    assert c.manifest is not None
    env = c.env()
    episode = Episode(seed=seed, label="moves outside the stated rules")
    started = begin(env, episode)
    if started is None:
        return episode, 0
    obs, info = started
    made = 0
    for _ in range(c.manifest.max_turns):
        if info.get("player_id", 0) != seat:
            action = reference_policy(env, obs, info)
        else:
            start = made % len(moves)
            order = moves[start:] + moves[:start]
            action = next((m for m in order if outside_rules(m, obs, info)), None)
            if action is None:
                break
            made += 1
        obs, info, over = take_step(env, episode, obs, action)
        if over:
            break
    if episode.error is not None:
        c.shared_env = None
    c.all_episodes.append(episode)
    return episode, made


def check_out_of_rules(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "out_of_rules"
    players = c.manifest.players
    references = [e for e in c.reference_episodes if e.error is None and e.steps][:SEEDS]
    if not references:
        return ok(stage, "no reference episode to take moves from")
    won: list[tuple[Episode, int]] = []
    played = 0
    for reference in references:
        seat = reference.reset_info.get("player_id", 0) if players > 1 else 0
        episode, made = play_outside(c, reference.seed, candidates(reference), seat)
        if not made or episode.error is not None:
            continue
        played += 1
        labelled(episode, f"seat {seat} making only moves outside the stated rules" if players > 1 else
                 "making only moves outside the stated rules")
        wins = episode.success if players == 1 else seat_winner(episode.final_info, players) == seat
        if wins:
            won.append((episode, seat))
    limit = c.config.out_of_rules_max_share
    if too_often(len(won), played, limit):
        episode, seat = won[0]
        moves = ", ".join(repr(a[:30]) for a in episode.actions[:4])
        return fail_rule(stage, f"seed {episode.seed}: {episode.label} wins ({moves}); {len(won)} of {played} such "
                         f"games won, at most {limit:.0%} allowed",
                         ["a number outside the stated range is accepted (clamped to the end, taken as is)",
                          "a move straight to the target is accepted without checking it is legal"],
                         ["check every move against the rules before applying it; refuse it as invalid otherwise"],
                         rule=RULE, wins=f"{len(won)}/{played}", allowed=limit)
    return ok(stage, f"{played} games of moves outside the stated rules: {len(won)} won")
