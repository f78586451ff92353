"""Turning small-world runs into the comparison table, the plot and the directions the test asserts.

A run is the list of iteration records :func:`~spade_core.smallworld.world.run_world` returns (plain dicts). Across
seeds, every figure is a mean with a 95% Student-t confidence interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Run = list[dict[str, Any]]

# two-sided 95% Student-t quantiles by degrees of freedom (1-10); larger samples use 1.96
_T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}


@dataclass(frozen=True)
class Estimate:
    """A mean over seeds with its 95% confidence half-width (0 for a single seed)."""

    mean: float
    half_width: float
    n: int

    def __str__(self) -> str:
        return f"{self.mean:.3f} ± {self.half_width:.3f}" if self.n > 1 else f"{self.mean:.3f}"


def estimate(values: Sequence[float]) -> Estimate:
    n = len(values)
    if n == 0:
        return Estimate(float("nan"), float("nan"), 0)
    mean = math.fsum(values) / n
    if n == 1:
        return Estimate(mean, 0.0, 1)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return Estimate(mean, _T95.get(n - 1, 1.96) * sd / math.sqrt(n), n)


def _thirds(run: Run) -> tuple[Run, Run]:
    k = max(1, len(run) // 3)
    return run[:k], run[-k:]


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0


def _peak(values: Sequence[float], width: int) -> float:
    """The highest mean of ``width`` consecutive values."""
    width = max(1, min(width, len(values)))
    return max(_mean(values[i:i + width]) for i in range(len(values) - width + 1)) if values else 0.0


def directions(run: Run) -> dict[str, float]:
    """First third vs last third of one run: designer mean regret (and its best third: regret rises while the
    designer finds the edge and falls as the agent masters it), the share of trivial + impossible designs, the share
    of the most frequent design, and held-out success (start and end)."""
    early, late = _thirds(run)

    def waste(records: Run) -> float:
        return _mean([r["categories"]["trivial"] + r["categories"]["impossible"] for r in records])

    def top_share(records: Run) -> float:
        designs = [d["design"] for r in records for d in r["designs"] if d["design"]]
        return max(designs.count(d) for d in set(designs)) / len(designs) if designs else 0.0

    regrets = [r["mean_regret"] for r in run]
    return {
        "regret_early": _mean([r["mean_regret"] for r in early]), "regret_late": _mean([r["mean_regret"] for r in late]),
        "regret_peak": _peak(regrets, len(early)),
        "waste_early": waste(early), "waste_late": waste(late),
        "top_design_share_early": top_share(early), "top_design_share_late": top_share(late),
        "held_out_start": run[0]["held_out_success"], "held_out_end": run[-1]["held_out_success"],
        "held_out_mean": _mean([r["held_out_success"] for r in run]),
    }


def table(runs: dict[str, list[Run]]) -> list[dict[str, Any]]:
    """One row per arm: held-out success at the end and averaged over the run (area under the learning curve), the
    agent tokens spent, and the designer's direction figures; each an :class:`Estimate` over seeds."""
    rows = []
    for arm, seeds in runs.items():
        dirs = [directions(run) for run in seeds]
        rows.append({
            "arm": arm, "seeds": len(seeds),
            "held_out_end": estimate([d["held_out_end"] for d in dirs]),
            "held_out_mean": estimate([d["held_out_mean"] for d in dirs]),
            "agent_tokens": estimate([float(run[-1]["cumulative_agent_tokens"]) for run in seeds]),
            "regret_early": estimate([d["regret_early"] for d in dirs]),
            "regret_peak": estimate([d["regret_peak"] for d in dirs]),
            "regret_late": estimate([d["regret_late"] for d in dirs]),
            "waste_early": estimate([d["waste_early"] for d in dirs]),
            "waste_late": estimate([d["waste_late"] for d in dirs]),
        })
    return rows


def format_table(rows: list[dict[str, Any]]) -> str:
    headers = ("arm", "seeds", "held-out success (end)", "held-out success (mean over run)", "agent tokens",
               "designer regret (first → best → last third)", "trivial+impossible share (first → last third)")
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append(f"| {row['arm']} | {row['seeds']} | {row['held_out_end']} | {row['held_out_mean']} | "
                     f"{row['agent_tokens'].mean:,.0f} | {row['regret_early']} → {row['regret_peak']} → {row['regret_late']} | "
                     f"{row['waste_early']} → {row['waste_late']} |")
    return "\n".join(lines)


def plot(runs: dict[str, list[Run]], path: str | Path) -> Path:
    """Three panels: held-out success against agent tokens per arm (mean and 95% band over seeds); the designed
    arm's mean regret per iteration; the designed arm's share of trivial, edge and impossible designs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    ax = axes[0]
    for arm, seeds in runs.items():
        iterations = min(len(run) for run in seeds)
        tokens = [_mean([run[i]["cumulative_agent_tokens"] for run in seeds]) for i in range(iterations)]
        points = [estimate([run[i]["held_out_success"] for run in seeds]) for i in range(iterations)]
        ax.plot(tokens, [p.mean for p in points], marker="o", markersize=3, label=arm)
        ax.fill_between(tokens, [max(0.0, p.mean - p.half_width) for p in points],
                        [min(1.0, p.mean + p.half_width) for p in points], alpha=0.2)  # a success rate: in [0, 1]
    ax.set_xlabel("agent tokens")
    ax.set_ylabel("held-out success (sampled, no hint)")
    ax.set_title("Agent on held-out seeds of every relay design")
    ax.legend()
    designed = runs.get("designed", [])
    if designed:
        iterations = min(len(run) for run in designed)
        its = list(range(iterations))
        regret = [estimate([run[i]["mean_regret"] for run in designed]) for i in its]
        axes[1].plot(its, [r.mean for r in regret], marker="o", markersize=3, color="tab:red")
        axes[1].fill_between(its, [r.mean - r.half_width for r in regret], [r.mean + r.half_width for r in regret],
                             alpha=0.2, color="tab:red")
        axes[1].set_xlabel("iteration")
        axes[1].set_title("Designer: mean regret of its designs")
        bottom = [0.0] * iterations
        for category, colour in (("edge", "tab:green"), ("trivial", "tab:gray"), ("impossible", "tab:purple"),
                                 ("invalid", "tab:orange")):
            share = [_mean([run[i]["categories"].get(category, 0.0) for run in designed]) for i in its]
            axes[2].bar(its, share, bottom=bottom, color=colour, label=category)
            bottom = [b + s for b, s in zip(bottom, share)]
        axes[2].set_xlabel("iteration")
        axes[2].set_title("Designer: share of its designs by category")
        axes[2].legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
