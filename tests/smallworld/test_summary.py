"""The figures the small-world table and test read off a run."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from spade_core.smallworld.summary import (
    area_per_token,
    directions,
    estimate,
    format_token_table,
    token_table,
    tokens_to_reach,
)


def _run(regrets: list[float], edge: list[float], held_out: list[float]) -> list[dict]:
    return [{"mean_regret": r, "categories": {"trivial": (1 - e) / 2, "impossible": (1 - e) / 2, "edge": e},
             "designs": [], "held_out_success": h} for r, e, h in zip(regrets, edge, held_out)]


def test_a_regret_that_rises_then_falls_has_a_peak_above_both_ends() -> None:
    run = _run([0.0, 0.1, 0.2, 0.5, 0.6, 0.4, 0.1, 0.0, 0.0], [0.1] * 3 + [0.5] * 3 + [0.9] * 3, [0.1] * 9)
    d = directions(run)
    assert abs(d["regret_early"] - 0.1) < 1e-9 and abs(d["regret_late"] - 1 / 30) < 1e-9
    assert abs(d["regret_peak"] - 0.5) < 1e-9  # the best three consecutive iterations: 0.5, 0.6, 0.4
    assert abs(d["waste_early"] - 0.9) < 1e-9 and abs(d["waste_late"] - 0.1) < 1e-9


def test_a_short_run_uses_what_it_has() -> None:
    d = directions(_run([0.3], [1.0], [0.5]))
    assert d["regret_peak"] == d["regret_early"] == d["regret_late"] == 0.3
    assert d["held_out_start"] == d["held_out_end"] == d["held_out_mean"] == 0.5


def test_an_estimate_over_seeds_has_a_t_interval() -> None:
    e = estimate([0.5, 0.7, 0.6])
    assert abs(e.mean - 0.6) < 1e-12 and abs(e.half_width - 4.303 * 0.1 / 3 ** 0.5) < 1e-9
    assert estimate([0.4]).half_width == 0.0


def _token_run(points: list[tuple[int, float]], before: float = 0.0) -> list[dict]:
    return [{"cumulative_agent_tokens": t, "agent_tokens": t - (points[i - 1][0] if i else 0),
             "held_out_success": h, "categories": {"exploit": 0.0, "trivial": 0.0, "impossible": 0.0},
             "designs": [], "mean_regret": 0.0, "held_out_before": before if i == 0 else None}
            for i, (t, h) in enumerate(points)]


def test_the_area_per_token_is_the_mean_success_over_the_budget() -> None:
    ramp = _token_run([(100, 1.0), (200, 1.0)])  # 0 -> 1 over the first 100 tokens, then 1
    assert abs(area_per_token(ramp, 100) - 0.5) < 1e-12
    assert abs(area_per_token(ramp, 200) - 0.75) < 1e-12
    assert abs(area_per_token(ramp, 50) - 0.25) < 1e-12  # the segment is cut at the budget
    assert abs(area_per_token(ramp, 400) - 0.875) < 1e-12  # held at its last value past the last evaluation
    assert tokens_to_reach(ramp, 0.5) == 100 and tokens_to_reach(_token_run([(10, 0.4)]), 0.5) is None


@given(st.lists(st.tuples(st.integers(1, 500), st.floats(0, 1)), min_size=1, max_size=8),
       st.floats(0, 1), st.integers(1, 4000))
def test_the_area_is_a_success_rate_and_grows_with_the_curve(steps: list[tuple[int, float]], before: float,
                                                            budget: int) -> None:
    tokens, points = 0, []
    for step, success in steps:
        tokens += step
        points.append((tokens, success))
    area = area_per_token(_token_run(points, before), budget)
    assert -1e-9 <= area <= 1 + 1e-9
    better = _token_run([(t, min(1.0, s + 0.1)) for t, s in points], min(1.0, before + 0.1))
    assert area_per_token(better, budget) >= area - 1e-9


def test_the_token_table_compares_arms_at_an_equal_budget_seed_by_seed() -> None:
    fast = [_token_run([(100, 1.0), (300, 1.0)]), _token_run([(100, 0.8), (300, 1.0)])]
    slow = [_token_run([(200, 0.5), (400, 1.0)]), _token_run([(200, 0.3), (400, 1.0)])]
    rows = {row["arm"]: row for row in token_table({"designer": fast, "uniform": slow})}
    assert rows["designer"]["budget"] == 300  # the smallest of the arms' median token counts
    diff = rows["designer"]["vs_uniform"]
    expected = [area_per_token(f, 300) - area_per_token(s, 300) for f, s in zip(fast, slow)]
    assert diff.n == 2 and abs(diff.mean - sum(expected) / 2) < 1e-12 and diff.mean > 0
    assert rows["designer"]["reach_0.5"][0].mean == 100 and rows["uniform"]["reach_0.5"][0].mean == 300
    assert rows["designer"]["reach_0.9"][1] == rows["uniform"]["reach_0.9"][1] == 2
    assert "uniform" in format_token_table(list(rows.values()))


def test_one_run_that_stopped_early_does_not_shrink_every_arms_budget() -> None:
    """A designer that stops writing valid designs plays no episodes: its run ends at few tokens, and is held at its
    last evaluation up to the budget the other runs set."""
    full = [_token_run([(100 * k, 0.1 * k) for k in range(1, 9)]) for _ in range(3)]
    stopped = _token_run([(100, 0.1), (150, 0.1)])
    rows = {row["arm"]: row for row in token_table({"designer": [*full[:2], stopped], "uniform": full})}
    assert rows["designer"]["budget"] == 800
    expected = (2 * area_per_token(full[0], 800) + area_per_token(stopped, 800)) / 3
    assert abs(rows["designer"]["area"].mean - expected) < 1e-12
