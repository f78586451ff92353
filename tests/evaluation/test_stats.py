"""Statistics for success rates: Wilson intervals, two-proportion z-test, exact McNemar, paired bootstrap."""

from __future__ import annotations

import pytest

from spade_core.evaluation.stats import (
    mcnemar_exact_p,
    paired_comparison,
    two_proportion_z_test,
    wilson_interval,
)


@pytest.mark.parametrize("successes, n, low, high", [
    (0, 10, 0.0, 0.27753),
    (5, 10, 0.23659, 0.76341),
    (10, 10, 0.72247, 1.0),
    (81, 263, 0.25529, 0.36622),  # worked by hand: centre 0.31075, half-width 0.05546
])
def test_wilson_interval_matches_published_values(successes: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson_interval(successes, n)
    assert lo == pytest.approx(low, abs=1e-4) and hi == pytest.approx(high, abs=1e-4)


def test_wilson_interval_edge_cases() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_two_proportion_z_test() -> None:
    c = two_proportion_z_test(45, 100, 60, 100)
    assert c.delta == pytest.approx(0.15)
    assert c.p_value == pytest.approx(0.03367, abs=2e-4)
    assert c.ci_low < 0.15 < c.ci_high and c.test == "two-proportion-z"
    same = two_proportion_z_test(0, 10, 0, 12)
    assert same.p_value == 1.0 and same.delta == 0.0


def test_mcnemar_exact() -> None:
    assert mcnemar_exact_p(9, 1) == pytest.approx(22 / 1024)
    assert mcnemar_exact_p(0, 0) == 1.0
    assert mcnemar_exact_p(3, 3) == 1.0
    assert mcnemar_exact_p(0, 6) == pytest.approx(2 / 64)


def test_paired_comparison_is_deterministic_and_brackets_the_delta() -> None:
    a = [True] * 20 + [False] * 30
    b = [True] * 20 + [True] * 12 + [False] * 18  # 12 tasks fixed, none broken
    first, second = paired_comparison(a, b), paired_comparison(a, b)
    assert first == second
    assert first.delta == pytest.approx(12 / 50) and first.paired == 50
    assert first.ci_low <= first.delta <= first.ci_high and first.ci_low > 0
    assert first.p_value == pytest.approx(mcnemar_exact_p(12, 0)) and first.p_value < 0.001
    unchanged = paired_comparison(a, a)
    assert unchanged.delta == 0 and unchanged.p_value == 1.0 and unchanged.ci_low == unchanged.ci_high == 0
    with pytest.raises(ValueError):
        paired_comparison([True], [True, False])
