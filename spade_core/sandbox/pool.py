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
- Shutdown kills every worker and the launcher; it runs at interpreter exit and on SIGTERM (:mod:`.cleanup`), and
  the launcher kills all workers by itself if the host dies (end of file on its control socket). The host end of
  each worker's channel is :mod:`.channel`; what calls may spend is :mod:`.budgets`; the process-wide pool is
  :mod:`.shared_pool`.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from typing import Any

from spade_core.errors import (
    SandboxCrashed,
    SandboxError,
    SandboxMemoryError,
    SandboxPolicyError,
    SandboxTimeout,
    SpadeError,
)
from spade_core.sandbox import oslayers, wire
from spade_core.sandbox.allowlist import AllowList
from spade_core.sandbox.budgets import (
    CPU_CHECK_S,
    ReplyAllowance,
    TimeBudget,
    arm_cpu,
    split_batch_time,
)
from spade_core.sandbox.channel import METHOD_NAMES, ChannelError, Worker, error_from_reply
from spade_core.sandbox.instances import Instance, LoadResult, PlacedCode
from spade_core.sandbox.limits import SandboxLimits
from spade_core.sandbox.workers import WorkerLifecycle

SubHandler = Callable[["WorkerPool", dict[str, Any], float], dict[str, Any]]
"""Serves a request a worker sends to the host in the middle of a call: ``(pool, request, call deadline)``."""
_SUB_HANDLERS: dict[str, SubHandler] = {}
MAX_SUB_REQUESTS = 256
"""Requests one call may send to the host (a code-domain environment runs the agent's code this way)."""
LOST_WHILE_WAITING_TRIES = 3
"""Times a call starts over when the worker it waited for was lost meanwhile (another instance's call killed it)."""


def register_sub_handler(op: str, handler: SubHandler) -> None:
    """Let workers ask the host for ``op`` during a call (``codeexec`` registers ``"code"``)."""
    _SUB_HANDLERS[op] = handler



class _WorkerLost(Exception):
    """The worker a call reserved was lost before the call got its channel: the call starts over."""


class _Batch(threading.local):
    allowance: ReplyAllowance | None = None
    """The reply budget of the ``call_many`` this thread is in (its retries and replays included)."""


class WorkerPool(WorkerLifecycle):
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
        self.max_idle_group_workers = max_idle_group_workers
        self.grace_s = max(0.5, 0.25 * self.limits.call_timeout_s)
        self._codes: dict[tuple[str, str], PlacedCode] = {}
        self._groups: dict[str, list[Worker]] = {}
        self._insts: dict[int, Instance] = {}
        self._iids = itertools.count(1)
        self.replays = 0
        self._batch = _Batch()
        self._dropped: deque[Instance] = deque()
        """Instances dropped by a finaliser (which takes no lock), destroyed at the pool's next operation."""
        self.evictions = 0
        self._can_raise_cpu_hard = oslayers.has_capability(oslayers.CAP_SYS_RESOURCE)

    def _ungroup(self, worker: Worker) -> None:
        members = self._groups.get(worker.group) if worker.group is not None else None
        if members is not None and worker in members:
            members.remove(worker)
            if not members:
                del self._groups[worker.group]

    def _orphan_instances(self, worker: Worker) -> None:
        for iid in worker.instances:
            inst = self._insts.get(iid)
            if inst is not None and inst.worker is worker:
                inst.worker = None

    def _evict_hosting(self) -> bool:
        hosting = [w for w in self._workers.values() if w.instances and not w.dead and not w.single_use
                   and not w.in_flight]
        if not hosting:
            return False
        victim = min(hosting, key=lambda w: w.last_used)
        victim.kill("evicted to make room: its instances were between calls")
        self._forget(victim)
        self._orphan_instances(victim)
        victim.instances.clear()
        self.evictions += 1
        return True

    def _close_instances(self) -> None:
        for inst in self._insts.values():
            inst.worker = None
            inst.closed = True

    # -- placement -----------------------------------------------------------------------------------------
    def _code(self, source: str, module: str, env_id: str | None, family: str | None = None) -> PlacedCode:
        key = hashlib.sha256(f"{module}\0{source}".encode("utf-8", "surrogatepass")).hexdigest()
        group = key if family is None else f"family\0{family}"  # never a code's key (no NUL in a hex digest)
        code = self._codes.get((key, group))
        if code is None:
            code = self._codes[key, group] = PlacedCode(key, source, module, env_id, group)
        return code

    def _worker_for(self, code: PlacedCode) -> Worker:
        """A worker of ``code``'s group, reserved (the pool's lock is held)."""
        live = [w for w in self._groups.get(code.group, ())
                if not w.dead and len(w.instances) < self.instances_per_worker]
        if live:
            worker = min(live, key=lambda w: len(w.instances))
        else:
            worker = self._take_worker()  # may wait (the pool's lock released) and evict: look the group up after
            worker.group = code.group
            self._groups.setdefault(code.group, []).append(worker)
        self._reserve(worker)
        return worker

    @contextmanager
    def _held(self, worker: Worker) -> Iterator[Worker]:
        """The channel of ``worker``, reserved by the caller, for the block; the reservation ends with it. Raises
        :class:`_WorkerLost` when the worker died while this thread waited for it."""
        try:
            with worker.lock:
                if worker.dead:
                    raise _WorkerLost
                yield worker
        finally:
            self._unreserve(worker)

    def _hold_current(self, inst: Instance) -> AbstractContextManager[Worker]:
        """:meth:`_held` for the worker ``inst`` is placed on (:class:`_WorkerLost` when it has none)."""
        with self._lock:
            worker = inst.worker
            if worker is None or worker.dead:
                raise _WorkerLost
            self._reserve(worker)
        return self._held(worker)

    def _drain_dropped(self) -> None:
        while self._dropped:
            try:
                inst = self._dropped.popleft()
            except IndexError:
                return
            self.destroy(inst)

    def _request(self, worker: Worker, message: dict[str, Any], timeout: float, what: str, inst: Instance | None,
                 max_bytes: int | None = None, budget: TimeBudget | None = None) -> Any:
        """One request/reply, its time charged to ``budget`` (if any); channel failures kill the worker and raise
        the typed error. The caller holds ``worker.lock``, never the pool's lock."""
        self._await_ready(worker)
        allowance = self._batch.allowance
        if allowance is not None and allowance.spent():
            raise SandboxPolicyError(f"{METHOD_NAMES.get(what, what)}() was not run: the batch it belongs to used "
                                     "its whole reply budget (SandboxLimits.max_reply_bytes, max_reply_elements)",
                                     env_id=inst.env_id if inst else None)
        worker.last_used = started = time.monotonic()
        deadline, budget_end = started + timeout + self.grace_s, None
        if budget is not None:
            deadline, budget_end = budget.cut(deadline)
        with budget.charged(started) if budget is not None else nullcontext():
            try:
                if (worker.cpu_seen_at is None or started - worker.cpu_seen_at >= CPU_CHECK_S
                        or worker.cpu_seen + worker.busy_since_seen + self.limits.cpu_s_per_call > worker.cpu_armed):
                    self._arm_cpu(worker, self.limits.cpu_s_per_call)
                worker.send(message, deadline)
                reply = self._recv_reply(worker, deadline, max_bytes or self.limits.max_reply_bytes + 1024,
                                         self.limits.max_reply_elements)
            except ChannelError as exc:
                if budget is not None and exc.kind == "timeout" and budget_end is not None and deadline >= budget_end:
                    raise self._budget_spent(worker, budget, inst) from None
                raise self._channel_failure(worker, exc, what, timeout, inst) from None
            finally:
                worker.busy_since_seen += time.monotonic() - started
        if not isinstance(reply, dict) or ("ok" not in reply and not isinstance(reply.get("err"), dict)):
            raise self._channel_failure(worker, ChannelError("protocol", "reply is not {ok|err}"), what, timeout, inst)
        return reply

    def _recv_reply(self, worker: Worker, deadline: float, max_bytes: int, max_elements: int) -> Any:
        """The reply to the message just sent, serving the worker's requests to the host (``{"sub": ...}``) on
        the way; each answer is plain JSON data produced by trusted host code. Any exception while serving a
        request is a protocol error of this worker (it is killed): the channel never goes out of step."""
        allowance = self._batch.allowance
        for _ in range(MAX_SUB_REQUESTS + 1):
            if allowance is not None:
                max_bytes = min(max_bytes, max(allowance.bytes_left, 0))
                max_elements = min(max_elements, max(allowance.values_left, 0))
            reply = worker.recv(deadline, max_bytes, max_elements)
            if allowance is not None:
                allowance.charge(worker)
            if not (isinstance(reply, dict) and len(reply) == 1 and "sub" in reply):
                return reply
            request = reply["sub"]
            handler = _SUB_HANDLERS.get(request.get("op")) if isinstance(request, dict) else None
            if handler is None:
                raise ChannelError("protocol", "the worker sent an unknown request to the host")
            try:
                worker.send({"subr": handler(self, request, deadline)}, deadline)
            except ChannelError:
                raise
            except SandboxTimeout:
                raise ChannelError("timeout", "the time budget ran out while serving the worker's request") from None
            except Exception as exc:  # whatever a handler meets, only this worker pays
                raise ChannelError("protocol", "the host could not serve the worker's request "
                                    f"({type(exc).__name__}); the worker was replaced") from None
        raise ChannelError("protocol", f"more than {MAX_SUB_REQUESTS} requests to the host in one call")

    def _arm_cpu(self, worker: Worker, budget_s: float) -> None:
        self._can_raise_cpu_hard = arm_cpu(worker, budget_s, self.limits, self._can_raise_cpu_hard)

    def _budget_spent(self, worker: Worker, budget: TimeBudget, inst: Instance | None) -> SandboxTimeout:
        self._lose_worker(worker, "time budget spent")
        budget.exhaust()
        error = budget.error(inst.env_id if inst else None)
        if inst is not None:
            inst.worker = None
            inst.broken = error
        return error

    def _channel_failure(self, worker: Worker, exc: ChannelError, what: str, timeout: float,
                         inst: Instance | None) -> SandboxError:
        env_id = inst.env_id if inst else None
        method = METHOD_NAMES.get(what, what)
        if exc.kind == "timeout":
            worker.kill("timeout")
            error: SandboxError = SandboxTimeout(
                f"{method}() did not return within {timeout:g} s (wall clock); the worker was killed and will be "
                "replaced. Make the environment do less work per call.", env_id=env_id)
        elif exc.kind == "oversize":
            worker.kill("oversize reply")
            error = SandboxPolicyError(f"{method}() sent a reply of {exc.detail}; the worker was killed. Return "
                                       "smaller observations (SandboxLimits.max_reply_bytes).", env_id=env_id)
        elif exc.kind == "protocol":
            worker.kill("protocol violation")
            error = SandboxCrashed(f"the worker broke the channel protocol during {method}() ({exc.detail}); it was "
                                   "killed and will be replaced", env_id=env_id)
        else:
            status = self._exit_status(worker)
            cls: type[SandboxError] = SandboxCrashed
            if "SIGXCPU" in status:
                cls = SandboxTimeout
            elif "scratch quota exceeded" in status:
                cls = SandboxMemoryError
            elif "MemoryError" in status or "Cannot allocate memory" in status:
                cls = SandboxMemoryError
            elif "SIGSYS" in status:
                cls = SandboxPolicyError
            error = cls(f"the worker died during {method}() ({status}); it will be replaced", env_id=env_id)
        self._lose_worker(worker, str(exc))
        if inst is not None:
            inst.worker = None
            inst.broken = error
        return error

    def _error_from_reply(self, err: dict[str, Any], what: str, inst: Instance | None,
                          env_id: str | None) -> SpadeError:
        error = error_from_reply(err, what, env_id)
        if inst is not None and err.get("cause") in ("timeout", "memory", "policy"):
            inst.broken = error  # state may be half-updated: rebuild the instance on the next reset
        return error

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
            except _WorkerLost:
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

    @staticmethod
    def _lost_while_waiting(env_id: str | None) -> SandboxCrashed:
        return SandboxCrashed(f"the worker this call waited for was lost {LOST_WHILE_WAITING_TRIES} times in a row "
                              "(calls of other instances on it killed it); try again, or give this environment's "
                              "code a pool of its own", env_id=env_id)

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

    def _place(self, inst: Instance) -> None:
        """Make ``inst`` on a worker for its code (``inst.lock`` is held)."""
        for _ in range(LOST_WHILE_WAITING_TRIES):
            with self._lock:
                worker = self._worker_for(inst.code)
                worker.instances.add(inst.iid)  # its slot is held while it is made
            placed = False
            try:
                with self._held(worker):
                    self._new_on(worker, inst)
                    with self._lock:
                        placed = not worker.dead
                        if placed:
                            inst.worker = worker
            except _WorkerLost:
                pass
            finally:
                if not placed:
                    with self._lock:
                        worker.instances.discard(inst.iid)
            if placed:
                return
        raise self._lost_while_waiting(inst.env_id)

    def _new_on(self, worker: Worker, inst: Instance) -> None:
        message: dict[str, Any] = {"op": "new", "iid": inst.iid, "key": inst.code.key, "module": inst.code.module,
                                   "knobs": wire.to_wire(inst.knobs), "where": inst.env_id or "environment module"}
        if inst.code.key not in worker.loaded:
            message["source"] = inst.code.source
        timeout = self.limits.load_timeout_s if "source" in message else self.limits.call_timeout_s
        reply = self._request(worker, message, timeout, "new", None, budget=inst.budget)
        if "err" in reply:
            raise self._error_from_reply(reply["err"], "new", None, inst.env_id)
        worker.loaded.add(inst.code.key)

    def _restore(self, inst: Instance) -> None:
        """Rebuild an instance whose worker was lost, replaying its episode so far. The replay's time is charged
        to the episode (``episode_budget_s``), so a worker that keeps dying cannot make the host replay for free."""
        started = time.monotonic()
        self._place(inst)
        with self._lock:
            self.replays += 1
        with self._hold_current(inst) as worker:
            self._replay_on(worker, inst, started)

    def _replay_on(self, worker: Worker, inst: Instance, started: float) -> None:
        last: Any = None
        for method, arg, ok in inst.log:
            reply = self._request(worker, {"op": "call", "iid": inst.iid, "m": method, "a": arg},
                                  self.limits.call_timeout_s, method, inst, budget=inst.budget)
            now = time.monotonic()
            inst.episode_time += now - started
            started = now
            if inst.episode_time > self.limits.episode_budget_s:
                raise SandboxTimeout(
                    f"replaying the episode after its worker was lost took it to {inst.episode_time:.2f} s of "
                    f"environment time, more than its budget of {self.limits.episode_budget_s:g} s "
                    "(SandboxLimits.episode_budget_s)", env_id=inst.env_id)
            if ("ok" in reply) != ok:
                raise SandboxCrashed(f"replaying {METHOD_NAMES[method]}() after its worker was lost gave a "
                                     "different outcome; the environment is not deterministic", env_id=inst.env_id)
            last = reply.get("ok")
        if inst.log and inst.log[-1][2] and last != inst.last_value:
            raise SandboxCrashed("replaying the episode after its worker was lost did not reproduce the last "
                                 "result; the environment is not deterministic", env_id=inst.env_id)

    def _prepare(self, inst: Instance, method: str) -> None:
        """Make sure ``inst`` is placed for ``method`` (``inst.lock`` is held; no worker's lock is)."""
        if inst.closed:
            raise SandboxCrashed("this sandboxed environment was closed", env_id=inst.env_id)
        worker = inst.worker
        if method == "reset":
            if inst.broken is not None or worker is None or worker.dead:
                self._detach(inst)
                inst.broken = None
                inst.log = []
                self._place(inst)
            return
        if inst.broken is not None:
            raise type(inst.broken)(f"the instance failed earlier ({inst.broken}); call reset() for a fresh one",
                                    env_id=inst.env_id)
        if worker is None or worker.dead:
            try:
                self._restore(inst)
            except SandboxError as exc:
                self._detach(inst)
                inst.broken = exc
                raise type(exc)(f"lost with its worker and could not be rebuilt: {exc}", env_id=inst.env_id) from None

    def _detach(self, inst: Instance) -> None:
        with self._lock:
            worker = inst.worker
            inst.worker = None
            if worker is None or worker.dead:
                return
            worker.instances.discard(inst.iid)
            self._reserve(worker)
        try:
            with self._held(worker):
                try:
                    self._request(worker, {"op": "del", "iid": inst.iid}, self.limits.call_timeout_s, "close", None,
                                  budget=inst.budget)
                except SandboxError:
                    pass
        except _WorkerLost:
            pass
        with self._lock:
            self._maybe_retire(worker)

    def _maybe_retire(self, worker: Worker) -> None:
        if worker.instances or worker.dead:
            return
        idle_groups = [w for w in self._workers.values()
                       if w.group is not None and not w.instances and not w.dead and not w.in_flight]
        if len(idle_groups) > self.max_idle_group_workers:
            self._retire(min(idle_groups, key=lambda w: w.last_used), "idle")

    def _record(self, inst: Instance, method: str, arg: Any, ok: bool, value: Any, seconds: float) -> None:
        if method == "reset":
            inst.log = [(method, arg, ok)]
            inst.episode_time = 0.0
        else:
            inst.log.append((method, arg, ok))
        if ok:
            inst.last_value = value
        inst.episode_time += seconds
        if inst.episode_time > self.limits.episode_budget_s:
            inst.broken = SandboxTimeout(
                f"the episode used {inst.episode_time:.2f} s of environment time, more than its budget of "
                f"{self.limits.episode_budget_s:g} s (SandboxLimits.episode_budget_s); make calls cheaper",
                env_id=inst.env_id)
            raise inst.broken

    def call(self, inst: Instance, method: str, arg: Any = None) -> Any:
        """Run ``reset``/``step``/``hint``/``ref`` on an instance; return its raw value or raise the typed error."""
        self._drain_dropped()
        with inst.lock:
            for _ in range(LOST_WHILE_WAITING_TRIES):
                try:
                    self._prepare(inst, method)
                    with self._hold_current(inst) as worker:
                        return self._call_on(worker, inst, method, arg)
                except _WorkerLost:
                    continue
            raise self._lost_while_waiting(inst.env_id)

    def _call_on(self, worker: Worker, inst: Instance, method: str, arg: Any) -> Any:
        start = time.monotonic()
        reply = self._request(worker, {"op": "call", "iid": inst.iid, "m": method, "a": arg},
                              self.limits.call_timeout_s, method, inst, budget=inst.budget)
        elapsed = time.monotonic() - start
        try:
            if "err" in reply:
                error = self._error_from_reply(reply["err"], method, inst, inst.env_id)
                if inst.broken is None:
                    self._record(inst, method, arg, False, None, elapsed)
                raise error
            value = reply["ok"]
            self._record(inst, method, arg, True, value, elapsed)
        except SpadeError:
            raise
        except Exception as exc:  # host bookkeeping of a worker's reply never escapes raw
            raise self._channel_failure(worker, ChannelError("protocol", f"unusable reply ({type(exc).__name__})"),
                                        method, self.limits.call_timeout_s, inst) from None
        return value

    def call_many(self, calls: Sequence[tuple[Instance, str, Any]]) -> list[Any]:
        """Run many calls with one message per worker; each result is the raw value or a ``SpadeError``."""
        self._drain_dropped()
        insts = sorted({id(inst): inst for inst, _, _ in calls}.values(), key=lambda inst: inst.iid)
        with ExitStack() as locked:
            for inst in insts:  # in one order (iid), so two batches sharing instances never wait on each other
                locked.enter_context(inst.lock)
            outer = self._batch.allowance
            self._batch.allowance = outer or ReplyAllowance(self.limits)
            try:
                return self._call_many(calls)
            finally:
                self._batch.allowance = outer

    def _call_many(self, calls: Sequence[tuple[Instance, str, Any]]) -> list[Any]:
        results: list[Any] = [None] * len(calls)
        groups: dict[tuple[int, int], tuple[Worker, TimeBudget | None, list[int]]] = {}
        redo: list[int] = []
        reserved: list[Worker] = []
        try:
            for index, (inst, method, _) in enumerate(calls):
                try:
                    self._prepare(inst, method)
                    worker = self._reserve_current(inst)
                except SpadeError as exc:
                    results[index] = exc
                    continue
                except _WorkerLost:
                    redo.append(index)
                    continue
                reserved.append(worker)
                # one message per worker and budget: calls charged to different budgets never share a message
                groups.setdefault((worker.serial, id(inst.budget)), (worker, inst.budget, []))[2].append(index)
            redo += self._send_batches(calls, list(groups.values()), results)
        finally:
            for worker in reserved:
                self._unreserve(worker)
        self._retry_individually(calls, redo, results)
        return results

    def _reserve_current(self, inst: Instance) -> Worker:
        with self._lock:
            worker = inst.worker
            if worker is None or worker.dead:
                raise _WorkerLost
            self._reserve(worker)
            return worker

    def _send_batches(self, calls: Sequence[tuple[Instance, str, Any]],
                      groups: list[tuple[Worker, TimeBudget | None, list[int]]], results: list[Any]) -> list[int]:
        """Send each group as one message and read the replies, holding every group's worker (in serial order);
        return the calls to redo one by one (their worker was lost or failed the batch as a whole)."""
        redo: list[int] = []
        workers = sorted({worker.serial: worker for worker, _, _ in groups}.values(), key=lambda w: w.serial)
        with ExitStack() as held:
            for worker in workers:
                held.enter_context(worker.lock)
            sent: list[tuple[Worker, list[int], float, float, TimeBudget | None, float | None]] = []
            for worker, budget, indices in groups:
                if worker.dead:
                    redo += indices
                    continue
                message = {"op": "batch", "calls": [[calls[i][0].iid, calls[i][1], calls[i][2]] for i in indices]}
                deadline = time.monotonic() + len(indices) * self.limits.call_timeout_s + self.grace_s
                budget_end = None
                try:
                    if budget is not None:
                        deadline, budget_end = budget.cut(deadline)
                except SandboxTimeout as exc:
                    for index in indices:
                        results[index] = exc
                    continue
                try:
                    self._await_ready(worker)
                    started = time.monotonic()
                    self._arm_cpu(worker, len(indices) * self.limits.cpu_s_per_call)
                    worker.send(message, deadline)
                    sent.append((worker, indices, deadline, started, budget, budget_end))
                except (ChannelError, SandboxError):
                    self._fail_batch(worker)
                    redo += indices
            for worker, indices, deadline, started, budget, budget_end in sent:
                redo += self._receive_batch(calls, worker, indices, deadline, started, budget, budget_end, results)
        return redo

    def _fail_batch(self, worker: Worker) -> None:
        if not worker.dead:
            self._lose_worker(worker, "batch failed")

    def _receive_batch(self, calls: Sequence[tuple[Instance, str, Any]], worker: Worker, indices: list[int],
                       deadline: float, started: float, budget: TimeBudget | None, budget_end: float | None,
                       results: list[Any]) -> list[int]:
        # each batch message gets the budget of one reply (n replies of max_reply_bytes would let one message
        # cost the host n times the memory), and all of them together, retries and replays included,
        # BATCH_TOTAL_REPLIES of it (the thread's ReplyAllowance, charged by _recv_reply)
        try:
            try:
                with budget.charged(time.monotonic()) if budget is not None else nullcontext():
                    reply = self._recv_reply(worker, deadline,
                                             self.limits.max_reply_bytes + 1024 + 64 * len(indices),
                                             self.limits.max_reply_elements + 16 * len(indices))
            finally:
                worker.busy_since_seen += time.monotonic() - started
            items = reply["ok"]
            if not isinstance(items, list) or len(items) != len(indices):
                raise ChannelError("protocol", "batch reply has the wrong length")
        except ChannelError as exc:
            if budget is not None and exc.kind == "timeout" and budget_end is not None and deadline >= budget_end:
                error = self._budget_spent(worker, budget, None)
                for index in indices:
                    results[index] = error
                    calls[index][0].broken = error
                return []
            self._fail_batch(worker)
            return indices
        except Exception:  # any unusable reply: redo the calls one by one on a fresh worker
            self._fail_batch(worker)
            return indices
        charged = split_batch_time(time.monotonic() - started, items)
        malformed = False
        for index, item, seconds in zip(indices, items, charged):
            malformed |= self._batch_item(calls[index], item, seconds, results, index)
        if malformed and not worker.dead:
            self._lose_worker(worker, "malformed batch item")
        return []

    def _batch_item(self, call: tuple[Instance, str, Any], item: Any, seconds: float, results: list[Any],
                    index: int) -> bool:
        """Record one item of a batch reply; True when it was malformed (the worker's protocol error)."""
        inst, method, arg = call
        try:
            status, value, _ = item
            if status == "ok":
                self._record(inst, method, arg, True, value, seconds)
                results[index] = value
            else:
                error = self._error_from_reply(value, method, inst, inst.env_id)
                if inst.broken is None:
                    self._record(inst, method, arg, False, None, seconds)
                results[index] = error
        except SpadeError as exc:
            results[index] = exc
        except Exception:  # a malformed item is the worker's protocol error
            results[index] = SandboxCrashed("malformed batch item from the worker; it was replaced",
                                            env_id=inst.env_id)
            inst.broken = results[index]
            return True
        return False

    def _retry_individually(self, calls: Sequence[tuple[Instance, str, Any]], indices: list[int],
                            results: list[Any]) -> None:
        """Redo calls one by one (their batch failed as a whole, its worker lost, or their worker was lost while
        the batch waited for it), to find the culprit; no worker is held meanwhile."""
        failures = 0
        for index in indices:
            inst, method, arg = calls[index]
            if failures >= 2:
                results[index] = SandboxCrashed("the worker hosting this environment failed during a batch call",
                                                env_id=inst.env_id)
                inst.broken = results[index]
                continue
            try:
                results[index] = self.call(inst, method, arg)
            except SpadeError as exc:
                results[index] = exc
                failures += 1

    def destroy(self, inst: Instance) -> None:
        """Remove an instance from its worker (idempotent)."""
        with inst.lock:
            if inst.closed:
                return
            inst.closed = True
            with self._lock:
                self._insts.pop(inst.iid, None)
                closed = self._closed
            if not closed:
                self._detach(inst)

    def drop(self, inst: Instance) -> None:
        """:meth:`destroy` from a finaliser: takes no lock (the garbage collector may run while this thread holds
        one); the instance is destroyed at the pool's next operation."""
        self._dropped.append(inst)

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

