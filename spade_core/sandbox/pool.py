"""The host side of the sandbox: a pool of contained workers and the instances placed on them.

- Workers come from one preloaded launcher process per pool (:mod:`.workers`, :mod:`.launcher`); ``prestart`` idle
  workers are kept ready so making an environment costs a compile plus an instantiation, not a process start.
- A worker hosts instances of exactly one code record (keyed by the source's hash), up to
  ``instances_per_worker`` of them; code from different records never shares a worker, because code that escaped
  the policy could otherwise tamper with another record's instances. Variants of one record that differ only in
  what the host changed (``family``: the grounding stage's copies with the document's literals perturbed) may
  share one: they are the same author's code, so none can reach anything another could not. A code's workers, or
  its family's, are its group (``self._groups``). Emptied workers linger (up to ``max_idle_group_workers``) for
  their group and are evicted first when the pool is full. When no worker is empty,
  the least recently used worker whose instances are between calls is evicted (a worker with a call in flight is
  reserved and never evicted; when every worker is, making room waits up to ``worker_wait_s`` for one): its
  instances are rebuilt by replay at their next call, so an idle episode holds no worker and sessions on many codes
  never make a reset on another code fail.
- Calls on different workers run at once (from different threads); calls on one worker, and on one instance, are
  in order: see the locking paragraph of :mod:`.workers`. An instance's own lock is taken before any worker's.
- Memory is bounded: each worker reserves ``limits.worker_memory_mb`` of ``memory_budget_mb`` before it starts
  (its address space, capped at ``memory_mb``, plus its scratch tmpfs of ``max_scratch_mb``), and there are at most
  ``max_workers`` workers (default ``memory_budget_mb // limits.worker_memory_mb``).
- Every call has a wall-clock deadline, cut to what is left of the :class:`~.budgets.TimeBudget` its instance was
  created with (if any); on overrun the worker is SIGKILLed. A worker that dies, hangs, breaks the
  protocol or sends too much is replaced. The instance whose call failed gets the typed error and is rebuilt
  fresh on its next ``reset``; the *other* instances it hosted are rebuilt on a fresh worker at their next call
  by replaying their episode (seed, options and every call since ``reset``; environment code is deterministic),
  and a replay that does not reproduce the last result marks the instance failed instead of diverging silently.
- ``call_many`` sends one message per worker for any number of instances (the 64-envs-per-message path).
- The pool is built in layers, one job each: :mod:`.workers` (the launcher and worker lifecycle) under
  :mod:`.exchange` (one request and its reply on a worker's channel) under :mod:`.placement` (instances on their
  group's workers, calls one at a time, replay) under :mod:`.batch` (``call_many``) under :class:`WorkerPool`
  here (making instances, loading code, single-use workers, statistics, workers' requests to the host).
- Shutdown kills every worker and the launcher; it runs at interpreter exit and on SIGTERM (:mod:`.cleanup`), and
  the launcher kills all workers by itself if the host dies (end of file on its control socket). The host end of
  each worker's channel is :mod:`.channel`; what calls may spend is :mod:`.budgets`; the process-wide pool is
  :mod:`.shared_pool`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from spade_core.errors import SandboxCrashed, SandboxError
from spade_core.sandbox.allowlist import AllowList
from spade_core.sandbox.batch import BatchCalls
from spade_core.sandbox.budgets import TimeBudget
from spade_core.sandbox.channel import Worker
from spade_core.sandbox.exchange import LOST_WHILE_WAITING_TRIES, ServeRequest, WorkerLost
from spade_core.sandbox.instances import Instance, LoadResult, PlacedCode
from spade_core.sandbox.limits import SandboxLimits

__all__ = ["SubHandler", "WorkerPool", "register_sub_handler"]

SubHandler = Callable[["WorkerPool", dict[str, Any], float], dict[str, Any]]
"""Serves a request a worker sends to the host in the middle of a call: ``(pool, request, call deadline)``."""
_SUB_HANDLERS: dict[str, SubHandler] = {}


def register_sub_handler(op: str, handler: SubHandler) -> None:
    """Let workers ask the host for ``op`` during a call (``codeexec`` registers ``"code"``)."""
    _SUB_HANDLERS[op] = handler


class WorkerPool(BatchCalls):
    """Pre-started sandbox workers hosting environment instances; see the module docstring."""

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        max_workers: int | None = None,
        memory_budget_mb: int | None = None,
        instances_per_worker: int = 128,
        prestart: int = 2,
        max_idle_group_workers: int = 4,
        allowlist: AllowList | None = None,
        worker_wait_s: float | None = None,
    ) -> None:
        super().__init__(limits, max_workers=max_workers, memory_budget_mb=memory_budget_mb,
                         instances_per_worker=instances_per_worker, prestart=prestart, allowlist=allowlist,
                         worker_wait_s=worker_wait_s)
        self._init_exchange()
        self._init_placement(max_idle_group_workers)

    def _sub_handler(self, op: Any) -> ServeRequest | None:
        handler = _SUB_HANDLERS.get(op) if isinstance(op, str) else None
        return None if handler is None else partial(handler, self)

    # -- public operations ----------------------------------------------------------------------------------
    def load(self, source: str, *, env_id: str | None = None, module: str = "env",
             budget: TimeBudget | None = None) -> LoadResult:
        """Compile and run designer code once in a sandbox worker; return its raw ``ENV_SPEC`` or the error. Its
        time is charged to ``budget`` (if any)."""
        self._drain_dropped()
        for _ in range(LOST_WHILE_WAITING_TRIES):
            with self._lock:
                code = self._code(source, module, env_id)
                worker = self._worker_for(code)
            try:
                with self._held(worker):
                    return self._load_on(worker, code, env_id, budget)
            except WorkerLost:
                continue
        return LoadResult(None, None, self._lost_while_waiting(env_id))

    def _load_on(self, worker: Worker, code: PlacedCode, env_id: str | None, budget: TimeBudget | None) -> LoadResult:
        try:
            reply = self._request(worker, {"op": "load", "key": code.key, "source": code.source,
                                           "module": code.module, "where": env_id or "environment module"},
                                  self.limits.load_timeout_s, "load", None, budget=budget)
        except SandboxError as exc:
            return LoadResult(None, None, exc)
        if "err" in reply:
            return LoadResult(None, None, self._error_from_reply(reply["err"], "load", None, env_id))
        worker.loaded.add(code.key)
        value = reply["ok"]
        if not isinstance(value, dict):
            return LoadResult(None, None, SandboxCrashed("malformed load reply", env_id=env_id))
        return LoadResult(value.get("spec"), value.get("cls"), None)

    def create(self, source: str, *, env_id: str | None = None, knobs: Mapping[str, Any] | None = None,
               module: str = "env", budget: TimeBudget | None = None, family: str | None = None) -> Instance:
        """Place a new environment instance (``cls(**knobs)``) on a worker for its code; the time of its every call
        (replays included) is charged to ``budget`` (if any). Codes created with the same ``family`` (variants of
        one record, see the module docstring) may share workers; without one a code has workers of its own."""
        self._drain_dropped()
        with self._lock:
            code = self._code(source, module, env_id, family)
            inst = Instance(next(self._iids), code, dict(knobs or {}), env_id, budget=budget)
            self._insts[inst.iid] = inst
        try:
            with inst.lock:
                self._place(inst)
        except BaseException:
            with self._lock:
                self._insts.pop(inst.iid, None)
            raise
        return inst

    # -- code execution ------------------------------------------------------------------------------------
    def single_use_worker(self, limits_override: dict[str, Any] | None = None, role: str = "env") -> Worker:
        """A fresh worker for one job; ``role="agent"`` gives the agent-code worker (standard-library stand-ins
        only). Call :meth:`release` when done."""
        with self._lock:
            worker = self._take_worker(limits_override, role)
            worker.single_use = True
            worker.group = f"single-use-{worker.serial}"
            return worker

    def request(self, worker: Worker, message: dict[str, Any], timeout: float, what: str) -> Any:
        """One request/reply on a single-use worker (never evicted, so it needs no reservation)."""
        with worker.lock:
            return self._request(worker, message, timeout, what, None)

    def release(self, worker: Worker) -> None:
        self._retire(worker, "single use done")

    # -- introspection ---------------------------------------------------------------------------------------
    def worker_pid(self, inst: Instance) -> int | None:
        return inst.worker.pid if inst.worker is not None and not inst.worker.dead else None

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {"workers": len(self._workers), "idle": len(self._idle), "instances": len(self._insts),
                    "codes": len(self._codes), "replays": self.replays, "worker_failures": self.worker_failures,
                    "evictions": self.evictions, "max_workers": self.max_workers}
