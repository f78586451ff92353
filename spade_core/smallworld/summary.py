"""Turning small-world runs into the comparison table, the plot and the directions the test asserts.

A run is the list of iteration records :func:`~spade_core.smallworld.world.run_world` returns (plain dicts). Across
seeds, every figure is a mean with a 95% Student-t confidence interval.
"""

from __future__ import annotations

import math
import statistics
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
    designer finds the edge and falls as the agent masters it), the share of trivial + impossible designs, of
    exploits (and their best third) and of edge designs, the share of the most frequent design, and held-out success
    (start, end and mean over the run)."""
    early, late = _thirds(run)

    def waste(records: Run) -> float:
        return _mean([r["categories"]["trivial"] + r["categories"]["impossible"] for r in records])

    def share(records: Run, category: str) -> float:
        return _mean([r["categories"].get(category, 0.0) for r in records])

    def top_share(records: Run) -> float:
        designs = [d["design"] for r in records for d in r["designs"] if d["design"]]
        return max(designs.count(d) for d in set(designs)) / len(designs) if designs else 0.0

    regrets = [r["mean_regret"] for r in run]
    return {
        "regret_early": _mean([r["mean_regret"] for r in early]), "regret_late": _mean([r["mean_regret"] for r in late]),
        "regret_peak": _peak(regrets, len(early)),
        "waste_early": waste(early), "waste_late": waste(late),
        "exploit_early": share(early, "exploit"), "exploit_late": share(late, "exploit"),
        "exploit_peak": _peak([r["categories"].get("exploit", 0.0) for r in run], len(early)),
        "edge_late": share(late, "edge"),
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
            "episodes_per_iteration": estimate([_mean([float(r.get("agent_episodes", 0)) for r in run])
                                                for run in seeds]),
            "exploit_early": estimate([d["exploit_early"] for d in dirs]),
            "exploit_late": estimate([d["exploit_late"] for d in dirs]),
            "regret_early": estimate([d["regret_early"] for d in dirs]),
            "regret_peak": estimate([d["regret_peak"] for d in dirs]),
            "regret_late": estimate([d["regret_late"] for d in dirs]),
            "waste_early": estimate([d["waste_early"] for d in dirs]),
            "waste_late": estimate([d["waste_late"] for d in dirs]),
        })
    return rows


def held_out_curve(run: Run) -> list[tuple[float, float]]:
    """Held-out success against cumulative agent tokens: ``(0, before training)`` (the first evaluation when the
    run did not record it), then one point per iteration."""
    first = run[0].get("held_out_before")
    start = run[0]["held_out_success"] if first is None else first
    return [(0.0, float(start))] + [(float(r["cumulative_agent_tokens"]), float(r["held_out_success"])) for r in run]


def area_per_token(run: Run, budget: float) -> float:
    """The area under :func:`held_out_curve` (straight lines between evaluations) from 0 to ``budget`` agent tokens,
    divided by ``budget``: mean held-out success over the budget, 1 for an agent that is perfect from the start.
    Past the last evaluation the curve stays at its last value."""
    if budget <= 0:
        raise ValueError(f"the token budget must be > 0, got {budget}")
    points = held_out_curve(run)
    area = 0.0
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 >= budget:
            break
        if x1 > budget:  # cut the segment at the budget
            y1, x1 = y0 + (y1 - y0) * (budget - x0) / (x1 - x0), budget
        area += (x1 - x0) * (y0 + y1) / 2
    last_x, last_y = points[-1]
    if last_x < budget:
        area += (budget - last_x) * last_y
    return area / budget


def tokens_to_reach(run: Run, level: float) -> float | None:
    """The cumulative agent tokens at the first evaluation with held-out success >= ``level`` (None: never)."""
    return next((x for x, y in held_out_curve(run) if y >= level), None)


def token_budget(runs: dict[str, list[Run]]) -> float:
    """The equal budget every arm is compared at: the smallest, over arms, of the median agent tokens its runs spent
    in all. A run that spent fewer (a designer that stopped writing valid designs plays no episodes) is held at its
    last evaluation, as :func:`area_per_token` holds every curve, so one such run cannot shrink every arm's budget
    to its own (the rule before the Chain world's third variant, the fewest tokens of any run, did: README)."""
    return min(statistics.median(float(run[-1]["cumulative_agent_tokens"]) for run in seeds)
               for seeds in runs.values() if seeds)


REACH_LEVELS = (0.5, 0.9)
"""The held-out success levels whose token cost the per-token table reports."""


def token_table(runs: dict[str, list[Run]], references: Sequence[str] = ("uniform", "fixed")) -> list[dict[str, Any]]:
    """Per arm, at the equal budget :func:`token_budget`: :func:`area_per_token` and its paired difference to each
    reference arm present (seed by seed, runs in the same seed order), the tokens to reach each of
    :data:`REACH_LEVELS` (over the seeds that reached it, with how many did), agent tokens per iteration and the
    last third's exploit share; each an :class:`Estimate` over seeds."""
    budget = token_budget(runs)
    areas = {arm: [area_per_token(run, budget) for run in seeds] for arm, seeds in runs.items()}
    rows = []
    for arm, seeds in runs.items():
        row: dict[str, Any] = {"arm": arm, "seeds": len(seeds), "budget": budget, "area": estimate(areas[arm])}
        for ref in references:
            if ref in runs and ref != arm:
                pairs = list(zip(areas[arm], areas[ref]))
                row[f"vs_{ref}"] = estimate([a - b for a, b in pairs])
        for level in REACH_LEVELS:
            reached = [t for t in (tokens_to_reach(run, level) for run in seeds) if t is not None]
            row[f"reach_{level}"] = (estimate(reached), len(reached))
        row["tokens_per_iteration"] = estimate([float(run[-1]["cumulative_agent_tokens"]) / len(run) for run in seeds])
        row["exploit_late"] = estimate([directions(run)["exploit_late"] for run in seeds])
        rows.append(row)
    return rows


def format_token_table(rows: list[dict[str, Any]], references: Sequence[str] = ("uniform", "fixed")) -> str:
    """The per-token table as Markdown (the budget in the heading)."""
    if not rows:
        return ""
    headers = ("arm", "seeds", "area under held-out vs tokens", *(f"minus {ref} (paired)" for ref in references),
               *(f"tokens to {level}" for level in REACH_LEVELS), "agent tokens / iteration",
               "exploit share (last third)")
    lines = [f"equal budget: {rows[0]['budget']:,.0f} agent tokens per run",
             "| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        cells = [row["arm"], str(row["seeds"]), str(row["area"])]
        cells += [str(row[f"vs_{ref}"]) if f"vs_{ref}" in row else "—" for ref in references]
        for level in REACH_LEVELS:
            reach, count = row[f"reach_{level}"]
            cells.append(f"{reach.mean:,.0f} ± {reach.half_width:,.0f} ({count}/{row['seeds']})" if count > 1 else
                         f"{reach.mean:,.0f} ({count}/{row['seeds']})" if count else f"not reached (0/{row['seeds']})")
        cells += [f"{row['tokens_per_iteration'].mean:,.0f}", str(row["exploit_late"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def format_table(rows: list[dict[str, Any]]) -> str:
    headers = ("arm", "seeds", "held-out success (end)", "held-out success (mean over run)", "agent tokens",
               "agent episodes / iteration", "exploit share (first → last third)",
               "trivial+impossible share (first → last third)", "designer regret (first → best → last third)")
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        lines.append(f"| {row['arm']} | {row['seeds']} | {row['held_out_end']} | {row['held_out_mean']} | "
                     f"{row['agent_tokens'].mean:,.0f} | {row['episodes_per_iteration'].mean:.0f} | "
                     f"{row['exploit_early']} → {row['exploit_late']} | {row['waste_early']} → {row['waste_late']} | "
                     f"{row['regret_early']} → {row['regret_peak']} → {row['regret_late']} |")
    return "\n".join(lines)


def plot(runs: dict[str, list[Run]], path: str | Path, *, designers: Sequence[str] = ()) -> Path:
    """Three panels: held-out success against agent tokens per arm (mean and 95% band over seeds); the share of
    exploit designs per iteration of every arm in ``designers`` (those where the policy designs); their share of
    edge (relay) designs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.2))
    colours = {}
    ax = axes[0]
    for arm, seeds in runs.items():
        iterations = min(len(run) for run in seeds)
        curves = [held_out_curve(run) for run in seeds]
        tokens = [_mean([curve[i][0] for curve in curves]) for i in range(iterations + 1)]
        points = [estimate([curve[i][1] for curve in curves]) for i in range(iterations + 1)]
        line, = ax.plot(tokens, [p.mean for p in points], marker="o", markersize=3, label=arm)
        colours[arm] = line.get_color()
        ax.fill_between(tokens, [max(0.0, p.mean - p.half_width) for p in points],
                        [min(1.0, p.mean + p.half_width) for p in points], alpha=0.15, color=line.get_color())
    ax.axvline(token_budget(runs), color="grey", linestyle=":", linewidth=1, label="equal budget")
    ax.set_xlabel("agent tokens (hint-only episodes included)")
    ax.set_ylabel("held-out success (sampled, no hint)")
    ax.set_title("Agent on held-out seeds of every relay design")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8)
    for ax, category, title in ((axes[1], "exploit", "Designer: share of exploit designs (whisper, leaky relay)"),
                                (axes[2], "edge", "Designer: share of edge designs (relay)")):
        for arm, seeds in runs.items():
            if arm not in designers:
                continue  # a sampler or a fixed pool: no designer
            iterations = min(len(run) for run in seeds)
            its = list(range(iterations))
            points = [estimate([run[i]["categories"].get(category, 0.0) for run in seeds]) for i in its]
            ax.plot(its, [p.mean for p in points], marker="o", markersize=3, label=arm, color=colours.get(arm))
            ax.fill_between(its, [max(0.0, p.mean - p.half_width) for p in points],
                            [min(1.0, p.mean + p.half_width) for p in points], alpha=0.15, color=colours.get(arm))
        ax.set_xlabel("iteration")
        ax.set_ylabel("share of the iteration's designs")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
