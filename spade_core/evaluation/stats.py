"""Small, dependency-free statistics for success rates: Wilson intervals and two-run comparisons.

Benchmark runs on a few hundred tasks have wide error bars; every rate ``spade eval`` prints comes with its 95%
interval, and every comparison with a p-value, so that a +3 point "improvement" on 20 tasks reads as noise.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (well-behaved at 0, 1 and small ``n``); (0, 1) if n == 0."""
    if n < 0 or not 0 <= successes <= max(n, 0):
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact at the ends (no 1e-17 rounding residue)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def normal_two_sided_p(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


@dataclass(frozen=True)
class Comparison:
    """Run B minus run A on one suite: the delta, its 95% interval and a two-sided p-value."""

    n_a: int
    n_b: int
    rate_a: float
    rate_b: float
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    test: str  # "mcnemar-exact+paired-bootstrap" | "two-proportion-z"
    paired: int = 0  # tasks present in both runs (the paired test uses only these)

    def as_dict(self) -> dict[str, float | int | str]:
        return dict(self.__dict__)


def two_proportion_z_test(successes_a: int, n_a: int, successes_b: int, n_b: int) -> Comparison:
    """Unpaired comparison: pooled two-proportion z-test; the interval is the unpooled Wald interval of the delta."""
    if n_a < 1 or n_b < 1:
        raise ValueError("both runs need at least one task")
    pa, pb = successes_a / n_a, successes_b / n_b
    pooled = (successes_a + successes_b) / (n_a + n_b)
    se_pooled = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    delta = pb - pa
    if se_pooled == 0:
        p_value = 1.0 if delta == 0 else 0.0
    else:
        p_value = normal_two_sided_p(delta / se_pooled)
    se = math.sqrt(pa * (1 - pa) / n_a + pb * (1 - pb) / n_b)
    return Comparison(n_a, n_b, pa, pb, delta, delta - Z95 * se, delta + Z95 * se, p_value, "two-proportion-z")


def mcnemar_exact_p(b_only: int, a_only: int) -> float:
    """Exact two-sided McNemar p-value from the discordant pairs (binomial test with p = 1/2)."""
    n = b_only + a_only
    if n == 0:
        return 1.0
    k = min(b_only, a_only)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired_comparison(outcomes_a: Sequence[bool], outcomes_b: Sequence[bool], *, resamples: int = 2000,
                      seed: int = 0) -> Comparison:
    """Paired comparison on the same tasks: exact McNemar p-value and a paired-bootstrap 95% interval of the delta.

    The bootstrap is seeded, so the same outcomes always give the same interval.
    """
    if len(outcomes_a) != len(outcomes_b) or not outcomes_a:
        raise ValueError("paired outcomes need the same, non-zero length")
    n = len(outcomes_a)
    diffs = [int(b) - int(a) for a, b in zip(outcomes_a, outcomes_b)]
    rate_a, rate_b = sum(map(bool, outcomes_a)) / n, sum(map(bool, outcomes_b)) / n
    rng = random.Random(seed)
    deltas = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    low = deltas[int(0.025 * (resamples - 1))]
    high = deltas[int(math.ceil(0.975 * (resamples - 1)))]
    p_value = mcnemar_exact_p(diffs.count(1), diffs.count(-1))
    return Comparison(n, n, rate_a, rate_b, rate_b - rate_a, low, high, p_value, "mcnemar-exact+paired-bootstrap",
                      paired=n)
