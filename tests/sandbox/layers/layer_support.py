"""Helpers of the layer suite: start a pool of compromised workers and run unrestricted code in one."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest
from compromised_worker import PWN_OP, TEST_BOOTSTRAP_TEMPLATE

import spade_core.sandbox.workers as workers_module
from spade_core.sandbox import SandboxLimits, WorkerPool

HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compromised_worker.py")

LAYER_LIMITS = dict(call_timeout_s=5.0, load_timeout_s=15.0, episode_budget_s=30.0, memory_mb=512,
                    max_scratch_mb=24, max_file_mb=16, cpu_s_per_call=2, cpu_s_per_worker=3600)


def start_compromised_pool(monkeypatch: pytest.MonkeyPatch, **overrides: Any) -> WorkerPool:
    """A started pool whose launcher loaded the harness; ``overrides`` change :data:`LAYER_LIMITS` (switch a
    layer off to test the ones below it on their own)."""
    limits = SandboxLimits(**{**LAYER_LIMITS, **overrides})
    pool = WorkerPool(limits, prestart=0, max_workers=6, memory_budget_mb=6 * limits.worker_memory_mb)
    with monkeypatch.context() as patch:
        patch.setattr(workers_module, "BOOTSTRAP", TEST_BOOTSTRAP_TEMPLATE.format(harness=HARNESS))
        pool.start()
    return pool


def pwn(pool: WorkerPool, worker: Any, source: str, timeout: float = 10.0) -> Any:
    """Run unrestricted ``source`` in ``worker``; returns the raw reply (``{"ok": result}`` or ``{"err": ...}``)."""
    return pool.request(worker, {"op": PWN_OP, "source": source}, timeout, PWN_OP)



def alive(pid: int | None) -> bool:
    """Whether ``pid`` is a live process (not a zombie)."""
    if not pid:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def wait_dead(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return not alive(pid)



