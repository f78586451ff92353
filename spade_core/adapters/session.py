"""One episode of a registry environment played by an outside trainer or client (TRL, OpenEnv, verifiers).

The learner holds one seat; in multi-player games every other seat is played by the environment's reference solver,
so the learner only ever sees its own turns. Rewards and success follow the episode runner's rules (per-seat rewards
from ``info["rewards"]`` at the end of a game, ``info["winner"]`` decides success), so an adapter scores a rollout
exactly as SPADE's own trainer would. The privileged hint reaches the learner only in a hinted episode, appended to the
observation in the runner's format; nothing else privileged (the reference solver, the verifier) is exposed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from spade_core.contract.env import HINT_OPTION, LEGAL_MOVES_KEY, SpadeEnv
from spade_core.errors import SpadeError
from spade_core.rollout.specs import HINT_TEMPLATE

PUBLIC_INFO_KEYS = ("success", "format_error", "action_is_valid", "turn", LEGAL_MOVES_KEY)
"""The ``info`` keys a learner may see; everything else an environment returns stays on the server side."""
MAX_OPPONENT_MOVES = 10_000
"""A game whose scripted seats never hand the turn back to the learner is ended after this many opponent moves."""


class SessionError(SpadeError):
    """A session was used out of order (step before reset, step after the end) or given an unknown environment."""


@dataclass
class StepOutcome:
    """What the learner sees after one action: the next observation (hint included when hinted) and the episode's
    running totals from the learner seat's point of view."""

    observation: str
    reward: float
    done: bool
    success: bool
    info: dict[str, Any] = field(default_factory=dict)


def make_registry_env(env_id: str) -> SpadeEnv:
    """The checked ``SpadeEnv`` behind a ``spade/<Name>-v<N>`` id, with a clear error for an unknown id."""
    if env_id not in gym.registry:
        raise SessionError(f"unknown environment {env_id!r}: `spade list` shows the registered ids")
    env = gym.make(env_id, disable_env_checker=True).unwrapped
    if not isinstance(env, SpadeEnv):
        raise SessionError(f"{env_id!r} is not a SPADE environment (got {type(env).__name__})")
    return env


class EpisodeSession:
    """One learner's episodes on one environment at a time; ``reset`` may switch environments."""

    def __init__(self, *, learner_seat: int = 0) -> None:
        self.learner_seat = learner_seat
        self.env: SpadeEnv | None = None
        self.env_id: str | None = None
        self.hinted = False
        self.seed: int | None = None
        self.total_reward = 0.0
        self.success = False
        self.done = True
        self.turns = 0
        self.info: dict[str, Any] = {}
        """The public ``info`` of the learner's latest observation (``legal_moves`` in games, say)."""

    # -- episode ------------------------------------------------------------------------------------------
    def reset(self, env_id: str, seed: int, *, hint: bool = False) -> str:
        """Start an episode; returns the learner's first observation (with the hint when ``hint``)."""
        if self.env is None or env_id != self.env_id:
            self.close()
            self.env, self.env_id = make_registry_env(env_id), env_id
        self.hinted, self.seed = bool(hint), int(seed)
        self.total_reward, self.success, self.done, self.turns = 0.0, False, False, 0
        obs, info = self.env.reset(seed=self.seed, options={HINT_OPTION: True} if self.hinted else None)
        self.info = self.public_info(info)
        obs = self._play_opponents(obs, info)
        return self._shown(obs)

    def step(self, action: str) -> StepOutcome:
        """Play the learner's action, then every scripted seat until the learner is to act or the game ends."""
        if self.env is None or self.done:
            raise SessionError("step() needs a running episode: call reset(env_id, seed) first"
                               if self.env is None else "the episode has ended: call reset() for a new one")
        self.turns += 1
        obs, info = self._apply(str(action), mover=self.learner_seat)
        if not self.done:
            obs = self._play_opponents(obs, info)
        shown = "" if self.done and not obs else self._shown(obs)
        return StepOutcome(shown, self.total_reward, self.done, self.success, self.info)

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
        self.env, self.env_id, self.done = None, None, True

    # -- helpers ----------------------------------------------------------------------------------------------
    @property
    def num_seats(self) -> int:
        return int(getattr(self.env.manifest, "players", 1) or 1) if self.env is not None else 1

    @staticmethod
    def public_info(info: dict[str, Any]) -> dict[str, Any]:
        return {key: info[key] for key in PUBLIC_INFO_KEYS if key in info}

    def _apply(self, action: str, *, mover: int) -> tuple[str, dict[str, Any]]:
        """One environment step by ``mover``, with the runner's reward bookkeeping for the learner seat."""
        assert self.env is not None
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.info = self.public_info(info)
        if terminated or truncated:
            self._settle(mover, float(reward), info)
            self.done = True
        elif mover == self.learner_seat:
            self.total_reward += float(reward)
        return obs, info

    def _settle(self, mover: int, reward: float, info: dict[str, Any]) -> None:
        rewards = info.get("rewards")
        if isinstance(rewards, list) and len(rewards) >= self.num_seats > 1:
            self.total_reward += float(rewards[self.learner_seat])
        elif mover == self.learner_seat:
            self.total_reward += reward
        if "winner" in info and self.num_seats > 1:
            self.success = info.get("winner") == self.learner_seat
        else:
            self.success = bool(info.get("success", False)) and mover == self.learner_seat

    def _acting(self, info: dict[str, Any]) -> int:
        player = info.get("player_id")
        return player if isinstance(player, int) and not isinstance(player, bool) else self.learner_seat

    def _play_opponents(self, obs: str, info: dict[str, Any]) -> str:
        """Scripted seats move until the learner is to act; their observations are not the learner's."""
        assert self.env is not None
        moves = 0
        while self.num_seats > 1 and not self.done and self._acting(info) != self.learner_seat:
            moves += 1
            if moves > MAX_OPPONENT_MOVES:
                raise SessionError(f"{self.env_id}: the scripted seats made {MAX_OPPONENT_MOVES} moves without "
                                   f"handing the turn to seat {self.learner_seat}")
            obs, info = self._apply(self.env.reference_action(), mover=self._acting(info))
        return obs

    def _shown(self, obs: str) -> str:
        if not self.hinted or self.done or self.env is None:
            return obs
        return f"{obs}\n\n{HINT_TEMPLATE.format(hint=self.env.privileged_hint())}"
