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

**The hint-only arm.** A hint that carries the answer (the answer itself, or a hidden fact the task never shows)
earns the highest regret any design can: impossible without the hint, trivial with it. So the paired rollouts can
gain a third arm, the *hint without the task* (``EpisodeSpec.hint_only``: every user turn shows the hint alone).
Under the defended objective a hint that does better alone than the task does alone (``hint_only_successes >
unhinted_successes``) carries the answer, in whatever encoding the agent can read, and earns nothing (gate
``hint_only``; with no hint-only outcome the gate cannot apply, and ``hint_only_episodes`` 0 says so). Cost: K more
agent episodes per environment (3K instead of 2K), measured and not trained on. The learnability gate with claw-back
(:mod:`spade_core.training.learnability`) was measured as the other defence; per environment, it is evaded by a
designer that moves to a new one (the small world shows it, ``benchmarks/bench_small_world.py --candidates``).

**A cheaper defence.** Three knobs cut the hint-only arm's cost (all off by default: every seed of every environment):
:class:`HintOnlyPlan` (the small world's knobs): ``margin`` plays it only for an environment whose hinted success rate exceeds its unhinted rate by more
than the margin (at 0 no pure-regret reward changes: the gate only zeroes a positive regret); ``fraction``
plays it on that share of the K seeds, and the gate compares it with the unhinted outcomes of the same seeds;
``reuse`` keeps an environment's hint-only success rate for that many iterations and gates on it against
the current unhinted rate (:class:`HintOnlyMemory`; an environment's code never changes, only the agent does). What
each costs and lets through is measured in the small world (README, "The chain world").

``objective`` picks the designer's reward (the estimate itself is the same):

- ``"defended"`` (the default): regret, gated by the hint-only arm (above);
- ``"regret"``: pure regret, undefended (the ablation: a hint that gives the answer away is paid in full);
- ``"learnability"``: ``4 p (1 - p)`` of the raw unhinted success rate (highest at 1/2);
- ``"target"``: ``1 - |p - target_success| / max(target_success, 1 - target_success)``, GenEnv's target success
  rate alpha;
- ``"uniform"``: 0 for every played environment, so the designer gets no signal and samples from its prior.

Only the invalid gate applies to the last three (they need no hint).

Every statistic is a symmetric function of the pairs: reordering the seeds never changes the estimate.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

from spade_core.rollout.runner import EpisodeRunner
from spade_core.rollout.specs import EpisodeSpec
from spade_core.rollout.trajectory import FAILURE_ENV, Trajectory
from spade_core.training.errors import TrainingConfigError, TrainingInputError

GATE_INVALID = "invalid"
GATE_NO_HINT_SUCCESS = "no_hint_success"
GATE_TRIVIAL = "trivial"
GATE_HINT_ONLY = "hint_only"
GATE_NONE = "scored"
Objective = Literal["defended", "regret", "learnability", "target", "uniform"]
OBJECTIVES: tuple[Objective, ...] = get_args(Objective)
Statistic = Literal["mean", "lcb"]  # "mean": the shrunk regret | "lcb": its lower confidence bound
STATISTICS: tuple[Statistic, ...] = get_args(Statistic)
"""What the designer is rewarded for (``RegretConfig.objective``; the self-play knob ``regret.objective``)."""
DEFAULT_OBJECTIVE: Objective = "defended"
REGRET_OBJECTIVES = ("defended", "regret")
"""The objectives that pay regret (and so apply the hint gates)."""
HINT_ONLY_OBJECTIVES = ("defended",)
"""The objectives whose paired rollouts play the hint-only arm."""
ARMS = ("hinted", "unhinted", "hint_only")
"""The views of one seed in the paired rollouts: the task with the hint, without it, and the hint without the task."""


@dataclass(frozen=True)
class RegretCoefficients:
    """Every coefficient of the regret estimator and the designer's reward: :class:`RegretConfig` but the number of
    pairs (the self-play ``regret`` section, whose K is ``agent.seeds_per_env``)."""

    prior_alpha: float = 1.0  # alpha of the Beta prior each arm's success rate is shrunk with
    prior_beta: float = 1.0  # beta of that Beta prior
    invalid_reward: float = -1.0  # the designer's reward for a rejected candidate
    no_hint_success_penalty: float = -0.5  # the designer's reward when not one hinted rollout succeeds
    trivial_reward: float = 0.0  # the designer's reward when every unhinted rollout succeeds
    statistic: Statistic = "mean"  # "mean": the shrunk regret | "lcb": its lower confidence bound
    z: float = 1.0  # statistic "lcb": standard errors below the mean
    clamp_at_zero: bool = True  # a negative statistic (a misleading hint) pays 0, not less
    learnability_weight: float = 0.0  # 0: pure regret; w: (1 - w) * regret + w * 4 p (1 - p)
    max_error_fraction: float = 0.5  # more failed pairs than this (environment errors) -> treated as invalid
    # the designer's reward: "defended" (regret, gated by the hint-only arm: a hint that carries the answer earns
    # nothing) | "regret" (undefended) | learnability | target | uniform (see spade_core.training.regret)
    objective: Objective = DEFAULT_OBJECTIVE
    target_success: float = 0.5  # objective "target": the unhinted success rate the designer aims at (GenEnv's alpha)

    def __post_init__(self) -> None:
        name = type(self).__name__
        for prior in ("prior_alpha", "prior_beta"):
            if getattr(self, prior) <= 0:
                raise TrainingConfigError(f"{name}.{prior} must be > 0 (a Beta prior), got {getattr(self, prior)}")
        if self.statistic not in STATISTICS:
            raise TrainingConfigError(f"{name}.statistic must be one of {STATISTICS}, got {self.statistic!r}")
        if self.z < 0:
            raise TrainingConfigError(f"{name}.z must be >= 0, got {self.z}")
        if not 0.0 <= self.learnability_weight <= 1.0:
            raise TrainingConfigError(f"{name}.learnability_weight must be in [0, 1], got {self.learnability_weight}")
        if not 0.0 <= self.max_error_fraction <= 1.0:
            raise TrainingConfigError(f"{name}.max_error_fraction must be in [0, 1], got {self.max_error_fraction}")
        if self.objective not in OBJECTIVES:
            raise TrainingConfigError(f"{name}.objective must be one of {OBJECTIVES}, got {self.objective!r}")
        if not 0.0 < self.target_success < 1.0:
            raise TrainingConfigError(f"{name}.target_success must be in (0, 1), got {self.target_success}")


@dataclass(frozen=True)
class RegretConfig(RegretCoefficients):
    """The coefficients and the number of paired rollouts per environment."""

    k: int = 8  # paired rollouts per environment (self-play derives it from agent.seeds_per_env)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.k < 1:
            raise TrainingConfigError(f"RegretConfig.k must be >= 1, got {self.k}")

    @property
    def hint_only_arm(self) -> bool:
        """Whether the paired rollouts play the hint-only arm (the objective reads it)."""
        return self.objective in HINT_ONLY_OBJECTIVES


@dataclass(frozen=True)
class HintOnlyPlan:
    """The cheaper defence: where the hint-only arm is played (module docstring). The defaults play it on every seed
    of every environment, as the self-play loop does; the small world reads these (its loop plays the arm after the
    paired rollouts)."""

    margin: float | None = None  # play it only where hinted exceeds unhinted success by more than this
    fraction: float = 1.0  # play it on this share of the K seeds (at least one)
    reuse: int = 0  # keep an environment's hint-only rate this many iterations (0: play it every time)

    def __post_init__(self) -> None:
        if self.margin is not None and not -1.0 <= self.margin < 1.0:
            raise TrainingConfigError(f"HintOnlyPlan.margin must be None or in [-1, 1), got {self.margin}")
        if not 0.0 < self.fraction <= 1.0:
            raise TrainingConfigError(f"HintOnlyPlan.fraction must be in (0, 1], got {self.fraction}")
        if self.reuse < 0:
            raise TrainingConfigError(f"HintOnlyPlan.reuse must be >= 0 iterations, got {self.reuse}")

    @property
    def staged(self) -> bool:
        """Whether it plays less than every seed of every environment."""
        return self.margin is not None or self.fraction < 1.0 or self.reuse > 0

    def seeds(self, k: int) -> int:
        """How many of ``k`` seeds play the hint-only arm (``fraction`` of them, at least one)."""
        return max(1, math.ceil(self.fraction * k - 1e-9))


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
    hint_only_episodes: int = 0  # 0: the hint-only arm was not played
    hint_only_successes: float = 0.0

    @property
    def rates(self) -> dict[str, float | None]:
        """Raw success rate of each arm (None: not played)."""
        n, m = self.pairs, self.hint_only_episodes
        return {"hinted": self.hinted_successes / n if n else None,
                "unhinted": self.unhinted_successes / n if n else None,
                "hint_only": self.hint_only_successes / m if m else None}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def estimate_regret(hinted: Sequence[float], unhinted: Sequence[float], config: RegretConfig | None = None, *,
                    hint_only: Sequence[float] = (), valid: bool = True, failed_pairs: int = 0,
                    dropped_pairs: int = 0, reused_hint_only: float | None = None,
                    partial_hint_only: bool = False) -> RegretEstimate:
    """Estimate from paired outcomes: ``hinted[i]`` and ``unhinted[i]`` were played on the same seed;
    ``hint_only[i]``, when the hint-only arm was played, on that seed too (the hint without the task; with
    ``partial_hint_only``, :attr:`HintOnlyPlan.fraction`, on the first ``len(hint_only)`` seeds only).
    ``reused_hint_only``: a hint-only success rate kept from an earlier iteration (:attr:`HintOnlyPlan.reuse`),
    gated on against this iteration's unhinted rate."""
    config = config or RegretConfig()
    if len(hinted) != len(unhinted):
        raise TrainingInputError(f"estimate_regret: {len(hinted)} hinted but {len(unhinted)} unhinted outcomes; "
                                 "pass one of each per seed")
    partial = partial_hint_only and len(hint_only) <= len(hinted)
    if hint_only and len(hint_only) != len(hinted) and not partial:
        raise TrainingInputError(f"estimate_regret: {len(hint_only)} hint-only outcomes for {len(hinted)} pairs; "
                                 "pass one per seed, or none (or a HintOnlyPlan fraction < 1)")
    h = [_outcome(x, "hinted") for x in hinted]
    u = [_outcome(x, "unhinted") for x in unhinted]
    o = [_outcome(x, "hint-only") for x in hint_only]
    so = math.fsum(o)
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
    elif config.objective not in REGRET_OBJECTIVES:
        gate, reward = GATE_NONE, objective_reward(su / n, config)
    elif sh == 0:
        gate, reward = GATE_NO_HINT_SUCCESS, config.no_hint_success_penalty
    elif su == n:
        gate, reward = GATE_TRIVIAL, config.trivial_reward
    elif config.hint_only_arm and _hint_alone_wins(o, u, reused_hint_only):  # the hint carries the answer
        gate, reward = GATE_HINT_ONLY, 0.0
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
        hint_only_episodes=len(o), hint_only_successes=so,
    )


def _hint_alone_wins(hint_only: Sequence[float], unhinted: Sequence[float], reused: float | None) -> bool:
    """The hint alone did better than the task alone: on the seeds the hint-only arm played (paired), or, with a
    rate kept from an earlier iteration, against this iteration's unhinted rate."""
    if hint_only:
        return math.fsum(hint_only) > math.fsum(unhinted[:len(hint_only)])
    return reused is not None and bool(unhinted) and reused > math.fsum(unhinted) / len(unhinted)


def hint_only_wanted(estimate: RegretEstimate, config: RegretConfig, plan: HintOnlyPlan) -> bool:
    """Whether an environment's hint-only arm can change its reward, from the estimate of its hinted and unhinted
    pairs alone: the objective reads it, no earlier gate decided the reward, and (``plan.margin``) hinted success
    exceeds unhinted success by more than the margin."""
    if not config.hint_only_arm or estimate.gate != GATE_NONE:
        return False
    return plan.margin is None or estimate.raw_regret > plan.margin


class HintOnlyMemory:
    """Each environment's last hint-only success rate and the iteration it was measured (``HintOnlyPlan.reuse``)."""

    def __init__(self, plan: HintOnlyPlan) -> None:
        self.plan = plan
        self._rates: dict[str, tuple[int, float]] = {}

    def recall(self, env_id: str, iteration: int) -> float | None:
        """The kept rate, if it is at most ``plan.reuse`` iterations old."""
        kept = self._rates.get(env_id)
        if kept is None or iteration - kept[0] > self.plan.reuse:
            return None
        return kept[1]

    def remember(self, env_id: str, iteration: int, rate: float) -> None:
        self._rates[env_id] = (iteration, rate)


def objective_reward(p: float, config: RegretConfig) -> float:
    """The designer's reward under a non-regret objective, from the raw unhinted success rate ``p``."""
    if config.objective == "learnability":
        return 4.0 * p * (1.0 - p)
    if config.objective == "target":
        alpha = config.target_success
        return 1.0 - abs(p - alpha) / max(alpha, 1.0 - alpha)
    return 0.0  # "uniform"


def paired_specs(env_id: str, seeds: Sequence[int], *, env_kwargs: Mapping[str, Any] | None = None,
                 role: str = "agent", group_prefix: str | None = None, hint_only: bool = False) -> list[EpisodeSpec]:
    """Two episodes per seed, hinted and unhinted (three with ``hint_only``: the hint without the task); each
    seed's arms share a ``group_id`` prefix."""
    prefix = group_prefix or env_id
    specs = []
    for seed in seeds:
        for arm in ARMS if hint_only else ARMS[:2]:
            specs.append(EpisodeSpec(env_id, int(seed), hinted=arm != "unhinted", hint_only=arm == "hint_only",
                                     role=role, env_kwargs=dict(env_kwargs or {}),
                                     group_id=f"{prefix}|regret|{arm}"))
    return specs


def arm_of(trajectory: Trajectory) -> str:
    """Which of :data:`ARMS` a trajectory was played in."""
    return "hint_only" if trajectory.hint_only else "hinted" if trajectory.hinted else "unhinted"


def episode_outcomes(trajectories: Sequence[Trajectory]) -> dict[tuple[int | None, str], float | None]:
    """Success per ``(seed, arm)`` episode (any seat succeeded); ``None`` for a failed episode."""
    by_episode: dict[str, list[Trajectory]] = defaultdict(list)
    for t in trajectories:
        by_episode[t.episode_id].append(t)
    out: dict[tuple[int | None, str], float | None] = {}
    for seats in by_episode.values():
        first = seats[0]
        key = (first.seed, arm_of(first))
        if key in out:
            raise TrainingInputError(f"two episodes share seed {first.seed} and arm {key[1]}; "
                                     "play exactly one episode per seed and arm")
        out[key] = None if any(t.failed for t in seats) else float(any(t.success for t in seats))
    return out


def regret_from_trajectories(trajectories: Sequence[Trajectory], config: RegretConfig | None = None, *,
                             valid: bool = True, reused_hint_only: float | None = None,
                             plan: HintOnlyPlan | None = None) -> RegretEstimate:
    """Pair episodes by seed and estimate. A pair with a failed side is left out: environment errors count in
    ``failed_pairs`` (too many make the environment invalid), generation errors in ``dropped_pairs``. Hint-only
    episodes (when played) join their seed's pair; a failed one drops its seed the same way."""
    config = config or RegretConfig()
    outcomes = episode_outcomes(trajectories)
    env_failed_episodes = {(t.seed, arm_of(t)) for t in trajectories if t.failure == FAILURE_ENV}
    with_hint_only = any(arm == "hint_only" for _, arm in outcomes)
    hinted, unhinted, hint_only, failed, dropped = [], [], [], 0, 0
    seeds = list(dict.fromkeys(seed for seed, _ in outcomes))
    partial = plan is not None and plan.fraction < 1.0
    if partial:  # the seeds that played the hint-only arm first: it pairs with them
        seeds.sort(key=lambda seed: (seed, "hint_only") not in outcomes)
    for seed in seeds:
        own = with_hint_only and (not partial or (seed, "hint_only") in outcomes)
        arms = ARMS if own else ARMS[:2]
        missing = [arm for arm in arms if (seed, arm) not in outcomes]
        if missing:
            raise TrainingInputError(f"seed {seed} has no {' or '.join(missing)} episode; every seed needs one per "
                                     f"arm ({', '.join(arms)})")
        values = [outcomes[(seed, arm)] for arm in arms]
        if any(v is None for v in values):
            if any((seed, arm) in env_failed_episodes for arm in arms):
                failed += 1
            else:
                dropped += 1  # a generation failure says nothing about the environment
            continue
        hinted.append(values[0])
        unhinted.append(values[1])
        if own:
            hint_only.append(values[2])
    return estimate_regret(hinted, unhinted, config, hint_only=hint_only, valid=valid, failed_pairs=failed,
                           dropped_pairs=dropped, reused_hint_only=reused_hint_only, partial_hint_only=partial)


class RegretEstimator:
    """Runs the K paired rollouts of an environment with the current policy and scores them."""

    def __init__(self, runner: EpisodeRunner, config: RegretConfig | None = None) -> None:
        self.runner = runner
        self.config = config or RegretConfig()

    def estimate(self, env_id: str, seeds: Sequence[int] | None = None, *, env_kwargs: Mapping[str, Any] | None = None,
                 seed: int | None = None) -> tuple[RegretEstimate, list[Trajectory]]:
        """K hinted + K unhinted episodes (and K hint-only ones when the objective reads them) in one batched
        run; returns the estimate and the trajectories."""
        seeds = list(seeds) if seeds is not None else list(range(self.config.k))
        result = self.runner.run(paired_specs(env_id, seeds, env_kwargs=env_kwargs,
                                              hint_only=self.config.hint_only_arm), seed=seed)
        return regret_from_trajectories(result.trajectories, self.config), result.trajectories


def _outcome(value: float, which: str) -> float:
    x = float(value)
    if not 0.0 <= x <= 1.0 or math.isnan(x):
        raise TrainingInputError(f"{which} outcomes must be in [0, 1] (success as 0/1), got {value!r}")
    return x
