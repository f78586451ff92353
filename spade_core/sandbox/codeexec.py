"""Run agent-written Python (a solution plus test asserts) in its own single-use sandbox worker.

Used by the code domain to verify what an agent wrote. The code goes through the same static policy and the same
contained worker type as environment code, but

- every run gets a fresh **agent** worker (killed afterwards) whose imports are limited to the standard-library
  stand-ins (:data:`.allowlist.AGENT_MODULES`, no plugin modules), so runs of different agents never share a
  process, and agent code never runs inside an environment's worker (it could read the environment's hidden
  answer there);
- environment code that calls :func:`run_python_code` from inside its own worker (a code-domain environment
  verifying an answer) sends the request to the host, which runs it here and returns plain JSON data;
- each test runs as its own call with its own timeout; an ``assert`` is decided by trusted host code
  (:mod:`.assertions`): the agent's worker only evaluates the operands and returns canonical plain data
  (:mod:`.canon`), so an object with an always-true ``__eq__`` cannot pass a test.

A test that hangs or crashes the worker is reported and the remaining tests are marked as not run.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import Any

from spade_core.errors import SandboxError
from spade_core.sandbox import worker as worker_module
from spade_core.sandbox.assertions import TestPlan, decide, plan_test
from spade_core.sandbox.canon import CanonError, decode
from spade_core.sandbox.pool import WorkerPool, register_sub_handler
from spade_core.sandbox.shared_pool import default_pool

MAX_CODE_CHARS = 200_000
MAX_TESTS = 500
MAX_TEST_CHARS = 20_000


def run_python_code(
    code: str,
    *,
    tests: Sequence[str] = (),
    pool: WorkerPool | None = None,
    timeout_s: float | None = None,
    memory_mb: int | None = None,
    deadline: float | None = None,
) -> dict[str, Any]:
    """Execute ``code`` then each test (Python source, usually ``assert f(1) == 2``) in its namespace.

    Returns JSON data: ``{"ok", "passed", "failed", "total", "error", "cause", "stdout", "tests": [{"test",
    "passed", "error", "cause"}], "seconds"}``. ``ok`` means the code loaded and every test passed; ``error`` and
    ``cause`` (``policy``/``exception``/``timeout``/``memory``/``crashed``) describe a failure to load.
    ``deadline`` (``time.monotonic()``) bounds the whole run; tests it leaves no time for are not run.
    """
    current = worker_module.CURRENT
    if current is not None:  # environment code inside a worker: the host runs it in an agent worker
        return current.run_code_via_host(code, list(tests), timeout_s)
    problem = _check_request(code, tests, timeout_s)
    if problem is not None:
        raise ValueError(f"run_python_code: {problem}")
    pool = pool or default_pool()
    limits = pool.limits
    timeout = timeout_s or limits.call_timeout_s
    override: dict[str, Any] = {"call_timeout_s": timeout, "load_timeout_s": timeout}
    if memory_mb is not None:
        override["memory_mb"] = memory_mb
    started = time.monotonic()
    result: dict[str, Any] = {"ok": False, "passed": 0, "failed": 0, "total": len(tests), "error": None,
                              "cause": None, "stdout": "", "tests": []}
    if deadline is not None and deadline - started <= 0.05:
        result["error"], result["cause"] = "no time left to run the code", "timeout"
        result["tests"] = [_not_run(t, "no time left") for t in tests]
        result["failed"] = len(tests)
        return _finish(result, started)
    worker = pool.single_use_worker(override, role="agent")
    try:
        key = hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()
        loaded = _call(pool, worker, {"op": "exec", "key": key, "source": code}, _left(timeout, deadline), "exec")
        if loaded[0] != "ok":
            result["error"], result["cause"] = loaded[1], loaded[2]
            result["tests"] = [_not_run(t, "the code did not load") for t in tests]
            result["failed"] = len(tests)
            return _finish(result, started)
        result["stdout"] = str((loaded[1] or {}).get("stdout", ""))[-10_000:]
        for index, test in enumerate(tests):
            left = _left(timeout, deadline)
            if left <= 0.05:
                result["tests"].extend(_not_run(t, "no time left in the environment's call") for t in tests[index:])
                result["failed"] += len(tests) - index
                break
            status, error, cause = _run_test(pool, worker, plan_test(test), left)
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


def _check_request(code: Any, tests: Any, timeout_s: Any) -> str | None:
    if not isinstance(code, str) or len(code) > MAX_CODE_CHARS:
        return f"code must be a string of at most {MAX_CODE_CHARS} characters"
    if not isinstance(tests, (list, tuple)) or len(tests) > MAX_TESTS:
        return f"tests must be a list of at most {MAX_TESTS} strings"
    if not all(isinstance(t, str) and len(t) <= MAX_TEST_CHARS for t in tests):
        return f"every test must be a string of at most {MAX_TEST_CHARS} characters"
    if timeout_s is not None and (isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float))
                                  or not 0 < timeout_s <= 600):
        return "timeout_s must be a number of seconds in (0, 600]"
    return None


def _left(timeout: float, deadline: float | None) -> float:
    return timeout if deadline is None else min(timeout, deadline - time.monotonic())


def _run_test(pool: WorkerPool, worker: Any, plan: TestPlan, timeout: float) -> tuple[str, str | None, str | None]:
    if plan.check is None:
        status, error, cause = _call(pool, worker, {"op": "test", "source": plan.source}, timeout, "test")
        return status, None if status == "ok" else error, cause
    exprs = list(plan.leaves)
    status, value, cause = _call(pool, worker, {"op": "eval", "setup": plan.setup, "exprs": exprs}, timeout, "test")
    if status != "ok":
        return status, value, cause
    if not isinstance(value, list) or len(value) != len(exprs):
        return "err", "the agent's worker sent a malformed evaluation", "crashed"
    values: list[tuple[bool, Any]] = []
    for item in value:
        if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], bool):
            return "err", "the agent's worker sent a malformed evaluation", "crashed"
        ok, data = item
        if not ok:
            values.append((False, str(data)[:2000]))
            continue
        try:
            values.append((True, decode(data)))
        except CanonError as exc:
            return "err", f"the agent's worker sent a malformed value: {exc}", "crashed"
    passed, error = decide(plan, values)
    return ("ok", None, None) if passed else ("err", error, "exception")


def _call(pool: WorkerPool, worker: Any, message: dict[str, Any], timeout: float, what: str) -> tuple[str, Any, Any]:
    try:
        reply = pool.request(worker, message, max(timeout, 0.01), what)
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


def _serve_code_request(pool: WorkerPool, request: dict[str, Any], deadline: float) -> dict[str, Any]:
    """The host's side of :meth:`Worker.run_code_via_host`: validate the request, run it, return plain data."""
    code, tests, timeout = request.get("code"), request.get("tests"), request.get("timeout")
    problem = _check_request(code, tests, timeout)
    if problem is not None:
        return {"ok": False, "passed": 0, "failed": 0, "total": 0, "error": problem, "cause": "exception",
                "stdout": "", "tests": [], "seconds": 0.0}
    # the whole run fits in what is left of the environment's call (its own timer and the host's deadline)
    budget = request.get("budget")
    end = deadline - 0.1
    if isinstance(budget, (int, float)) and not isinstance(budget, bool) and budget > 0:
        end = min(end, time.monotonic() + float(budget))
    return run_python_code(code, tests=list(tests), pool=pool, timeout_s=timeout, deadline=end)


register_sub_handler("code", _serve_code_request)
