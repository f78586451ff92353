"""What a seat earns over a game: the ``seat_returns`` stage (two-player games).

The property every good game has: the declared ``reward_range`` bounds what one seat earns over a whole game (the
rewards of the moves it made, and its share of the final ``info['rewards']``), and a seat that another seat beat
earns less than the top of that range; and a seat that replies only malformed text against the reference earns no
more than a beaten seat does (it forfeits or loses; a game where garbage never ends the game, so a seat about to
lose can reach the turn limit's draw by typing nonsense, fails). A game that pays the top reward for a move that does not end the game (a
bet, a placed piece, a step along a race) breaks both: a seat that plays many ordinary moves out-earns any win, and
a loser who moved often earns more than the winner, so self-play learns to prolong games instead of winning them.

It is judged on played games: the reference against itself on the seeds the reference stage played, and a random
legal player at each seat against the reference on :data:`SEEDS` seeds. Stalling (passing to a draw or the turn
limit) is the ``stalling`` stage's; a single task's rewards are the ``reward_range`` and ``reward_rule`` stages'.
"""

from __future__ import annotations

from spade_core.validation.adversaries import random_legal
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode, Policy, reference_policy
from spade_core.validation.replay import labelled, seat_winner
from spade_core.validation.report import StageResult, fail_rule, ok
from spade_core.validation.stalling import seat_returns

RULE = ("games: a seat earns at most the top of reward_range per game, a beaten seat less, one sending only "
        "malformed text no more than a beaten one")

MALFORMED = "???"
"""What a seat that only sends malformed text replies every turn."""

SEEDS = 3
"""Seeds a random legal player plays at each seat against the reference."""
SLACK = 1e-9
"""Rounding a sum of float rewards may add."""


def _games(c: Candidate) -> list[Episode]:
    """The reference's own games, then a random legal player at each seat against the reference, and a seat
    replying only :data:`MALFORMED` at each seat (labelled as such)."""
    assert c.manifest is not None
    players = c.manifest.players
    games = [e for e in c.reference_episodes if e.steps]
    for seed in c.clock.items(list(c.config.seeds[:SEEDS]), "seeds"):
        for seat in range(players):
            seats: dict[int, Policy] = {p: reference_policy for p in range(players)}
            seats[seat] = random_legal(seed)
            games.append(labelled(c.run(seed, reference_policy, seats=seats, max_steps=c.manifest.max_turns),
                                  f"a random legal player at seat {seat} against the reference"))
            seats[seat] = _malformed
            games.append(labelled(c.run(seed, reference_policy, seats=seats, max_steps=c.manifest.max_turns),
                                  f"seat {seat} replying {MALFORMED!r} every turn against the reference"))
    return games


def _malformed(env: object, obs: str, info: dict[str, object]) -> str:
    return MALFORMED


def _beaten_pays(games: list[Episode], players: int) -> float | None:
    """The most a beaten seat earns in ``games`` (None when no game has a winner)."""
    paid = [returns[seat] for e in games if e.error is None for w in [seat_winner(e.final_info, players)]
            if w is not None for returns in [seat_returns(e, players)] for seat in range(players) if seat != w]
    return max(paid) if paid else None


def _excess(episode: Episode, players: int, top: float) -> tuple[int, float, str] | None:
    """The first seat whose return breaks the rule in ``episode`` (seat, return, what it breaks), or None."""
    winner = seat_winner(episode.final_info, players)
    for seat, earned in enumerate(seat_returns(episode, players)):
        if earned > top + SLACK:
            return seat, earned, f"more than the top of reward_range ({top:g})"
        if winner is not None and seat != winner and earned >= top - SLACK:
            return seat, earned, f"although seat {winner} won, as much as the top of reward_range ({top:g})"
    return None


def check_seat_returns(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "seat_returns"
    players = c.manifest.players
    if players == 1:
        return ok(stage, "single-player: the reward_range and reward_rule stages judge what an episode earns")
    top = float(c.manifest.reward_range[1])
    games = _games(c)
    played = [e for e in games if MALFORMED not in e.label]
    for episode in played:
        if episode.error is not None:
            continue
        found = _excess(episode, players, top)
        if found is not None:
            seat, earned, breaks = found
            who = episode.label if episode.label not in ("", "reference") else "the reference against itself"
            return fail_rule(stage, f"seed {episode.seed}: in a game of {len(episode.steps)} moves ({who}) seat "
                             f"{seat} earns {earned:g} in total, {breaks}",
                             ["a move that does not end the game pays a reward (a bet, a placed piece, a step "
                              "forward)", "rewards add up over the moves instead of paying the outcome once"],
                             ["pay 0 for every move that does not end the game and the outcome (e.g. +1/-1/0) when "
                              "it ends", "if moves earn credit, make one game's credits add up to less than a win"],
                             rule=RULE, seat=seat, earned=round(earned, 4), top=top)
    beaten = _beaten_pays(played, players)
    for episode in [e for e in games if MALFORMED in e.label] if beaten is not None else []:
        seat = int(episode.label.split()[1])
        earned = seat_returns(episode, players)[seat]
        if episode.error is None and earned > beaten + SLACK:
            ending = "the game ends" if episode.finished else f"the turn limit ({len(episode.steps)} turns)"
            return fail_rule(stage, f"seed {episode.seed}: {episode.label}: {ending}; seat {seat} earns {earned:g}, "
                             f"more than a beaten seat ever earns ({beaten:g})",
                             ["malformed moves are refused but never forfeit, so the game cannot end while one "
                              "seat types nonsense", "a malformed move is treated as a draw offer or a pass"],
                             ["forfeit the game after a few malformed moves in a row (e.g. 3), paying the loss"],
                             rule=RULE, seat=seat, earned=round(earned, 4), beaten=round(beaten, 4))
    return ok(stage, f"{len(games)} games (the reference against itself, a random legal player and a seat replying "
              f"{MALFORMED!r} at each seat): no seat earns more than {top:g} over a game, no beaten seat as much, and "
              "malformed text never earns more than losing")
