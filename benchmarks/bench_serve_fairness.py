"""``spade serve`` fairness: how many of an honest client's steps are answered within its timeout while hostile
sessions send an environment's slowest action, beside the honest client alone in the same run.

The environment is the test fixture ``SlowActionTest`` (quick steps; the action ``slow`` sleeps ``--delay`` s, past
the server's step limit, so every hostile step is abandoned and holds its worker slot until it returns). Each hostile
session loops reset + ``slow``; the honest client plays quick actions for ``--steps`` steps, ``--interval`` s apart,
and counts a step as served when its answer is no error and came within ``--timeout`` s. Three settings, each on a fresh ``spade serve``
with the shipped defaults (``ServeConfig``) but the step limit: the honest client alone; ``--hostile`` sessions from
one client (one address); the same sessions each naming its own client (``X-Spade-Client``). Loopback only.
Needs ``pip install "spade-rl[openenv]"``.

    python benchmarks/bench_serve_fairness.py [--hostile 24] [--steps 64] [--timeout 1.0] [--delay 2.0] [--interval 0.1]
                                              [--save [VARIANT]]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from openenv.core.generic_client import GenericEnvClient
from saved_figures import Figure, add_save_option, keep, save_run

TESTS = Path(__file__).resolve().parent.parent / "tests"
STEP_LIMIT_S = 1.0
"""The server's step limit in this benchmark (below ``--delay``, so every slow step is abandoned)."""


@dataclass
class Served:
    steps: int
    in_time: int
    refused: int
    p50_s: float
    p99_s: float
    hostile_steps: int


def make_store(directory: Path, delay_s: float) -> tuple[Path, str]:
    """A store holding the slow-action fixture (run in-process, as a trusted environment)."""
    sys.path.insert(0, str(TESTS))
    from fixture_envs import slow_action_env

    from spade_registry.records import Status, Trust
    from spade_registry.store import RegistryStore

    manifest = {**slow_action_env.ENV_SPEC, "difficulty": {"delay_s": {"min": 0, "max": 60, "default": delay_s}}}
    path = directory / "fairness.sqlite3"
    with RegistryStore(path) as store:
        record, _ = store.add(code=Path(slow_action_env.__file__).read_text(), manifest=manifest,
                              status=Status.ACCEPTED, trust=Trust.BUNDLED, module="fixture_envs.slow_action_env")
    return path, record.env_id


def serve(port: int, store: str, env_id: str) -> None:
    """The server process: ``spade serve``'s app over the fixture store, default knobs but the step limit."""
    sys.path.insert(0, str(TESTS))
    import uvicorn

    import spade_core
    from spade_core.adapters.openenv_server import build_server
    from spade_core.adapters.serve_settings import ServeConfig

    spade_core.register_store(store, sync_seeds=False)
    config = ServeConfig(env_ids=(env_id,), step_timeout_s=STEP_LIMIT_S)
    uvicorn.run(build_server(config).app, host="127.0.0.1", port=port, log_level="warning",
                **config.uvicorn_settings())


def start_server(store: Path, env_id: str) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port), str(store), env_id],
                            env={**os.environ, "SPADE_STORE": str(store.parent / "default.sqlite3")})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/health", timeout=2).read()
            return proc, url
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise SystemExit("spade serve did not start") from None
            time.sleep(0.2)


async def hostile(url: str, env_id: str, name: str | None, stop: asyncio.Event, count: list[int]) -> None:
    headers = {"X-Spade-Client": name} if name else None
    client = GenericEnvClient(base_url=url, message_timeout_s=120.0, headers=headers)
    await client.connect()
    try:
        while not stop.is_set():
            result = await client.reset(seed=0, env_id=env_id)
            if not result.done:
                await client.step({"action": "slow"})
                count[0] += 1
    finally:
        await client.close()


async def honest(url: str, env_id: str, steps: int, timeout_s: float, interval_s: float) -> Served:
    client = GenericEnvClient(base_url=url, message_timeout_s=120.0, headers={"X-Spade-Client": "honest"})
    await client.connect()
    latencies, in_time, refused = [], 0, 0
    try:
        result = await client.reset(seed=0, env_id=env_id)
        for _ in range(steps):
            await asyncio.sleep(interval_s)  # a trainer's steps are spread out (the policy thinks between them)
            if result.done:
                result = await client.reset(seed=0, env_id=env_id)
            started = time.perf_counter()
            result = await client.step({"action": "ok"})
            latencies.append(time.perf_counter() - started)
            error = result.observation.get("error")
            refused += bool(error)
            in_time += not error and latencies[-1] <= timeout_s
    finally:
        await client.close()
    return Served(steps, in_time, refused, float(np.percentile(latencies, 50)), float(np.percentile(latencies, 99)),
                  0)


async def scenario(url: str, env_id: str, hostile_sessions: int, named: bool, args: argparse.Namespace) -> Served:
    stop, count = asyncio.Event(), [0]
    tasks = [asyncio.create_task(hostile(url, env_id, f"hostile-{i}" if named else None, stop, count))
             for i in range(hostile_sessions)]
    if tasks:
        await asyncio.sleep(args.delay * 1.5)  # every hostile session has slow work running
    served = await honest(url, env_id, args.steps, args.timeout, args.interval)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    served.hostile_steps = count[0]
    return served


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hostile", type=int, default=24)
    parser.add_argument("--steps", type=int, default=64)
    parser.add_argument("--timeout", type=float, default=1.0, help="the honest client's timeout per step (s)")
    parser.add_argument("--delay", type=float, default=2.0, help="how long the slow action takes (s)")
    parser.add_argument("--interval", type=float, default=0.1, help="the honest client's pause between steps (s)")
    parser.add_argument("--serve", nargs=3, metavar=("PORT", "STORE", "ENV_ID"), help=argparse.SUPPRESS)
    add_save_option(parser)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), args.serve[1], args.serve[2])
        return
    rows = []
    with tempfile.TemporaryDirectory(prefix="spade-bench-fair-") as tmp:
        store, env_id = make_store(Path(tmp), args.delay)
        for label, sessions, named in (("honest client alone (baseline)", 0, False),
                                       (f"+ {args.hostile} hostile sessions, one client", args.hostile, False),
                                       (f"+ {args.hostile} hostile sessions, {args.hostile} clients", args.hostile,
                                        True)):
            proc, url = start_server(store, env_id)
            try:
                rows.append((label, asyncio.run(scenario(url, env_id, sessions, named, args))))
            finally:
                proc.terminate()
                proc.wait(timeout=30)
    print(f"honest timeout {args.timeout:g} s per step; slow action {args.delay:g} s; server step limit "
          f"{STEP_LIMIT_S:g} s; default worker slots and quotas")
    figures = report(rows)
    print(json.dumps({label: vars(s) for label, s in rows}))
    if args.save:
        save_run("bench_serve_fairness", args.save, figures)


SETTINGS = ("alone", "one_client", "own_clients")
"""The figure names of the three settings, in the order they run (the honest client alone is the baseline)."""


def report(rows: list[tuple[str, Served]]) -> dict[str, Figure]:
    """Print each setting's honest steps answered in time, refused, p50 and p99; the figures as printed, named
    after :data:`SETTINGS`."""
    figures: dict[str, Figure] = {}
    print(f"{'setting':44} {'in time':>12} {'refused':>8} {'p50':>8} {'p99':>8} {'hostile steps':>14}")
    for name, (label, s) in zip(SETTINGS, rows, strict=True):
        share = (f"{keep(figures, f'{name}_in_time', s.in_time, 0)}/{s.steps} "
                 f"({keep(figures, f'{name}_in_time_pct', 100 * s.in_time / s.steps, 0, '%')})")
        print(f"{label:44} {share:>12} {keep(figures, f'{name}_refused', s.refused, 0):>8} "
              f"{keep(figures, f'{name}_p50_ms', s.p50_s * 1000, 0, ' ms'):>8} "
              f"{keep(figures, f'{name}_p99_ms', s.p99_s * 1000, 0, ' ms'):>8} {s.hostile_steps:>14}")
    return figures

if __name__ == "__main__":
    main()
