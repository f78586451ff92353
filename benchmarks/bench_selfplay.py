"""Self-play iteration time split: the share of wall time that is neither generation nor the optimiser step.

Runs real iterations (embedded defaults, or ``--tiny`` for a locally built tiny model) and prints, per iteration,
generate / train / validate / other seconds and the overhead share (validate + other) next to its target (<= 10%).
Agent-turn batching vs one environment at a time is measured by ``bench_rollout.py``.

    python benchmarks/bench_selfplay.py [--iterations 1] [--tiny]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.loop import SelfPlay
from spade_core.selfplay.metrics import read_metrics
from spade_core.typed_config import load_config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1)
    parser.add_argument("--tiny", action="store_true", help="use a tiny random model instead of SmolLM2")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        overrides = [f"run_dir={tmp}/run", f"store={tmp}/store.sqlite3", f"iterations={args.iterations}"]
        if args.tiny:
            from spade_core.models.tiny import build_tiny_model

            overrides += [f"model.spec={build_tiny_model(Path(tmp) / 'tiny')}", "designer.worked_example=false",
                          "memory.embedder=hashing"]
        SelfPlay(load_config(SelfPlayConfig, None, overrides)).run()
        metrics = read_metrics(Path(tmp) / "run")
    print(f"{'iteration':>9} {'total s':>9} {'generate':>9} {'train':>8} {'validate':>9} {'other':>8} "
          f"{'overhead':>9}  target")
    for m in metrics:
        t = m.time
        overhead = (t.validate + t.other) / t.total if t.total else 0.0
        print(f"{m.iteration:>9} {t.total:>9.1f} {t.generate:>9.1f} {t.train:>8.1f} {t.validate:>9.1f} "
              f"{t.other:>8.1f} {overhead:>9.1%}  <= 10% (baseline: generation + optimiser time of the same run)")


if __name__ == "__main__":
    main()
