"""Fixtures of the layer suite: pools whose workers are compromised (see compromised_worker.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from layer_support import start_compromised_pool

from spade_core.sandbox import WorkerPool


@pytest.fixture(scope="module")
def compromised(request: pytest.FixtureRequest) -> Iterator[WorkerPool]:
    """All layers on, workers compromised. One per test module."""
    patch = pytest.MonkeyPatch()
    pool = start_compromised_pool(patch)
    try:
        yield pool
    finally:
        pool.shutdown()
        patch.undo()


@pytest.fixture()
def fresh_pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., WorkerPool]]:
    """A factory of compromised pools with some layers switched off; every one is shut down after the test."""
    made: list[WorkerPool] = []

    def make(**overrides: Any) -> WorkerPool:
        made.append(start_compromised_pool(monkeypatch, **overrides))
        return made[-1]

    yield make
    for pool in made:
        pool.shutdown()
