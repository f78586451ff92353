"""``spade serve`` throughput: steps/s and p99 step latency with 64 and 256 concurrent OpenEnv sessions, beside the same
episodes played in-process through ``gymnasium.make`` in the same run.

Each session plays TicTacToe as seat 0 against the reference solver, always choosing the first legal move, for
``--seconds`` per setting; the server is ``spade serve`` in its own process on localhost (WebSocket sessions through
OpenEnv's own client). Beside steps/s, the server's CPU time per step (user + system, from ``/proc``): on a machine
shared with other work, steps/s moves with the load and the CPU time per step much less. Needs
``pip install "spade-rl[openenv]"``.

    python benchmarks/bench_serve.py [--sessions 64 256] [--seconds 10] [--save]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import gymnasium as gym
import numpy as np
from openenv.core.generic_client import GenericEnvClient
from saved_figures import Figure, add_save_option, save_run

import spade_core  # noqa: F401 - registers the bundled spade/* environments
from spade_core.adapters.session import EpisodeSession


def game_id() -> str:
    return next(env_id for env_id in gym.registry if env_id.startswith("spade/TicTacToe-v"))


def first_legal(observation: dict) -> str:
    moves = (observation.get("metadata") or {}).get("legal_moves") or ["1"]
    return moves[0]


async def one_session(url: str, env_id: str, until: float, latencies: list[float], seed: int) -> None:
    client = GenericEnvClient(base_url=url, message_timeout_s=120.0)
    await client.connect()
    try:
        while time.perf_counter() < until:
            result = await client.reset(seed=seed, env_id=env_id)
            seed += 1
            while not result.done and time.perf_counter() < until:
                started = time.perf_counter()
                result = await client.step({"action": first_legal(result.observation)})
                latencies.append(time.perf_counter() - started)
    finally:
        await client.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def served(url: str, env_id: str, sessions: int, seconds: float, server_pid: int) -> tuple[float, float, float]:
    """Steps/s, p99 step latency and the server's CPU seconds per step."""
    latencies: list[float] = []
    cpu_before = cpu_seconds(server_pid)
    started = time.perf_counter()
    until = started + seconds
    await asyncio.gather(*(one_session(url, env_id, until, latencies, 1000 * i) for i in range(sessions)))
    rate = len(latencies) / (time.perf_counter() - started)
    return rate, float(np.percentile(latencies, 99)), (cpu_seconds(server_pid) - cpu_before) / len(latencies)


def in_process(env_id: str, seconds: float) -> tuple[float, float]:
    """The same policy through ``gymnasium.make`` (the learner's step plus the scripted seat's, as the server does)."""
    session = EpisodeSession()
    latencies, seed = [], 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        session.reset(env_id, seed)
        seed += 1
        while not session.done:
            t = time.perf_counter()
            session.step((session.info.get("legal_moves") or ["1"])[0])
            latencies.append(time.perf_counter() - t)
    return len(latencies) / (time.perf_counter() - started), float(np.percentile(latencies, 99))


def start_server(env_id: str, max_sessions: int) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "spade_core.cli.main", "serve", env_id, "--port", str(port),
                             "--max-sessions", str(max_sessions), "--sessions-per-client", str(max_sessions)],
                            stdout=subprocess.DEVNULL)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--seconds", type=float, default=10.0)
    add_save_option(parser)
    args = parser.parse_args()
    env_id = game_id()
    rate, p99 = in_process(env_id, args.seconds)
    rows = [("in-process gymnasium.make (baseline)", 1, rate, p99, None)]
    proc, url = start_server(env_id, max(args.sessions))
    try:
        for sessions in args.sessions:
            rate, p99, cpu = asyncio.run(served(url, env_id, sessions, args.seconds, proc.pid))
            rows.append(("spade serve (OpenEnv WebSocket)", sessions, rate, p99, cpu))
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    print(f"{'path':40} {'sessions':>8} {'steps/s':>10} {'p99 step ms':>12} {'server CPU ms/step':>19}")
    for name, sessions, rate, p99, cpu in rows:
        server_cpu = "-" if cpu is None else f"{cpu * 1000:.2f}"
        print(f"{name:40} {sessions:>8} {rate:>10.0f} {p99 * 1000:>12.2f} {server_cpu:>19}")
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.2f}")
    if args.save:
        save_run("bench_serve", args.save, figures_of(rows))


def figures_of(rows: list[tuple[str, int, float, float, float | None]]) -> dict[str, Figure]:
    """Steps/s, p99 step latency and (served rows) the server's CPU per step, of the in-process baseline (the first
    row) and of each session count."""
    figures = {}
    for i, (_, sessions, rate, p99, cpu) in enumerate(rows):
        name = "in_process" if i == 0 else f"served_{sessions}"
        figures[f"{name}_steps_per_s"] = Figure(rate, 0, " steps/s")
        figures[f"{name}_p99_ms"] = Figure(p99 * 1000, 2 if i == 0 else 0, " ms")
        if cpu is not None:
            figures[f"{name}_server_cpu_ms"] = Figure(cpu * 1000, 2, " ms")
    return figures


if __name__ == "__main__":
    main()
