"""Helpers shared by the sandbox tests (imported by name; the pool fixture lives in conftest.py).

Limits here are generous for normal code (a trivial call takes microseconds, the timeout is 1.5 s) so no test
depends on timing; hostile programs that loop forever cost one timeout each.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from spade_core.sandbox import SandboxedInnerEnv, SandboxLimits, WorkerPool

HERE = Path(__file__).parent
ENVS = HERE / "envs"

TEST_LIMITS = SandboxLimits(
    call_timeout_s=1.5,
    load_timeout_s=15.0,
    episode_budget_s=2.5,
    memory_mb=512,
    max_reply_bytes=4 * 1024 * 1024,
)


def env_source(name: str) -> str:
    return (ENVS / f"{name}.py").read_text()


def load_in_process(path: Path) -> Any:
    """Import a (trusted, test-owned) designer module normally, for in-process comparisons."""
    spec = importlib.util.spec_from_file_location(f"sandbox_test_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module



def assert_healthy(pool: WorkerPool) -> None:
    """A normal environment still runs correctly on the pool (used after every hostile program)."""
    handle = SandboxedInnerEnv(env_source("guess_env"), env_id="health", knobs={"high": 50}, pool=pool)
    try:
        obs, info = handle.reset(7, {})
        assert obs.startswith("I picked a number.") and info == {"high": 50}
        for _ in range(8):
            guess = handle.reference_action()
            obs, reward, terminated, truncated, info = handle.step(guess)
            if terminated:
                break
        assert terminated and info["success"] is True
    finally:
        handle.close()
