"""Registry benchmarks: ``import spade_core`` with 100,000 records, and warm ``gymnasium.make`` latency.

Each figure is printed next to the same figure for plain Gymnasium in the same run, with the ratio.
Targets: import + registration of 100,000 records <= 1.5 s; make p50 <= 20 ms (warm, bundled env).

    python benchmarks/bench_registry.py [--records 100000] [--repeats 5] [--store KEEP.sqlite3] [--save]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from saved_figures import Figure, add_save_option, save_run

TIMED = ("import time; t, c = time.perf_counter(), time.process_time(); import {module}; "
         "print(time.perf_counter() - t, time.process_time() - c)")
IMPORT_SPADE = TIMED.format(module="spade_core")
IMPORT_GYM = TIMED.format(module="gymnasium")
COUNT = "import gymnasium as gym, spade_core; print(sum(1 for k in gym.registry if k.startswith('spade/')))"


def build_store(path: Path, n: int) -> None:
    """Fill a store with ``n`` accepted records through the public API (fsync relaxed for the set-up only)."""
    from spade_registry.records import Status
    from spade_registry.store import RegistryStore

    with RegistryStore(path) as store:
        store._conn.execute("PRAGMA synchronous = OFF")  # set-up speed only; the measured import is unaffected
        for i in range(n):
            manifest = {"name": f"Bench{i}", "domain": "math", "description": "benchmark record",
                        "reward_range": [0, 1], "max_turns": 4}
            store.add(code=f"ENV_SPEC = {{}}\nX = {i}\n", manifest=manifest, status=Status.ACCEPTED)


def time_subprocess(code: str, env: dict[str, str], repeats: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of ``code``'s import in fresh interpreters (CPU time is what a busy
    machine does not inflate)."""
    wall, cpu = [], []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        w, c = out.stdout.strip().splitlines()[-1].split()
        wall.append(float(w))
        cpu.append(float(c))
    return statistics.median(wall), statistics.median(cpu)


def latest_version(name: str) -> str:
    """The newest registered ``spade/<name>-vN`` (a changed bundled seed gets the next version)."""
    import gymnasium as gym

    versions = [spec.version for spec in gym.registry.values()
                if spec.namespace == "spade" and spec.name == name and spec.version is not None]
    return f"spade/{name}-v{max(versions)}"


def make_latency(env_id: str, n: int) -> tuple[float, float]:
    import gymnasium as gym

    gym.make(env_id).close()  # warm: imports and caches done once
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        env = gym.make(env_id)
        samples.append(time.perf_counter() - t)
        env.close()
    samples.sort()
    return samples[len(samples) // 2], samples[int(len(samples) * 0.99) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--store", type=Path, default=None,
                        help="reuse this store (built with --records records on the first run, then kept)")
    add_save_option(parser)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        store = args.store or Path(tmp) / "bench.sqlite3"
        if not store.exists():
            t = time.perf_counter()
            build_store(store, args.records)
            print(f"built a store with {args.records:,} records in {time.perf_counter() - t:.1f} s "
                  "(set-up, not measured)", flush=True)
        env = {**os.environ, "SPADE_STORE": str(store)}
        subprocess.run([sys.executable, "-c", "import spade_core"], env=env, check=True)  # first run syncs seeds
        registered = int(subprocess.run([sys.executable, "-c", COUNT], env=env, capture_output=True, text=True,
                                        check=True).stdout)
        spade = time_subprocess(IMPORT_SPADE, env, args.repeats)
        gym_only = time_subprocess(IMPORT_GYM, env, args.repeats)

    print()
    print(f"{'figure':<52} {'SPADE':>10} {'baseline':>10} {'ratio':>7}  target")
    label = f"import + registration ({registered:,} spade envs)"
    print(f"{label + ', wall s':<52} {spade[0]:>10.3f} {gym_only[0]:>10.3f} {spade[0] / gym_only[0]:>7.2f}  "
          "<= 1.5 s (baseline: import gymnasium)")
    print(f"{label + ', CPU s':<52} {spade[1]:>10.3f} {gym_only[1]:>10.3f} {spade[1] / gym_only[1]:>7.2f}")
    import spade_core  # noqa: F401 - registers the default store for the make benchmark

    tictactoe = latest_version("TicTacToe")
    p50, p99 = make_latency(tictactoe, 300)
    b50, b99 = make_latency("CartPole-v1", 300)
    print(f"{'gymnasium.make p50, ms (' + tictactoe + ')':<52} {p50 * 1e3:>10.3f} {b50 * 1e3:>10.3f} "
          f"{p50 / b50:>7.2f}  <= 20 ms (baseline: CartPole-v1)")
    print(f"{'gymnasium.make p99, ms':<52} {p99 * 1e3:>10.3f} {b99 * 1e3:>10.3f} {p99 / b99:>7.2f}")
    if args.save:
        save_run("bench_registry", args.save, {
            "registered": Figure(registered, decimals=0), "import_wall_s": Figure(spade[0], unit=" s"),
            "import_cpu_s": Figure(spade[1], unit=" CPU s"), "gym_import_wall_s": Figure(gym_only[0], unit=" s"),
            "gym_import_cpu_s": Figure(gym_only[1], unit=" CPU s"), "make_p50_ms": Figure(p50 * 1e3, unit=" ms"),
            "cartpole_make_p50_ms": Figure(b50 * 1e3, unit=" ms"),
        })


if __name__ == "__main__":
    main()
