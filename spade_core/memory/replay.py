"""PLR-style replay prioritisation over accepted environments (Prioritized Level Replay, Jiang et al. 2021).

``P = (1 - rho) * P_score + rho * P_staleness``. ``P_score`` is rank-based: the environment with the highest score
gets rank 1, weight ``(1 / rank) ** (1 / temperature)`` (tied scores share their mean rank), normalised.
``P_staleness`` is proportional to ``staleness ** (1 / staleness_temperature)``, where staleness counts replay
steps since the environment was last chosen, so neglected environments drift back in. The score is read from the
record's stats (``regret_smoothed`` by default) and re-scored after each replay.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

SCORE_KEY = "regret_smoothed"
LAST_STEP_KEY = "replay_last_step"
COUNT_KEY = "replay_count"
STEP_META_KEY = "memory.replay_step"


@dataclass(frozen=True)
class ReplayConfig:
    """PLR hyper-parameters. dcd's defaults are temperature 0.1 and staleness_coef 0.3; the temperature is softened
    to 0.3 here because SPADE draws several environments per replay round (at 0.1, rank 2 weighs 2**-10 of rank 1).
    """

    score_key: str = SCORE_KEY
    default_score: float = 0.0  # for environments not scored yet
    temperature: float = 0.3  # beta of the rank transform; lower = greedier
    staleness_coef: float = 0.3  # rho
    staleness_temperature: float = 1.0
    score_ema: float = 1.0  # weight of a new score when re-scoring; 1.0 replaces it, as PLR does

    def __post_init__(self) -> None:
        if self.temperature <= 0 or self.staleness_temperature <= 0:
            raise ValueError("replay temperatures must be > 0")
        if not 0.0 <= self.staleness_coef <= 1.0:
            raise ValueError(f"staleness_coef must be in [0, 1], got {self.staleness_coef}")
        if not 0.0 < self.score_ema <= 1.0:
            raise ValueError(f"score_ema must be in (0, 1], got {self.score_ema}")


def score_of(stats: Mapping[str, Any], config: ReplayConfig) -> float:
    """The replay score in a record's stats (a finite number), else the default."""
    value = stats.get(config.score_key)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and np.isfinite(value):
        return float(value)
    return config.default_score


def average_ranks(scores: np.ndarray) -> np.ndarray:
    """Rank 1 for the highest score; tied scores get the mean of the ranks they span."""
    n = len(scores)
    order = np.argsort(-scores, kind="stable")
    ranked = scores[order]
    ranks = np.empty(n, dtype=np.float64)
    start = 0
    while start < n:  # walk groups of equal scores
        end = start + 1
        while end < n and ranked[end] == ranked[start]:
            end += 1
        ranks[order[start:end]] = (start + 1 + end) / 2.0
        start = end
    return ranks


def rank_distribution(scores: np.ndarray, temperature: float) -> np.ndarray:
    """``h = 1 / rank``, ``P ∝ h ** (1 / temperature)``."""
    if len(scores) == 0:
        return np.zeros(0)
    weights = (1.0 / average_ranks(np.asarray(scores, dtype=np.float64))) ** (1.0 / temperature)
    return weights / weights.sum()


def staleness_distribution(staleness: np.ndarray, temperature: float) -> np.ndarray:
    """``P ∝ staleness ** (1 / temperature)``; uniform when nothing is stale."""
    staleness = np.maximum(np.asarray(staleness, dtype=np.float64), 0.0)
    if len(staleness) == 0:
        return np.zeros(0)
    weights = staleness ** (1.0 / temperature)
    total = weights.sum()
    return weights / total if total > 0 else np.full(len(staleness), 1.0 / len(staleness))


def replay_distribution(scores: np.ndarray, staleness: np.ndarray, config: ReplayConfig) -> np.ndarray:
    """The PLR mixture ``(1 - rho) * P_score + rho * P_staleness``."""
    rho = config.staleness_coef
    p = (1 - rho) * rank_distribution(scores, config.temperature)
    if rho > 0:
        p = p + rho * staleness_distribution(staleness, config.staleness_temperature)
    return p / p.sum() if len(p) else p
