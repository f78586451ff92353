"""Small world: does SPADE's objective push in the right direction? Designed vs uniform designer vs fixed pool.

Every arm runs the real pipeline (design program -> extraction -> validation in the sandbox -> registry store ->
episode runner -> regret -> per-role advantages -> reference trainer) with a tiny policy trained from scratch on the
CPU, for the same number of agent episodes (one or two letters each; the table reports the tokens). The policy is built once
(the format pass, seed 0) and every arm and seed starts from that same copy; the seeds vary everything self-play
draws (designs sampled, episode seeds, the fixed pool, the trainer's seed). Printed: the table (mean ± 95% CI over seeds), then the
plot is written (default ``docs/small_world.png``) and the raw records as JSON.

    python benchmarks/bench_small_world.py                        # 3 seeds, 3 arms
    python benchmarks/bench_small_world.py --seeds 5 --iterations 20 --plot /tmp/small_world.png
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--arms", default="designed,uniform,fixed")
    parser.add_argument("--plot", default=str(ROOT / "docs" / "small_world.png"))
    parser.add_argument("--json", default=None, help="write every run's iteration records here")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--policy", default=None, help="a policy folder build_policy wrote (default: build one)")
    args = parser.parse_args(argv)

    import torch

    from spade_core.smallworld.policy import build_policy
    from spade_core.smallworld.summary import format_table, plot, table
    from spade_core.smallworld.world import WorldConfig, run_world

    torch.set_num_threads(args.threads)
    arms = [a for a in args.arms.split(",") if a]
    runs: dict[str, list[list[dict]]] = {arm: [] for arm in arms}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="spade-small-world-") as tmp:
        t0 = time.perf_counter()
        policy = Path(args.policy) if args.policy else build_policy(Path(tmp) / "policy", seed=0)
        print(f"policy ready in {time.perf_counter() - t0:.0f} s", flush=True)
        for seed in range(args.seeds):
            for arm in arms:
                t0 = time.perf_counter()
                records = run_world(WorldConfig(arm=arm, seed=seed, iterations=args.iterations), policy,
                                    Path(tmp) / f"{arm}-{seed}")
                runs[arm].append(records)
                print(f"  {arm:9s} held-out {records[0]['held_out_success']:.2f} -> {records[-1]['held_out_success']:.2f}"
                      f"  regret {records[0]['mean_regret']:+.3f} -> {records[-1]['mean_regret']:+.3f}"
                      f"  ({time.perf_counter() - t0:.0f} s)", flush=True)
    print()
    print(format_table(table(runs)))
    print(f"\n{args.seeds} seeds x {len(arms)} arms x {args.iterations} iterations in "
          f"{time.perf_counter() - started:.0f} s")
    print(f"plot: {plot(runs, args.plot)}")
    if args.json:
        Path(args.json).write_text(json.dumps(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
