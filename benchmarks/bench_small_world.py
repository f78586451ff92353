"""Small world: does SPADE's objective push in the right direction, and can the designer hack it? The defended
designer (regret gated by the hint-only arm) vs the undefended one (pure regret) vs a uniform designer vs a fixed
pool; ``--candidates`` adds the other defences measured (the learnability gate with claw-back; regret blended with
learnability).

Every arm runs the real pipeline (design program -> extraction -> validation in the sandbox -> registry store ->
episode runner -> regret -> per-role advantages -> reference trainer) with a tiny policy trained from scratch on the
CPU, for the same number of trained agent episodes (one or two letters each; the defended arm also plays K hint-only
episodes per design, measured and not trained on: the table reports tokens and episodes per iteration). The policy
is built once (the format pass, seed 0) and every arm and seed starts from that same copy; the seeds vary everything
self-play draws (designs sampled, episode seeds, the fixed pool, the trainer's seed). Printed: the table (mean ± 95%
CI over seeds), then the plot is written (default ``docs/small_world.png``) and the raw records as JSON.

    python benchmarks/bench_small_world.py                        # 5 seeds, 4 arms
    python benchmarks/bench_small_world.py --seeds 3 --iterations 12 --candidates --plot /tmp/small_world.png
    python benchmarks/bench_small_world.py --merge runs.json --save    # the table of saved runs, its figures saved

The Chain family (README, "The chain world"): ``--family chain`` with the pre-registered sizes, the arms named in
``VARIANTS`` (the cheaper defences; ``learnability``; ``blend`` and ``defended-cheap`` use the ``--defence`` knobs),
and the per-token table (area under held-out success against agent tokens at an equal budget, paired differences to
uniform and fixed, tokens to reach 0.5 and 0.9):

    python benchmarks/bench_small_world.py --family chain --iterations 16 --designs 12 --k 8 --eval-seeds 8 \
        --arms uniform,fixed,defended-cheap,learnability,blend --defence margin --seeds 10 --first-seed 100

The fourth variant's designers keep exploring (``EDITING``): ``edit-defended``, ``edit-learnability`` and
``edit-blend`` are ``defended-cheap``, ``learnability`` and ``blend`` with one-knob edits of their samples and no
penalty for a design no hinted episode solved.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from saved_figures import Figure, add_save_option, keep, save_run

ROOT = Path(__file__).resolve().parents[1]
DEFENCES: dict[str, dict] = {
    "full": {},  # the hint-only arm on every seed of every design
    "margin": {"margin": 0.0},  # only where hinted success exceeds unhinted
    "fraction": {"fraction": 0.25},  # on 2 of 8 seeds
    "reuse": {"reuse": 4},  # an environment's hint-only rate kept 4 iterations
    "margin+reuse": {"margin": 0.0, "reuse": 4},
    "margin+fraction": {"margin": 0.0, "fraction": 0.25},  # only where hinted exceeds unhinted, on 2 of 8 seeds
}
"""The cheaper defences measured (``HintOnlyPlan`` knobs), by name."""
EDITING = {"edit_share": 1 / 6, "no_hint_success_penalty": 0.0}
"""The exploring designer of the Chain world's fourth variant (README): 2 of 12 designs an iteration are one-knob
edits of its samples, and a design no hinted episode solved pays 0, as a trivial one does."""


def variants(defence: str) -> dict[str, dict]:
    """Every arm the benchmark can play, by name, as ``WorldConfig`` overrides (``defence``: the knobs of
    ``defended-cheap`` and ``blend``)."""
    out: dict[str, dict] = {arm: {"arm": arm} for arm in ("defended", "undefended", "uniform", "fixed")}
    from spade_core.training.regret import HintOnlyPlan

    plans = {name: HintOnlyPlan(**knobs) for name, knobs in DEFENCES.items()}
    out.update({f"defended-{name}": {"arm": "defended", "hint_only": plan} for name, plan in plans.items() if
                plan.staged})
    out["defended-cheap"] = {"arm": "defended", "hint_only": plans[defence]}
    out["learnability"] = {"arm": "undefended", "objective": "learnability"}
    out["blend"] = {"arm": "defended", "learnability_weight": 0.5, "hint_only": plans[defence]}
    out["learnability_gate"] = {"arm": "undefended", "learnability_gate": True}
    out["undefended-blend"] = {"arm": "undefended", "learnability_weight": 0.5}
    for name in ("defended-cheap", "learnability", "blend"):
        out[f"edit-{name.split('-')[0]}"] = {**out[name], **EDITING}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0, help="seeds first-seed .. first-seed + seeds - 1")
    parser.add_argument("--merge", nargs="+", default=None, metavar="JSON",
                        help="print the table and write the plot of runs saved with --json (several: their seeds "
                             "together, e.g. two halves run side by side), playing nothing")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--arms", default="defended,undefended,uniform,fixed",
                        help="comma-separated names from VARIANTS (see variants())")
    parser.add_argument("--family", default="relay", choices=("relay", "chain"))
    parser.add_argument("--defence", default="margin", choices=tuple(DEFENCES),
                        help="the hint-only knobs of defended-cheap and blend")
    parser.add_argument("--designs", type=int, default=None, help="designs per iteration (default: WorldConfig's)")
    parser.add_argument("--k", type=int, default=None, help="paired seeds per design (default: WorldConfig's)")
    parser.add_argument("--eval-seeds", type=int, default=None, help="held-out seeds per relay design")
    parser.add_argument("--candidates", action="store_true",
                        help="also the other defences: learnability gate with claw-back, regret blended with learnability")
    parser.add_argument("--plot", default=None, help="default: docs/small_world.png (Relay), "
                        "docs/small_world_chain.png (Chain)")
    parser.add_argument("--json", default=None, help="write every run's iteration records here")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--policy", default=None, help="a policy folder build_policy wrote (default: build one)")
    parser.add_argument("--pretrain-steps", type=int, default=None,
                        help="format-pass steps when building the policy (default: PretrainConfig's for the family)")
    parser.add_argument("--unfit-ok", action="store_true",
                        help="play even if the policy fails the format check (its runs then measure nothing)")
    add_save_option(parser)
    args = parser.parse_args(argv)
    if args.plot is None:
        args.plot = str(ROOT / "docs" / ("small_world_chain.png" if args.family == "chain" else "small_world.png"))

    import torch

    from spade_core.smallworld.format_check import check_format
    from spade_core.smallworld.policy import PretrainConfig, build_policy
    from spade_core.smallworld.summary import plot
    from spade_core.smallworld.world import ARMS, DESIGNED_ARMS, WorldConfig, run_world, validate_family

    torch.set_num_threads(args.threads)
    known = variants(args.defence)
    names = [arm for arm in args.arms.split(",") if arm] + (["learnability_gate", "undefended-blend"]
                                                             if args.candidates else [])
    unknown = [name for name in names if name not in known]
    if unknown:
        parser.error(f"unknown arm(s) {unknown}; the arms are {sorted(known)}")
    sizes = {"family": args.family, **{key: value for key, value in (
        ("designs_per_iteration", args.designs), ("seeds_per_design", args.k), ("eval_seeds", args.eval_seeds))
        if value is not None}}
    chosen = {name: {**known[name], **sizes} for name in names}
    if args.merge:
        merged: dict[str, list[list[dict]]] = {}
        for name in args.merge:
            for arm, seeds in json.loads(Path(name).read_text()).items():
                merged.setdefault(arm, []).extend(seeds)
        figures = report(merged)
        if args.save:
            save_run("bench_small_world", args.save, figures)
        designers = [arm for arm in merged if arm in DESIGNED_ARMS or arm not in ARMS]  # candidates design too
        print(f"plot: {plot(merged, args.plot, designers=designers)}")
        return 0
    arms = list(chosen)
    runs: dict[str, list[list[dict]]] = {arm: [] for arm in arms}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="spade-small-world-") as tmp:
        t0 = time.perf_counter()
        policy = (Path(args.policy) if args.policy else
                  build_policy(Path(tmp) / "policy", seed=0, family=args.family,
                               pretrain=PretrainConfig.for_family(args.family, steps=args.pretrain_steps)))
        print(f"policy ready in {time.perf_counter() - t0:.0f} s", flush=True)
        fitness = check_format(policy, args.family)
        print(fitness.line(), flush=True)
        if not fitness.fit and not args.unfit_ok:
            print("error: a policy that cannot answer in its family's shapes gives no design any signal, so every "
                  "arm would stay at zero; build it with more format steps (--pretrain-steps) or pass --unfit-ok",
                  file=sys.stderr)
            return 2
        t0 = time.perf_counter()
        validated = validate_family(args.family, Path(tmp) / "validated")
        print(f"{len(validated.env_ids)} designs validated once in {time.perf_counter() - t0:.0f} s", flush=True)
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            for arm in arms:
                t0 = time.perf_counter()
                records = run_world(WorldConfig(seed=seed, iterations=args.iterations, **chosen[arm]), policy,
                                    Path(tmp) / f"{arm}-{seed}", validated)
                runs[arm].append(records)
                exploit = [r["categories"].get("exploit", 0.0) for r in records]
                print(f"  seed {seed} {arm:17s} held-out {records[0]['held_out_before']:.2f} -> "
                      f"{records[-1]['held_out_success']:.2f}  exploit share {exploit[0]:.2f} -> {exploit[-1]:.2f}"
                      f"  ({time.perf_counter() - t0:.0f} s)", flush=True)
                if args.json:  # partial results survive an interrupted run
                    Path(args.json).write_text(json.dumps(runs))
    print()
    figures = report(runs)
    if args.save:
        save_run("bench_small_world", args.save, figures)
    print(f"\n{args.seeds} seeds x {len(arms)} arms x {args.iterations} iterations in "
          f"{time.perf_counter() - started:.0f} s")
    designers = [arm for arm in arms if chosen[arm]["arm"] in DESIGNED_ARMS]
    print(f"plot: {plot(runs, args.plot, designers=designers)}")
    if args.json:
        Path(args.json).write_text(json.dumps(runs))
    return 0


ARM_FIGURES = {"held_out_end": ("held-out success at the end", 1, 3, ""),
               "held_out_mean": ("mean over the run", 1, 3, ""),
               "exploit_early": ("exploit share, first third", 100, 0, " %"),
               "exploit_late": ("last third", 100, 0, " %"),
               "episodes_per_iteration": ("agent episodes per iteration", 1, 0, "")}
"""The figures of each arm that are saved: the summary table's column, its printed label, the factor it is shown
with (shares as percentages), decimals and unit."""


def show_arms(rows: list[dict[str, Any]]) -> dict[str, Figure]:
    """Print each arm's saved figures (the means over seeds of :data:`ARM_FIGURES`), named ``<arm>_<column>``
    (the arm with '_' for '-'); the figures as printed."""
    figures: dict[str, Figure] = {}
    for row in rows:
        arm = row["arm"].replace("-", "_")
        cells = [f"{label} {keep(figures, f'{arm}_{column}', row[column].mean * factor, decimals, unit)}"
                 for column, (label, factor, decimals, unit) in ARM_FIGURES.items()]
        print(f"{row['arm']} ({row['seeds']} seeds): " + "; ".join(cells))
    return figures


def report(runs: dict[str, list[list[dict]]]) -> dict[str, Figure]:
    """Print the comparison table and the per-token table of ``runs`` (each computed once) with their figures."""
    from spade_core.smallworld.summary import format_table, table, token_table

    rows = table(runs)
    print(format_table(rows))
    return show_arms(rows) | show_tokens(token_table(runs))


def show_tokens(rows: list[dict[str, Any]]) -> dict[str, Figure]:
    """Print each arm's area under held-out success against agent tokens at the equal budget, its paired difference
    to each reference arm's (uniform, fixed) with the 95% half-width, its agent tokens per iteration and their ratio
    to uniform's, and the budget, named ``<arm>_area``, ``<arm>_minus_<ref>``, ``<arm>_minus_<ref>_half_width``,
    ``<arm>_tokens_per_iteration``, ``<arm>_tokens_vs_uniform`` and ``token_budget``; the figures as printed."""
    from spade_core.smallworld.summary import format_token_table

    figures: dict[str, Figure] = {}
    if rows:
        keep(figures, "token_budget", rows[0]["budget"], 0)
    print(format_token_table(rows))  # its heading states the budget
    uniform = next((row["tokens_per_iteration"].mean for row in rows if row["arm"] == "uniform"), None)
    for row in rows:
        arm = row["arm"].replace("-", "_")
        line = f"{row['arm']} per agent token: area {keep(figures, f'{arm}_area', row['area'].mean, 3)}"
        for ref in ("uniform", "fixed"):
            if f"vs_{ref}" in row:
                diff = row[f"vs_{ref}"]
                line += (f"; minus {ref} {keep(figures, f'{arm}_minus_{ref}', diff.mean, 3)} ± "
                         f"{keep(figures, f'{arm}_minus_{ref}_half_width', diff.half_width, 3)}")
        tokens = row["tokens_per_iteration"].mean
        line += f"; agent tokens per iteration {keep(figures, f'{arm}_tokens_per_iteration', tokens, 0)}"
        if uniform is not None and row["arm"] != "uniform":
            line += f" ({keep(figures, f'{arm}_tokens_vs_uniform', tokens / uniform, 2, 'x')} uniform's)"
        print(line)
    return figures


if __name__ == "__main__":
    sys.exit(main())
