"""The figures the small-world table and test read off a run."""

from __future__ import annotations

from spade_core.smallworld.summary import directions, estimate


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
