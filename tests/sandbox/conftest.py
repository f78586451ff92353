"""Sandbox test fixtures: one contained worker pool per session with generous limits (see sandbox_support)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sandbox_support import TEST_LIMITS

from spade_core.sandbox import WorkerPool


@pytest.fixture(scope="session")
def pool() -> Iterator[WorkerPool]:
    p = WorkerPool(TEST_LIMITS, prestart=2, max_workers=12, memory_budget_mb=12 * TEST_LIMITS.worker_memory_mb)
    p.start()
    yield p
    p.shutdown()
