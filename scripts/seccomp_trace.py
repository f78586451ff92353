"""Trace the system calls sandbox workers make after their seccomp filter is loaded, while a test suite runs.

    python scripts/seccomp_trace.py OUT.json -- tests/sandbox -q -x -n0 -p no:randomly
    python scripts/seccomp_trace.py OUT.json --keep DIR -- tests/domains -q -n0 -p no:randomly
    python scripts/seccomp_trace.py OUT.json --parse DIR [DIR ...]     # re-read kept strace logs

Runs pytest in this process with every pool's launcher attached to ``strace -f`` (as soon as the launcher has
started, before it forks a worker). Each worker's calls count from its ``prctl(PR_SET_SECCOMP)`` on, so what the
launcher and a worker's own set-up do is not counted. Writes ``{"calls": {name: count}, "refused": {name: count},
"arguments": {name: {argument: count}}}`` (``refused``: calls that failed with EPERM, i.e. what the filter of the
traced tree denies or a layer below it refused; ``arguments``: the argument that the allow-list conditions on, for
the calls in :data:`ARGUMENT_OF`). Needs root (or ptrace rights over the pool) and ``strace``. The allow-list
(``spade_core/sandbox/syscalls.py``) and its review (``docs/sandbox.md``) start from the union of these files over
the suites the review names.
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
_CHILD = re.compile(r"^(\d+)\s+(?:clone3?|vfork|fork|<\.\.\. (?:clone3?|v?fork) resumed>).*= (\d+)$")
_CALL = re.compile(r"^\d+\s+([a-z_0-9]+)\((.*?)(?:\) += |\s*<unfinished \.\.\.>$)")

ARGUMENT_OF = {"ioctl": 1, "fcntl": 1, "clone": 1, "prlimit64": None, "madvise": 2, "futex": 1, "openat": 2}
"""Calls whose arguments the allow-list looks at: which argument to record (``None``: all of them)."""


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


def _argument(name: str, args: str) -> str | None:
    if name not in ARGUMENT_OF:
        return None
    index = ARGUMENT_OF[name]
    if index is None:
        return args
    parts = [part.strip() for part in args.split(", ")]
    if name == "clone":
        return next((part for part in parts if part.startswith("flags=")), args)
    return parts[index] if index < len(parts) else args


def parse(text: str, calls: Counter[str], refused: Counter[str], arguments: dict[str, Counter[str]]) -> None:
    """Count the calls of filtered processes in one ``strace -f`` log (a worker, from its filter on; its threads).

    A pid the launcher forks again (pids are reused) starts unfiltered.
    """
    filtered: set[str] = set()
    loading: set[str] = set()  # the filter's own prctl, split by strace into "unfinished" and "resumed"
    pending: dict[str, str | None] = {}  # the recorded argument of an unfinished call, by pid
    for line in text.splitlines():
        match = _LINE.match(line)
        if match is None:
            continue
        pid, name = match.groups()
        child = _CHILD.match(line)
        if pid not in filtered:
            if child is not None:
                filtered.discard(child.group(2))
            if name == "prctl" and "PR_SET_SECCOMP" in line:
                filtered.add(pid)
                if line.endswith("<unfinished ...>"):
                    loading.add(pid)
            continue
        call = _CALL.match(line)
        argument = _argument(name, call.group(2)) if call is not None else pending.pop(pid, None)
        if line.endswith("<unfinished ...>"):
            pending[pid] = argument
            continue
        if pid in loading and name == "prctl":
            loading.discard(pid)
            continue
        if child is not None:
            filtered.add(child.group(2))
        if " = -1 EPERM " in line:
            refused[name] += 1
            continue
        calls[name] += 1
        if argument is not None:
            arguments.setdefault(name, Counter())[argument] += 1


def parse_dirs(dirs: list[Path]) -> dict[str, object]:
    calls: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    arguments: dict[str, Counter[str]] = {}
    for directory in dirs:
        for path in sorted(directory.iterdir()):
            parse(path.read_text(errors="replace"), calls, refused, arguments)
    return {"calls": dict(sorted(calls.items())), "refused": dict(sorted(refused.items())),
            "arguments": {name: dict(counts.most_common()) for name, counts in sorted(arguments.items())}}


def main() -> None:
    args = sys.argv[1:]
    if len(args) >= 3 and args[1] == "--parse":
        out = Path(args[0])
        report = parse_dirs([Path(d) for d in args[2:]])
        out.write_text(json.dumps(report, indent=1) + "\n")
        print(f"{len(report['calls'])} calls, {len(report['refused'])} refused -> {out}")
        return
    keep = None
    if len(args) >= 4 and args[1] == "--keep":
        keep = Path(args[2])
        del args[1:3]
    if len(args) < 2 or args[1] != "--":
        raise SystemExit(__doc__)
    out = Path(args[0])
    trace_dir = Path(keep or tempfile.mkdtemp(prefix="spade-seccomp-trace-"))
    trace_dir.mkdir(parents=True, exist_ok=True)
    tracers = _attach(str(trace_dir))
    code = pytest.main(args[2:])
    for tracer in tracers:
        try:
            tracer.wait(timeout=10)
        except subprocess.TimeoutExpired:
            tracer.kill()
            tracer.wait()
    report = parse_dirs([trace_dir])
    if keep is None:
        for path in trace_dir.iterdir():
            os.unlink(path)
        os.rmdir(trace_dir)
    out.write_text(json.dumps({"pytest_exit": int(code), **report}, indent=1) + "\n")
    print(f"{len(report['calls'])} calls, {len(report['refused'])} refused -> {out}")


if __name__ == "__main__":
    main()
