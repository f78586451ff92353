"""Advantage estimators shared by every trainer backend (docs/design.md §5-6).

All of them work *per role*: rewards of the designer and the agent live on different scales (regret vs task
reward), so a statistic is never pooled across roles.

- GRPO: ``(R - mean_g) / (std_g + eps)`` over each group ``g`` (population std);
- Dr.GRPO: ``R - mean_g`` (no std scaling; the length normalisation is the loss's job and is a constant there);
- SPIRAL's role-conditioned EMA baseline: ``A = R - b_k`` with ``b_k`` read *before* the update
  ``b_k <- decay * b_k + (1 - decay) * R`` (decay 0.95), one baseline per key ``k`` (role, env, seat by default).

Group keys are ``(role, group_id, seat)``: each seat of a two-player game is its own group. Trajectories that are
not trainable (an environment or generation failure, no generated token) get advantage 0 and do not enter any
statistic.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from spade_core.rollout.trajectory import Trajectory
from spade_core.training.errors import TrainingConfigError

Estimator = Literal["grpo", "dr_grpo", "ema"]
ESTIMATORS: tuple[Estimator, ...] = get_args(Estimator)
KEY_FIELDS = ("role", "env_id", "seat", "group_id", "hinted")


def group_key(trajectory: Trajectory) -> tuple[Hashable, ...]:
    """The GRPO group of a trajectory: never mixes roles or seats."""
    return (trajectory.role, trajectory.group_id, trajectory.seat)


def grouped_advantages(rewards: Sequence[float], keys: Sequence[Hashable], *, scale_by_std: bool,
                       eps: float = 1e-6) -> list[float]:
    """``R - mean`` per key, divided by ``std + eps`` when ``scale_by_std`` (GRPO); singletons get 0."""
    if len(rewards) != len(keys):
        raise TrainingConfigError(f"grouped_advantages: {len(rewards)} rewards but {len(keys)} keys")
    members: dict[Hashable, list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        members[key].append(i)
    out = [0.0] * len(rewards)
    for idx in members.values():
        values = [float(rewards[i]) for i in idx]
        mean = math.fsum(values) / len(values)
        std = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
        for i, v in zip(idx, values):
            centred = v - mean
            out[i] = centred / (std + eps) if scale_by_std else centred
    return out


def grpo_advantages(rewards: Sequence[float], keys: Sequence[Hashable], *, eps: float = 1e-6) -> list[float]:
    """GRPO: group-normalised rewards."""
    return grouped_advantages(rewards, keys, scale_by_std=True, eps=eps)


def dr_grpo_advantages(rewards: Sequence[float], keys: Sequence[Hashable]) -> list[float]:
    """Dr.GRPO: group-centred rewards (no std division)."""
    return grouped_advantages(rewards, keys, scale_by_std=False)


class EMABaseline:
    """SPIRAL's role-conditioned baseline: one EMA of returns per key, read before it is updated."""

    def __init__(self, decay: float = 0.95, initial: float = 0.0) -> None:
        if not 0.0 <= decay < 1.0:
            raise TrainingConfigError(f"EMA decay must be in [0, 1), got {decay}")
        self.decay = decay
        self.initial = initial
        self.values: dict[Hashable, float] = {}

    def advantages(self, rewards: Sequence[float], keys: Sequence[Hashable]) -> list[float]:
        """``R - b[key]`` in order, updating ``b[key]`` after each read."""
        if len(rewards) != len(keys):
            raise TrainingConfigError(f"EMABaseline: {len(rewards)} rewards but {len(keys)} keys")
        out = []
        for reward, key in zip(rewards, keys):
            baseline = self.values.get(key, self.initial)
            out.append(float(reward) - baseline)
            self.values[key] = self.decay * baseline + (1.0 - self.decay) * float(reward)
        return out

    def state_dict(self) -> dict[str, Any]:
        """JSON-safe state (keys become lists) for loop checkpoints."""
        return {"decay": self.decay, "initial": self.initial,
                "values": [[list(k) if isinstance(k, tuple) else k, v] for k, v in self.values.items()]}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.decay = float(state["decay"])
        self.initial = float(state["initial"])
        self.values = {tuple(k) if isinstance(k, list) else k: float(v) for k, v in state["values"]}


@dataclass(frozen=True)
class AdvantageConfig:
    """Which estimator and its coefficients. ``ema_key`` must include ``"role"``."""

    estimator: Estimator = "dr_grpo"
    eps: float = 1e-6
    ema_decay: float = 0.95
    ema_key: tuple[str, ...] = ("role", "env_id", "seat")

    def __post_init__(self) -> None:
        if self.estimator not in ESTIMATORS:
            raise TrainingConfigError(f"advantage estimator must be one of {ESTIMATORS}, got {self.estimator!r}")
        if "role" not in self.ema_key:
            raise TrainingConfigError("ema_key must include 'role': baselines are never shared across roles")
        unknown = [k for k in self.ema_key if k not in KEY_FIELDS]
        if unknown:
            raise TrainingConfigError(f"ema_key fields {unknown} are unknown; choose from {KEY_FIELDS}")


@dataclass
class AdvantageEstimator:
    """Computes advantages for a batch of trajectories; holds the EMA state across iterations."""

    config: AdvantageConfig = field(default_factory=AdvantageConfig)

    def __post_init__(self) -> None:
        self.baseline = EMABaseline(self.config.ema_decay)

    def compute(self, trajectories: Sequence[Trajectory]) -> list[float]:
        """One advantage per trajectory (0 for the untrainable ones)."""
        usable = [i for i, t in enumerate(trajectories) if t.trainable]
        rewards = [trajectories[i].reward for i in usable]
        if self.config.estimator == "ema":
            keys = [tuple(getattr(trajectories[i], f) for f in self.config.ema_key) for i in usable]
            values = self.baseline.advantages(rewards, keys)
        else:
            keys = [group_key(trajectories[i]) for i in usable]
            values = grouped_advantages(rewards, keys, scale_by_std=self.config.estimator == "grpo",
                                        eps=self.config.eps)
        out = [0.0] * len(trajectories)
        for i, value in zip(usable, values):
            out[i] = value
        return out

    def state_dict(self) -> dict[str, Any]:
        return {"ema": self.baseline.state_dict()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.baseline.load_state_dict(state["ema"])
