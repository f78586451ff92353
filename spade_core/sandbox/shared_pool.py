"""The process-wide sandbox pool: what every sandbox entry point uses unless it is given a ``WorkerPool``."""

from __future__ import annotations

import threading

from spade_core.sandbox.pool import WorkerPool

_default_pool: WorkerPool | None = None
_default_lock = threading.Lock()


def default_pool() -> WorkerPool:
    """The process-wide pool (default limits), started on first use."""
    global _default_pool
    with _default_lock:
        if _default_pool is None or _default_pool.closed:
            _default_pool = WorkerPool()
        return _default_pool


def set_default_pool(pool: WorkerPool | None) -> None:
    """Replace the process-wide pool (e.g. with different limits); the old one is not shut down."""
    global _default_pool
    with _default_lock:
        _default_pool = pool
