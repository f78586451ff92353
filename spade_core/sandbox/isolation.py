"""The host side of the isolation probes (:mod:`.probes`): run them in a fresh worker and report what the OS layers
stop on their own (``python benchmarks/bench_sandbox.py --layers``)."""

from __future__ import annotations

import os
from typing import Any

from spade_core.sandbox.pool import WorkerPool
from spade_core.sandbox.shared_pool import default_pool


def probe_isolation(pool: WorkerPool | None = None, *, tcp_port: int | None = None,
                    outside_path: str | None = None, limits_override: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run the isolation probes (:mod:`.probes`) in a fresh worker: what the OS layers stop on their own.

    Returns ``{"layers": {...}, "probes": {...}}``. ``limits_override`` switches layers off to measure each one.
    """
    pool = pool or default_pool()
    worker = pool.single_use_worker(limits_override)
    try:
        reply = pool.request(worker, {"op": "probe", "host_pid": os.getpid(), "tcp_port": tcp_port,
                                      "outside_path": outside_path}, 60.0, "probe")
        return {"layers": dict(worker.layers), "probes": reply.get("ok") or reply.get("err")}
    finally:
        pool.release(worker)
