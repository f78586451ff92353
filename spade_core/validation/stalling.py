"""Stalling is not winning: the ``stalling`` stage (two-player games).

The property: in a game, a seat that only stalls (passes, waits, offers a draw, repeats a no-op) and does not win
earns strictly less than a win pays. Stalling is played at one seat against the reference and at every seat at once
(self-play: when both seats stall, a draw or the turn limit comes; if that pays like a win, self-play learns to pass),
and, where the game lists its legal moves, by both seats choosing legal moves that never end the game
(:func:`prolonging`): a game without a pass reaches its draw or turn limit that way, which must not report success
or pay a seat what a win pays.
A win pays what the winner of a reference-versus-reference game earns (the least of those, or the top of the declared
range when no reference game has a winner). A seat that wins because the other forfeited is not stalling's fault
and is not judged here (a random or constant policy that wins is the ``baselines`` stage's).
"""

from __future__ import annotations

import random
from typing import Any

from spade_core.contract.env import LEGAL_MOVES_KEY, SpadeEnv
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode, Policy, reference_policy
from spade_core.validation.invariants import GIVING_UP
from spade_core.validation.replay import labelled, replaying, seat_winner
from spade_core.validation.report import StageResult, fail_rule, ok

RULE = "a draw or turn limit reached by passing, stalling or dodging every ending earns less than a win"

STALLS = tuple(dict.fromkeys([w for w in GIVING_UP if w != "resign"] + ["wait", "stay", "draw", "offer draw",
                                                                        "check", "no move", ""]))
"""What a stalling seat replies every turn (resigning loses at once: not a stall)."""
SEEDS = 2
"""Seeds every stalling policy plays (one for each seat against the reference, and the self-play stall)."""
MAX_STEPS = 200
"""Steps one stalling game plays at most."""


def seat_returns(episode: Episode, players: int) -> list[float]:
    """What each seat earned over a game: the reward of every step goes to the seat that moved (``player_id`` of the
    info it answered), and a finished game's ``info['rewards']`` gives each seat that did not make the last move its
    final reward."""
    totals = [0.0] * players
    mover = episode.reset_info.get("player_id", 0)
    last = mover
    for step, info in zip(episode.steps, episode.infos, strict=False):
        if isinstance(mover, int) and 0 <= mover < players:
            totals[mover] += step[2]
            last = mover
        mover = info.get("player_id", mover)
    final = episode.final_info.get("rewards")
    if episode.steps and isinstance(final, list) and len(final) == players and all(
            isinstance(r, (int, float)) and not isinstance(r, bool) for r in final):
        for seat in range(players):
            if seat != last:
                totals[seat] += float(final[seat])
    return totals


def win_pays(c: Candidate) -> float:
    """The least a winner of a reference-versus-reference game earns (the declared top when none has a winner)."""
    assert c.manifest is not None
    players = c.manifest.players
    paid = [seat_returns(e, players)[w] for e in c.reference_episodes if e.error is None
            for w in [seat_winner(e.final_info, players)] if w is not None]
    return min(paid) if paid else float(c.manifest.reward_range[1])


def _games(c: Candidate, word: str, seed: int) -> list[tuple[Episode, tuple[int, ...]]]:
    """Games where ``word`` is played every turn: at each seat against the reference, and at every seat; each with
    the seats that stalled."""
    assert c.manifest is not None
    players = c.manifest.players
    steps = min(c.manifest.max_turns, MAX_STEPS)
    stall = replaying([word])
    out = []
    for seat in range(players):
        seats: dict[int, Policy] = {p: reference_policy for p in range(players)}
        seats[seat] = stall
        episode = c.run(seed, reference_policy, seats=seats, max_steps=steps)
        out.append((labelled(episode, f"seat {seat} replying {word!r} every turn against the reference"), (seat,)))
    everyone = c.run(seed, stall, seats={p: stall for p in range(players)}, max_steps=steps)
    out.append((labelled(everyone, f"every seat replying {word!r} every turn"), tuple(range(players))))
    return out


PROLONG_CANDIDATES = 6
"""Legal moves a prolonging seat tries per turn for one that does not end the game."""
PROLONG_BUDGET = 4000
"""Simulated steps one prolonging game may spend looking ahead; past it a seat plays its first candidate."""


def prolonging(sim: SpadeEnv, seed: int) -> Policy:
    """Every seat plays a legal move (``info['legal_moves']``, in a seeded order) after which the game goes on, found
    by replaying the game so far with it on ``sim``, a second instance: both seats steer clear of every ending, so
    the game reaches the draw or the turn limit a game without passes still has (three men's morris shuffling, a race
    held back). A look-ahead that fails counts as an ending."""
    rng = random.Random(seed)
    state: dict[str, Any] = {"history": [], "env": None, "spent": 0}

    def policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
        if state["env"] is not env or env.turn == 0:
            state["env"], state["history"] = env, []
        legal = info.get(LEGAL_MOVES_KEY)
        if not isinstance(legal, list) or not legal or not all(isinstance(m, str) for m in legal):
            return ""
        order = rng.sample(legal, len(legal))[:PROLONG_CANDIDATES]
        chosen = order[0]
        for move in order:
            if state["spent"] + len(state["history"]) + 1 > PROLONG_BUDGET:
                break
            state["spent"] += len(state["history"]) + 1
            if _goes_on(sim, seed, state["history"], move):
                chosen = move
                break
        state["history"].append(chosen)
        return chosen

    return policy


def _goes_on(sim: SpadeEnv, seed: int, history: list[str], move: str) -> bool:
    """Whether the game ``history`` then ``move`` has not ended (replayed on ``sim``; a failure is an ending)."""
    try:
        sim.reset(seed=seed)
        for past in history:
            sim.step(past)
        _, _, terminated, truncated, info = sim.step(move)
    except Exception:  # the candidate's own failure in a look-ahead: not a move that goes on
        return False
    return not (terminated or truncated or info.get("sandbox_error") is not None)


def check_stalling(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "stalling"
    players = c.manifest.players
    if players == 1:
        return ok(stage, "single-player: the reward rule and read_only stages judge passing and repeating")
    win = win_pays(c)
    played = 0
    for seed in c.config.seeds[:SEEDS]:
        for word in STALLS:
            for episode, stalled in _games(c, word, seed):
                played += 1
                if episode.error is not None:
                    continue
                winner = seat_winner(episode.final_info, players)
                returns = seat_returns(episode, players)
                for seat in stalled:
                    if seat != winner and returns[seat] >= win - 1e-9:
                        ending = "a draw" if episode.finished else f"the turn limit ({len(episode.steps)} turns)"
                        return fail_rule(stage, f"seed {seed}: {episode.label} reaches {ending}; seat {seat} earns "
                                         f"{returns[seat]:g} without winning, at least what a win pays ({win:g})",
                                         ["a draw or the turn limit pays like a win", "passing or waiting is "
                                          "rewarded every turn"],
                                         ["pay a draw strictly less than a win (e.g. 0 against +1/-1)",
                                          "pay nothing for passing; end a game of passes as a draw worth less"],
                                         rule=RULE, earned=round(returns[seat], 4), win=round(win, 4))
    seed = c.config.seeds[0]
    sim = c.new_env()
    try:
        policy = prolonging(sim, seed)
        episode = labelled(c.run(seed, policy, seats={p: policy for p in range(players)},
                                 max_steps=min(c.manifest.max_turns, MAX_STEPS)),
                           "every seat steering clear of every ending")
    finally:
        sim.close()
    played += 1
    winner = seat_winner(episode.final_info, players)
    if episode.error is None and winner is None:
        returns = seat_returns(episode, players)
        rich = [seat for seat in range(players) if returns[seat] >= win - 1e-9]
        if rich or episode.final_info.get("success") is True:
            ending = "a draw" if episode.finished else f"the turn limit ({len(episode.steps)} turns)"
            who = f"seat {rich[0]} earns {returns[rich[0]]:g}" if rich else "its last move reports success"
            return fail_rule(stage, f"seed {seed}: {episode.label} reaches {ending}; {who} without winning (a win "
                             f"pays {win:g})", ["a draw or the turn limit is scored like a win"],
                             ["on a draw set info['success'] = False and pay less than a win (e.g. 0 to every seat)"],
                             rule=RULE)
    return ok(stage, f"{played} stalling games (pass, wait, draw offers, ... at one seat and at every seat): no seat "
              f"that does not win earns the {win:g} a win pays")
