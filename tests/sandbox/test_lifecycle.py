"""Pool lifecycle: no orphan processes after exit, SIGTERM, SIGINT or SIGKILL of the host; bounded workers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sandbox_support import ENVS, env_source

from spade_core.errors import SandboxCrashed, SandboxMemoryError
from spade_core.sandbox import SandboxedInnerEnv, SandboxLimits, WorkerPool, call_many

ROOT = Path(__file__).resolve().parents[2]

HOST_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    sys.path.insert(0, {root!r})
    from spade_core.sandbox import SandboxedInnerEnv, SandboxLimits, WorkerPool
    pool = WorkerPool(SandboxLimits(call_timeout_s=10), prestart=2, max_workers=4)
    source = open({env!r}).read()
    handles = [SandboxedInnerEnv(source, env_id=f"e{{i}}", pool=pool) for i in range(3)]
    for h in handles:
        h.reset(0, {{}})
    other = SandboxedInnerEnv(source.replace("Trivial", "Other"), pool=pool)
    print(json.dumps({{"launcher": pool.launcher_pid, "workers": pool.worker_pids()}}), flush=True)
    sys.stdin.readline()
    if sys.argv[1] == "exit":
        sys.exit(0)
    time.sleep(120)
    """
)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


def _interruptible() -> None:
    """The host starts as a program started from a shell does: SIGINT at its default and not blocked. An ignored
    or blocked signal is inherited across exec, so what the test runner's process (or a library loaded in it by an
    earlier test) did to SIGINT must not decide whether the host sees its Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _run_host(mode: str) -> tuple[subprocess.Popen[str], list[int]]:
    script = HOST_SCRIPT.format(root=str(ROOT), env=str(ENVS / "trivial_env.py"))
    proc = subprocess.Popen([sys.executable, "-c", script, mode], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, preexec_fn=_interruptible)
    line = proc.stdout.readline()
    assert line, "the host script did not start its pool"
    info = json.loads(line)
    pids = [info["launcher"], *info["workers"]]
    assert len(info["workers"]) >= 3 and all(_alive(p) for p in pids)
    proc.stdin.write("go\n")
    proc.stdin.close()
    return proc, pids


@pytest.mark.parametrize("how", ["exit", "SIGTERM", "SIGINT", "SIGKILL"])
def test_no_orphans_after_host_ends(how: str) -> None:
    proc, pids = _run_host("exit" if how == "exit" else "wait")
    if how != "exit":
        time.sleep(0.2)  # let it reach its sleep (SIGINT must arrive in Python code, not during startup)
        proc.send_signal(getattr(signal, how))
    proc.wait(timeout=90)  # a loaded machine (a full parallel suite) slows the host's interrupt and cleanup
    proc.stdout.close()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if _alive(p)], f"orphans left after {how}"


def test_codes_never_share_a_worker_and_pool_is_bounded() -> None:
    pool = WorkerPool(SandboxLimits(call_timeout_s=10), prestart=0, max_workers=2, instances_per_worker=2,
                      max_idle_group_workers=0)
    source = env_source("trivial_env")
    try:
        a1 = SandboxedInnerEnv(source, pool=pool)
        a2 = SandboxedInnerEnv(source, pool=pool)
        assert a1.worker_pid == a2.worker_pid
        b = SandboxedInnerEnv(source.replace("Trivial", "TrivialB"), pool=pool)
        assert b.worker_pid != a1.worker_pid
        b.close()
        c = SandboxedInnerEnv(source.replace("Trivial", "TrivialC"), pool=pool)  # takes b's emptied worker
        assert c.reset(0, {}) == ("ready", {})
        assert pool.stats()["workers"] <= 2 and pool.evictions == 0
    finally:
        pool.shutdown()
    with pytest.raises(SandboxCrashed, match="shut down"):
        SandboxedInnerEnv(source, pool=pool)
    pool.shutdown()  # idempotent


def test_a_worker_reserves_its_scratch_tmpfs_in_the_memory_budget_before_it_starts() -> None:
    """Each worker holds ``memory_mb`` of address space and a ``max_scratch_mb`` tmpfs: a budget with room for two
    address spaces but not two of both admits one worker, and refuses the second before starting it."""
    limits = SandboxLimits(call_timeout_s=10, memory_mb=256, max_scratch_mb=64)
    pool = WorkerPool(limits, prestart=2, memory_budget_mb=2 * 256 + 32, max_idle_group_workers=0)
    source = env_source("trivial_env")
    try:
        assert pool.max_workers == 1
        pool.start()  # two pre-started workers asked for, one fits
        assert pool.stats()["workers"] == 1 and pool.reserved_mb == 320
        a = SandboxedInnerEnv(source, pool=pool)
        assert a.reset(0, {}) == ("ready", {})
        b = SandboxedInnerEnv(source.replace("Trivial", "TrivialB"), pool=pool)  # a is between calls: evicted
        assert pool.stats()["workers"] == 1 and pool.evictions == 1 and pool.reserved_mb == 320
        # one batch over both codes: a is rebuilt (evicting b's worker), then b finds only the batch's own worker
        result_a, result_b = call_many([(a, "step", "x"), (b, "reset", (0, {}))])
        assert result_a[0] == "x" and isinstance(result_b, SandboxMemoryError), (result_a, result_b)
        assert "max_scratch_mb" in str(result_b) and "320 MB of its 544 MB budget" in str(result_b)
        assert pool.stats()["workers"] == 1 and pool.reserved_mb == 320
    finally:
        pool.shutdown()


def test_sessions_on_more_codes_than_workers_never_fill_the_pool_and_an_idle_episode_is_replayed() -> None:
    """Each of four codes gets an episode on a pool of two workers: every reset succeeds (the least recently used
    worker whose instances are between calls is evicted), and an evicted episode goes on where it was."""
    pool = WorkerPool(SandboxLimits(call_timeout_s=10), prestart=0, max_workers=2, max_idle_group_workers=0)
    source = env_source("trivial_env")
    try:
        handles = [SandboxedInnerEnv(source.replace("Trivial", f"Trivial{i}"), pool=pool) for i in range(4)]
        for i, handle in enumerate(handles):
            assert handle.reset(i, {}) == ("ready", {})
            assert handle.step(f"move {i}")[0] == f"move {i}"
        assert pool.stats()["workers"] == 2 and pool.evictions >= 2
        assert handles[0].worker_pid is None  # evicted while its episode was between calls
        before = pool.replays
        assert handles[0].step("again")[0] == "again"  # its worker was evicted: rebuilt by replaying its episode
        assert pool.replays == before + 1 and pool.stats()["worker_failures"] == 0
    finally:
        pool.shutdown()


def test_a_budget_that_holds_no_worker_is_refused_with_the_numbers() -> None:
    with pytest.raises(ValueError, match=r"holds no worker: each reserves 1088 MB \(SandboxLimits.memory_mb 1024 "
                                         r"\+ max_scratch_mb 64\)"):
        WorkerPool(SandboxLimits(), memory_budget_mb=1024)


def test_launcher_death_is_survived() -> None:
    pool = WorkerPool(SandboxLimits(call_timeout_s=10), prestart=1, max_workers=3)
    source = env_source("trivial_env")
    try:
        handle = SandboxedInnerEnv(source, pool=pool)
        handle.reset(0, {})
        os.kill(pool.launcher_pid, signal.SIGKILL)
        time.sleep(0.2)
        with pytest.raises(SandboxCrashed):
            handle.step("a")
        assert handle.reset(0, {}) == ("ready", {})
        assert handle.step("b")[0] == "b"
    finally:
        pool.shutdown()
