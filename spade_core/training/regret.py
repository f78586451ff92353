"""Regret of an environment: how much the privileged hint helps the current agent (the designer's reward).

For one environment, K paired rollouts play the same seeds with and without the hint. With ``h_i, u_i`` the
outcomes (success in [0, 1]) of pair ``i``:

- ``p_hint`` and ``p_nohint`` are Beta(alpha, beta) posterior means (Beta(1, 1) by default): with K = 8 a raw
  frequency is too noisy to rank environments on;
- ``regret = p_hint - p_nohint`` (the shrunk paired difference; ``raw_regret`` is the plain mean of ``h_i - u_i``);
- ``std_error`` is the paired standard error ``sqrt((v_h + v_u - 2 cov) / K)`` with the shrunk marginals, and
  ``lower_bound = regret - z * std_error``;
- gates: invalid code -> ``invalid_reward`` (-1); no hinted success at all -> ``no_hint_success_penalty``
  (-0.5: impossible or broken); every unhinted rollout succeeds -> ``trivial_reward`` (0);
- otherwise ``reward = max(statistic, 0)`` (``statistic`` is ``regret`` or ``lower_bound``), optionally blended
  with learnability ``4 p (1 - p)`` of the unhinted success rate ("No Regrets", Rutherford et al. 2024). A negative
  regret (a misleading hint) is kept in the estimate and flagged for the logs.

``objective`` swaps the designer's reward for the ablations of the paper's comparisons (the estimate itself is the
same): ``"regret"`` (above); ``"learnability"``: ``4 p (1 - p)`` of the raw unhinted success rate (highest at 1/2);
``"target"``: ``1 - |p - target_success| / max(target_success, 1 - target_success)``, GenEnv's target success rate
alpha; ``"uniform"``: 0 for every played environment, so the designer gets no signal and samples from its prior.
Only the invalid gate applies to the last three (they need no hint).

Every statistic is a symmetric function of the pairs: reordering the seeds never changes the estimate.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

from spade_core.rollout.runner import EpisodeRunner, EpisodeSpec
from spade_core.rollout.trajectory import FAILURE_ENV, Trajectory
from spade_core.training.errors import TrainingConfigError, TrainingInputError

GATE_INVALID = "invalid"
GATE_NO_HINT_SUCCESS = "no_hint_success"
GATE_TRIVIAL = "trivial"
GATE_NONE = "scored"
Objective = Literal["regret", "learnability", "target", "uniform"]
OBJECTIVES: tuple[Objective, ...] = get_args(Objective)
Statistic = Literal["mean", "lcb"]  # "mean": the shrunk regret | "lcb": its lower confidence bound
STATISTICS: tuple[Statistic, ...] = get_args(Statistic)
"""What the designer is rewarded for (``RegretConfig.objective``; the self-play knob ``regret.objective``)."""


@dataclass(frozen=True)
class RegretConfig:
    """Every coefficient of the regret estimator and the designer's reward."""

    k: int = 8
    prior_alpha: float = 1.0
    prior_beta: float = 1.0
    invalid_reward: float = -1.0
    no_hint_success_penalty: float = -0.5
    trivial_reward: float = 0.0
    statistic: Statistic = "mean"  # "mean": the shrunk regret | "lcb": its lower confidence bound
    z: float = 1.0
    clamp_at_zero: bool = True
    learnability_weight: float = 0.0  # 0: pure regret; w: (1 - w) * regret + w * 4 p (1 - p)
    max_error_fraction: float = 0.5  # more failed pairs than this (environment errors) -> treated as invalid
    objective: Objective = "regret"  # one of OBJECTIVES
    target_success: float = 0.5  # objective "target": the unhinted success rate the designer aims at (GenEnv's alpha)

    def __post_init__(self) -> None:
        if self.k < 1:
            raise TrainingConfigError(f"RegretConfig.k must be >= 1, got {self.k}")
        if self.prior_alpha <= 0 or self.prior_beta <= 0:
            raise TrainingConfigError("RegretConfig.prior_alpha and prior_beta must be > 0 (Beta prior)")
        if self.statistic not in STATISTICS:
            raise TrainingConfigError(f"RegretConfig.statistic must be one of {STATISTICS}, got {self.statistic!r}")
        if self.z < 0:
            raise TrainingConfigError(f"RegretConfig.z must be >= 0, got {self.z}")
        if not 0.0 <= self.learnability_weight <= 1.0:
            raise TrainingConfigError(f"RegretConfig.learnability_weight must be in [0, 1], got {self.learnability_weight}")
        if not 0.0 <= self.max_error_fraction <= 1.0:
            raise TrainingConfigError(f"RegretConfig.max_error_fraction must be in [0, 1], got {self.max_error_fraction}")
        if self.objective not in OBJECTIVES:
            raise TrainingConfigError(f"RegretConfig.objective must be one of {OBJECTIVES}, got {self.objective!r}")
        if not 0.0 < self.target_success < 1.0:
            raise TrainingConfigError(f"RegretConfig.target_success must be in (0, 1), got {self.target_success}")


@dataclass(frozen=True)
class RegretEstimate:
    """The estimate for one environment, with everything needed to log and audit it."""

    pairs: int
    hinted_successes: float
    unhinted_successes: float
    p_hint: float
    p_nohint: float
    raw_regret: float
    regret: float
    std_error: float
    lower_bound: float
    learnability: float
    reward: float
    gate: str
    misleading_hint: bool
    failed_pairs: int = 0
    dropped_pairs: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def estimate_regret(hinted: Sequence[float], unhinted: Sequence[float], config: RegretConfig | None = None, *,
                    valid: bool = True, failed_pairs: int = 0, dropped_pairs: int = 0) -> RegretEstimate:
    """Estimate from paired outcomes: ``hinted[i]`` and ``unhinted[i]`` were played on the same seed."""
    config = config or RegretConfig()
    if len(hinted) != len(unhinted):
        raise TrainingInputError(f"estimate_regret: {len(hinted)} hinted but {len(unhinted)} unhinted outcomes; "
                                 "pass one of each per seed")
    h = [_outcome(x, "hinted") for x in hinted]
    u = [_outcome(x, "unhinted") for x in unhinted]
    n = len(h)
    a, b = config.prior_alpha, config.prior_beta
    sh, su = math.fsum(h), math.fsum(u)
    p_hint = (sh + a) / (n + a + b)
    p_nohint = (su + a) / (n + a + b)
    raw = (sh - su) / n if n else 0.0
    regret = p_hint - p_nohint
    if n:
        mh, mu = sh / n, su / n
        cov = math.fsum((x - mh) * (y - mu) for x, y in zip(h, u)) / n
        var = max(p_hint * (1 - p_hint) + p_nohint * (1 - p_nohint) - 2 * cov, 0.0)
        se = math.sqrt(var / n)
    else:
        se = math.sqrt(p_hint * (1 - p_hint) + p_nohint * (1 - p_nohint))
    lower = regret - config.z * se
    learnability = 4.0 * p_nohint * (1.0 - p_nohint)
    too_many_failures = failed_pairs > config.max_error_fraction * (n + failed_pairs)
    if not valid or too_many_failures or n == 0:
        gate, reward = GATE_INVALID, config.invalid_reward
    elif config.objective != "regret":
        gate, reward = GATE_NONE, objective_reward(su / n, config)
    elif sh == 0:
        gate, reward = GATE_NO_HINT_SUCCESS, config.no_hint_success_penalty
    elif su == n:
        gate, reward = GATE_TRIVIAL, config.trivial_reward
    else:
        gate = GATE_NONE
        statistic = regret if config.statistic == "mean" else lower
        if config.clamp_at_zero:
            statistic = max(statistic, 0.0)
        w = config.learnability_weight
        reward = (1.0 - w) * statistic + w * learnability
    return RegretEstimate(
        pairs=n, hinted_successes=sh, unhinted_successes=su, p_hint=p_hint, p_nohint=p_nohint, raw_regret=raw,
        regret=regret, std_error=se, lower_bound=lower, learnability=learnability, reward=reward, gate=gate,
        misleading_hint=regret < 0, failed_pairs=failed_pairs, dropped_pairs=dropped_pairs,
    )


def objective_reward(p: float, config: RegretConfig) -> float:
    """The designer's reward under a non-regret objective, from the raw unhinted success rate ``p``."""
    if config.objective == "learnability":
        return 4.0 * p * (1.0 - p)
    if config.objective == "target":
        alpha = config.target_success
        return 1.0 - abs(p - alpha) / max(alpha, 1.0 - alpha)
    return 0.0  # "uniform"


def paired_specs(env_id: str, seeds: Sequence[int], *, env_kwargs: Mapping[str, Any] | None = None,
                 role: str = "agent", group_prefix: str | None = None) -> list[EpisodeSpec]:
    """Two episodes per seed, hinted and unhinted; each seed's pair shares a ``group_id`` prefix."""
    prefix = group_prefix or env_id
    specs = []
    for seed in seeds:
        for hinted in (True, False):
            specs.append(EpisodeSpec(env_id, int(seed), hinted=hinted, role=role, env_kwargs=dict(env_kwargs or {}),
                                     group_id=f"{prefix}|regret|{'h' if hinted else 'u'}"))
    return specs


def episode_outcomes(trajectories: Sequence[Trajectory]) -> dict[tuple[int | None, bool], float | None]:
    """Success per ``(seed, hinted)`` episode (any seat succeeded); ``None`` for a failed episode."""
    by_episode: dict[str, list[Trajectory]] = defaultdict(list)
    for t in trajectories:
        by_episode[t.episode_id].append(t)
    out: dict[tuple[int | None, bool], float | None] = {}
    for seats in by_episode.values():
        first = seats[0]
        key = (first.seed, first.hinted)
        if key in out:
            raise TrainingInputError(f"two episodes share seed {first.seed} and hinted={first.hinted}; "
                                     "pair exactly one hinted and one unhinted episode per seed")
        out[key] = None if any(t.failed for t in seats) else float(any(t.success for t in seats))
    return out


def regret_from_trajectories(trajectories: Sequence[Trajectory], config: RegretConfig | None = None, *,
                             valid: bool = True) -> RegretEstimate:
    """Pair episodes by seed and estimate. A pair with a failed side is left out: environment errors count in
    ``failed_pairs`` (too many make the environment invalid), generation errors in ``dropped_pairs``."""
    outcomes = episode_outcomes(trajectories)
    env_failed_episodes = {(t.seed, t.hinted) for t in trajectories if t.failure == FAILURE_ENV}
    hinted, unhinted, failed, dropped = [], [], 0, 0
    for seed in dict.fromkeys(seed for seed, _ in outcomes):
        if (seed, True) not in outcomes or (seed, False) not in outcomes:
            side = "hinted" if (seed, True) in outcomes else "unhinted"
            raise TrainingInputError(f"seed {seed} has only a {side} episode; every seed needs both")
        h, u = outcomes[(seed, True)], outcomes[(seed, False)]
        if h is None or u is None:
            if (seed, True) in env_failed_episodes or (seed, False) in env_failed_episodes:
                failed += 1
            else:
                dropped += 1  # a generation failure says nothing about the environment
            continue
        hinted.append(h)
        unhinted.append(u)
    return estimate_regret(hinted, unhinted, config, valid=valid, failed_pairs=failed, dropped_pairs=dropped)


class RegretEstimator:
    """Runs the K paired rollouts of an environment with the current policy and scores them."""

    def __init__(self, runner: EpisodeRunner, config: RegretConfig | None = None) -> None:
        self.runner = runner
        self.config = config or RegretConfig()

    def estimate(self, env_id: str, seeds: Sequence[int] | None = None, *, env_kwargs: Mapping[str, Any] | None = None,
                 seed: int | None = None) -> tuple[RegretEstimate, list[Trajectory]]:
        """K hinted + K unhinted episodes in one batched run; returns the estimate and the trajectories."""
        seeds = list(seeds) if seeds is not None else list(range(self.config.k))
        result = self.runner.run(paired_specs(env_id, seeds, env_kwargs=env_kwargs), seed=seed)
        return regret_from_trajectories(result.trajectories, self.config), result.trajectories


def _outcome(value: float, which: str) -> float:
    x = float(value)
    if not 0.0 <= x <= 1.0 or math.isnan(x):
        raise TrainingInputError(f"{which} outcomes must be in [0, 1] (success as 0/1), got {value!r}")
    return x
