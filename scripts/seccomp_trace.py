"""Trace the system calls sandbox workers make after their seccomp filter is loaded, while a test suite runs.

    python scripts/seccomp_trace.py OUT.json -- tests/sandbox -q -x -n0 -p no:randomly

Runs pytest in this process with every pool's launcher attached to ``strace -f`` (as soon as the launcher has
started, before it forks a worker). Each worker's calls count from its ``prctl(PR_SET_SECCOMP)`` on, so what the
launcher and a worker's own set-up do is not counted. Writes ``{"calls": {name: count}, "refused": {name: count}}``
(``refused``: calls that failed with EPERM, i.e. what the filter of the traced tree denies or a layer below it
refused). Needs root (or ptrace rights over the pool) and ``strace``. The allow-list's review (``docs/sandbox.md``)
starts from the union of these files over the suites it names.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402

from spade_core.sandbox import pool as pool_module  # noqa: E402

_LINE = re.compile(r"^(\d+)\s+(?:<\.\.\. )?([a-z_0-9]+)[( ]")
_CHILD = re.compile(r"^(\d+)\s+(?:clone3?|<\.\.\. clone3? resumed>).*= (\d+)$")


def _attach(trace_dir: str) -> list[subprocess.Popen[bytes]]:
    """Patch ``WorkerPool._ensure_launcher`` so each new launcher runs under ``strace -f``."""
    tracers: list[subprocess.Popen[bytes]] = []
    original = pool_module.WorkerPool._ensure_launcher

    def ensure(self: pool_module.WorkerPool) -> None:
        before = self.launcher_pid
        original(self)
        pid = self.launcher_pid
        if pid and pid != before:
            tracers.append(subprocess.Popen(["strace", "-f", "-qq", "-o", f"{trace_dir}/launcher-{pid}", "-p",
                                             str(pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and not _traced(pid):
                time.sleep(0.005)

    pool_module.WorkerPool._ensure_launcher = ensure
    return tracers


def _traced(pid: int) -> bool:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("TracerPid:"):
                return int(line.split()[1]) != 0
    except OSError:
        pass
    return False


def parse(text: str, calls: Counter[str], refused: Counter[str]) -> None:
    """Count the calls of filtered processes in one ``strace -f`` log (a worker, from its filter on; its threads)."""
    filtered: set[str] = set()
    loading: set[str] = set()  # the filter's own prctl, split by strace into "unfinished" and "resumed"
    for line in text.splitlines():
        match = _LINE.match(line)
        if match is None:
            continue
        pid, name = match.groups()
        if pid not in filtered:
            if name == "prctl" and "PR_SET_SECCOMP" in line:
                filtered.add(pid)
                if line.endswith("<unfinished ...>"):
                    loading.add(pid)
            continue
        if line.endswith("<unfinished ...>"):
            continue
        if pid in loading and name == "prctl":
            loading.discard(pid)
            continue
        child = _CHILD.match(line)
        if child is not None:
            filtered.add(child.group(2))
        if " = -1 EPERM " in line:
            refused[name] += 1
        else:
            calls[name] += 1


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[2] != "--":
        raise SystemExit(__doc__)
    out = Path(sys.argv[1])
    trace_dir = tempfile.mkdtemp(prefix="spade-seccomp-trace-")
    tracers = _attach(trace_dir)
    code = pytest.main(sys.argv[3:])
    for tracer in tracers:
        try:
            tracer.wait(timeout=10)
        except subprocess.TimeoutExpired:
            tracer.kill()
            tracer.wait()
    calls: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    for path in sorted(Path(trace_dir).iterdir()):
        parse(path.read_text(errors="replace"), calls, refused)
        os.unlink(path)
    os.rmdir(trace_dir)
    out.write_text(json.dumps({"pytest_exit": int(code), "calls": dict(sorted(calls.items())),
                               "refused": dict(sorted(refused.items()))}, indent=1) + "\n")
    print(f"{len(calls)} calls, {len(refused)} refused -> {out}")


if __name__ == "__main__":
    main()
