"""What the benchmark adapters share: wrapping a trusted, in-process task in a :class:`SpadeEnv`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spade_core.contract.env import SpadeEnv
from spade_core.contract.inner import LocalInnerEnv
from spade_registry.manifest import EnvManifest


def trusted_env(manifest: EnvManifest, make_inner: Callable[..., Any], env_id: str) -> SpadeEnv:
    """A SpadeEnv around benchmark code that runs in this process.

    Benchmark adapters are installed, reviewed code (like the bundled seed environments), not designer output, so
    they need no sandbox; ``make_inner(**knobs)`` builds a fresh inner environment (benchmarks declare no knobs).
    """
    return SpadeEnv(manifest, lambda knobs: LocalInnerEnv(make_inner, knobs), env_id=env_id)  # type: ignore[arg-type]
