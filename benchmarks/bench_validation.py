"""Validation throughput: candidates per second for a typical seed environment, and the time share per stage.

Printed next to the cost of one bare reset+step episode of the same environment in the same run. Target:
>= 5 validated candidates per second on 2 cores with default settings.

    python benchmarks/bench_validation.py [--candidates 20] [--workers 2]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

import gymnasium as gym

import spade_core  # noqa: F401 - registers the bundled environments
from spade_core.validation import validate_many

SEED_ENV = Path(__file__).resolve().parents[1] / "tests" / "validation" / "corpus" / "good_secret_number.py"


def bare_episode_seconds(env_id: str, n: int = 200) -> float:
    """One reset plus reference-played steps of a bundled env, in-process, no sandbox."""
    env = gym.make(env_id).unwrapped
    started = time.perf_counter()
    for seed in range(n):
        env.reset(seed=seed)
        while True:
            _, _, terminated, truncated, _ = env.step(env.reference_action())
            if terminated or truncated:
                break
    return (time.perf_counter() - started) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    base = SEED_ENV.read_text()
    # distinct candidates (different code => different content hash), same behaviour
    sources = [(f"candidate_{i}", base + f"\n\nVARIANT = {i}\n") for i in range(args.candidates)]
    validate_many(sources[:1], workers=1)  # warm the sandbox pool
    started = time.perf_counter()
    reports = validate_many(sources, workers=args.workers)
    elapsed = time.perf_counter() - started
    accepted = sum(r.accepted for r in reports)
    per_stage: dict[str, float] = defaultdict(float)
    for report in reports:
        for stage in report.stages:
            per_stage[stage.stage] += stage.seconds
    total = sum(per_stage.values()) or 1.0
    episode = bare_episode_seconds("spade/ArithmeticChain-v0")
    rate = len(reports) / elapsed
    print(f"validated {len(reports)} candidates ({accepted} accepted) in {elapsed:.2f} s with {args.workers} workers")
    print(f"{'figure':<46} {'value':>12} {'baseline':>14} {'ratio':>9}  target")
    print(f"{'candidates per second':<46} {rate:>12.2f} {1 / episode:>14.1f} {rate * episode:>9.5f}  >= 5/s "
          "(baseline: bare reset+step episodes per second)")
    print(f"{'seconds per candidate':<46} {elapsed / len(reports):>12.4f} {episode:>14.6f} "
          f"{elapsed / len(reports) / episode:>9.0f}")
    print("\nshare of validation time per stage:")
    for stage, seconds in sorted(per_stage.items(), key=lambda kv: -kv[1]):
        print(f"  {stage:<16} {seconds / total:>6.1%}  ({seconds / len(reports) * 1e3:.1f} ms per candidate)")


if __name__ == "__main__":
    main()
