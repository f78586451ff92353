"""Run agent-written Python (a solution plus test asserts) in a single-use sandbox worker.

Used by the code domain to verify what an agent wrote. The code goes through the same static policy and the same
contained worker type as environment code, but every run gets a fresh worker that is killed afterwards, so runs
of different agents never share a process. Each test runs as its own call with its own timeout; a test that
hangs or crashes the worker is reported and the remaining tests are marked as not run.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import Any

from spade_core.errors import SandboxError
from spade_core.sandbox.pool import WorkerPool, default_pool


def run_python_code(
    code: str,
    *,
    tests: Sequence[str] = (),
    pool: WorkerPool | None = None,
    timeout_s: float | None = None,
    memory_mb: int | None = None,
) -> dict[str, Any]:
    """Execute ``code`` then each test (Python source, usually ``assert f(1) == 2``) in its namespace.

    Returns JSON data: ``{"ok", "passed", "failed", "total", "error", "cause", "stdout", "tests": [{"test",
    "passed", "error", "cause"}], "seconds"}``. ``ok`` means the code loaded and every test passed; ``error`` and
    ``cause`` (``policy``/``exception``/``timeout``/``memory``/``crashed``) describe a failure to load.
    """
    from spade_core.sandbox import worker as worker_module

    if worker_module.CURRENT is not None:  # called by env code already inside a worker: no new process there
        return worker_module.CURRENT.run_code_nested(code, list(tests), timeout_s or worker_module.CURRENT.timeout)
    pool = pool or default_pool()
    limits = pool.limits
    timeout = timeout_s or limits.call_timeout_s
    override = {"call_timeout_s": timeout, "load_timeout_s": timeout}
    if memory_mb is not None:
        override["memory_mb"] = memory_mb
    started = time.monotonic()
    result: dict[str, Any] = {"ok": False, "passed": 0, "failed": 0, "total": len(tests), "error": None,
                              "cause": None, "stdout": "", "tests": []}
    worker = pool.single_use_worker(override)
    try:
        key = hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()
        loaded = _call(pool, worker, {"op": "exec", "key": key, "source": code}, timeout, "exec")
        if loaded[0] != "ok":
            result["error"], result["cause"] = loaded[1], loaded[2]
            result["tests"] = [_not_run(t, "the code did not load") for t in tests]
            result["failed"] = len(tests)
            return _finish(result, started)
        result["stdout"] = (loaded[1] or {}).get("stdout", "")
        for index, test in enumerate(tests):
            status, error, cause = _call(pool, worker, {"op": "test", "source": test}, timeout, "test")
            passed = status == "ok"
            result["tests"].append({"test": test, "passed": passed, "error": None if passed else error,
                                    "cause": None if passed else cause})
            result["passed" if passed else "failed"] += 1
            if status == "dead":
                result["tests"].extend(_not_run(t, "the worker was lost in an earlier test") for t in tests[index + 1:])
                result["failed"] += len(tests) - index - 1
                break
        result["ok"] = result["failed"] == 0
        return _finish(result, started)
    finally:
        pool.release(worker)


def _call(pool: WorkerPool, worker: Any, message: dict[str, Any], timeout: float, what: str) -> tuple[str, Any, Any]:
    try:
        reply = pool.request(worker, message, timeout, what)
    except SandboxError as exc:
        return "dead", str(exc), exc.cause
    if "err" in reply:
        err = reply["err"]
        return "err", str(err.get("msg") or err.get("type")), "exception" if err.get("cause") == "load" else err.get("cause")
    return "ok", reply.get("ok"), None


def _not_run(test: str, why: str) -> dict[str, Any]:
    return {"test": test, "passed": False, "error": f"not run: {why}", "cause": None}


def _finish(result: dict[str, Any], started: float) -> dict[str, Any]:
    result["seconds"] = round(time.monotonic() - started, 4)
    return result
