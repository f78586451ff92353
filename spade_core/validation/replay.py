"""Playing a candidate for the stages: the reference's answer format, labelled episodes, replays of recorded
actions, who won a game, and when a win rate is too high to be luck."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from spade_core.validation.adversaries import (
    ActionTemplate,
    enumeration,
    random_legal,
)
from spade_core.validation.episodes import (
    Episode,
    Policy,
    reference_policy,
)

if TYPE_CHECKING:
    pass

from spade_core.validation.candidate import Candidate


def probe_policy(template: ActionTemplate, max_turns: int) -> Policy:
    """A fixed, mostly wrong policy whose episodes exercise the feedback: it enumerates 0, 1, 2, ... in the answer
    format of the reference (the same actions on every seed, so its traces differ only through the task)."""
    return enumeration(template, max_turns).make()


def answer_template(c: Candidate) -> ActionTemplate:
    """The answer format of the reference's actions (its final action for puzzles, its first move for games)."""
    for episode in c.reference_episodes:
        if episode.steps:
            return ActionTemplate.of(episode.steps[-1][0] if single_player(c) else episode.steps[0][0])
    return ActionTemplate()


def single_player(c: Candidate) -> bool:
    return c.manifest is None or c.manifest.players == 1


def labelled(episode: Episode, label: str) -> Episode:
    episode.label = label
    return episode


def seat_winner(info: dict[str, Any], players: int) -> int | None:
    """The winning seat of a finished game: ``info['winner']``, else the unique best of ``info['rewards']``."""
    winner = info.get("winner")
    if isinstance(winner, int) and not isinstance(winner, bool) and 0 <= winner < players:
        return winner
    rewards = info.get("rewards")
    if isinstance(rewards, list) and len(rewards) == players and all(
            isinstance(r, (int, float)) and not isinstance(r, bool) for r in rewards):
        best = max(rewards)
        if rewards.count(best) == 1 and best > min(rewards):
            return rewards.index(best)
    return None


def policy_wins(c: Candidate, policy: Policy, seed: int, label: str, max_steps: int | None = None) -> bool:
    """Whether ``policy`` wins one episode: the task's success, or in a game the seat it plays (``seed`` modulo
    the players; the reference plays the other seats)."""
    assert c.manifest is not None
    if c.manifest.players == 1:
        return labelled(c.run(seed, policy, max_steps=max_steps), label).success
    seat = seed % c.manifest.players
    seats = {p: reference_policy for p in range(c.manifest.players)}
    seats[seat] = policy
    episode = labelled(c.run(seed, reference_policy, seats=seats, max_steps=max_steps), label)
    return episode.error is None and seat_winner(episode.final_info, c.manifest.players) == seat


RANDOM_LEGAL_GAMES = 6
"""Games of random legal moves played on one seed where a game lists its legal moves (:func:`random_legal_games`)."""
RANDOM_LEGAL_LABEL = "random legal moves"


def random_legal_games(c: Candidate, seed: int) -> list[Episode]:
    """:data:`RANDOM_LEGAL_GAMES` games of random legal moves on ``seed``, each to ``max_turns`` (the same draws
    wherever a stage asks: an earlier stage's games on that seed are returned, not played again)."""
    assert c.manifest is not None
    played = [e for e in c.all_episodes if e.seed == seed and e.label == RANDOM_LEGAL_LABEL]
    if played:
        return played
    return [labelled(c.run(seed, random_legal(seed * 1_000 + k), max_steps=c.manifest.max_turns), RANDOM_LEGAL_LABEL)
            for k in c.clock.items(range(RANDOM_LEGAL_GAMES), "random legal games")]


def too_often(wins: int, n: int, limit: float) -> bool:
    """More than ``limit`` of the episodes won, with confidence: the one-sided 95% Wilson lower bound of the win
    rate is above ``limit`` (a policy that wins by luck on a few seeds of a large answer space passes)."""
    if n == 0 or wins == 0:
        return False
    z, p = 1.645, wins / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n) > limit


def replaying(actions: list[str]) -> Policy:
    def policy(env: Any, obs: str, info: dict[str, Any]) -> str:
        return actions[min(env.turn, len(actions) - 1)]

    return policy


def replay_at(c: Candidate, episode: Episode, index: int, action: str) -> tuple[str, float, bool, dict[str, Any]] | None:
    """Replay the episode's first ``index`` actions, then play ``action``: that step's observation, reward,
    ``terminated`` and info (None if the environment failed or ended on the way)."""
    env = c.env()
    env.reset(seed=episode.seed)
    for prefix_action in episode.actions[:index]:
        *_, info = env.step(prefix_action)
        if info.get("sandbox_error") is not None or env.done:
            return None
    obs, reward, terminated, _, info = env.step(action)
    if info.get("sandbox_error") is not None:
        c.shared_env = None
        return None
    return obs, float(reward), terminated, info


def replay_step(c: Candidate, episode: Episode, index: int, action: str) -> tuple[str, float, bool] | None:
    """Replay the episode's first ``index`` actions, then play ``action`` in place of its next one: that step's
    observation, reward and ``terminated`` (None if the environment failed or ended on the way)."""
    played = replay_at(c, episode, index, action)
    return None if played is None else played[:3]


def replay_then(c: Candidate, episode: Episode, action: str) -> dict[str, Any] | None:
    """Replay the episode's actions but the last, then play ``action``; the info of that step (None if the
    environment failed on the way)."""
    played = replay_at(c, episode, len(episode.actions) - 1, action)
    return None if played is None else played[3]


def needed(c: Candidate, episode: Episode, index: int) -> bool:
    """Whether the episode fails without its ``index``-th action (a replay of the others; its last is needed by
    definition, as nothing after it could solve the seed)."""
    if index >= len(episode.actions) - 1:
        return True
    actions = episode.actions[:index] + episode.actions[index + 1:]
    return not c.run(episode.seed, replaying(actions), max_steps=len(actions)).success
