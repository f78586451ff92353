"""Instances on their group's workers: placement, calls one at a time, and rebuilding by replay.

A code record's workers, or its family's (variants of one record, ``WorkerPool.create(family=...)``), are its group
(``_groups``); an instance is placed on the least loaded live worker of its group, or on a new one. Each public
operation on an instance holds the instance's own lock (:attr:`.instances.Instance.lock`) and reserves its worker
before it takes the worker's channel (:mod:`.exchange`). An instance whose worker was lost (evicted, or killed by
another instance's call) is rebuilt on its next call by replaying its episode, charged to ``episode_budget_s``;
a replay that does not reproduce the last result marks it failed. The pool's hooks for losing a worker
(``_ungroup``, ``_orphan_instances``, ``_close_instances``, ``_evict_hosting``) live here.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections import deque
from contextlib import AbstractContextManager
from typing import Any

from spade_core.errors import SandboxCrashed, SandboxError, SandboxTimeout, SpadeError
from spade_core.sandbox import wire
from spade_core.sandbox.budgets import ReplyAllowance
from spade_core.sandbox.channel import METHOD_NAMES, ChannelError, Worker
from spade_core.sandbox.exchange import LOST_WHILE_WAITING_TRIES, WorkerExchange, WorkerLost
from spade_core.sandbox.instances import Instance, PlacedCode


class InstancePlacement(WorkerExchange):
    """Instances placed on workers of their group and called one at a time; see the module docstring."""

    max_idle_group_workers: int
    """Emptied workers kept for their group (beyond them the least recently used is retired)."""
    replays: int
    evictions: int
    _codes: dict[tuple[str, str], PlacedCode]
    _groups: dict[str, list[Worker]]
    _insts: dict[int, Instance]
    _iids: itertools.count[int]
    _dropped: deque[Instance]
    """Instances dropped by a finaliser (which takes no lock), destroyed at the pool's next operation."""

    def _init_placement(self, max_idle_group_workers: int) -> None:
        self.max_idle_group_workers = max_idle_group_workers
        self._codes = {}
        self._groups = {}
        self._insts = {}
        self._iids = itertools.count(1)
        self.replays = 0
        self.evictions = 0
        self._dropped = deque()

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

    def _hold_current(self, inst: Instance) -> AbstractContextManager[Worker]:
        """:meth:`_held` for the worker ``inst`` is placed on (:class:`WorkerLost` when it has none)."""
        return self._held(self._reserve_current(inst))

    def _reserve_current(self, inst: Instance, reserved: dict[int, Worker] | None = None) -> Worker:
        """The worker ``inst`` is placed on, reserved (:class:`WorkerLost` when it has none); with ``reserved``
        (a batch's workers by serial), a worker already in it is not reserved again."""
        with self._lock:
            worker = inst.worker
            if worker is None or worker.dead:
                raise WorkerLost
            if reserved is None or worker.serial not in reserved:
                self._reserve(worker)
                if reserved is not None:
                    reserved[worker.serial] = worker
            return worker

    def _drain_dropped(self) -> None:
        while self._dropped:
            try:
                inst = self._dropped.popleft()
            except IndexError:
                return
            self.destroy(inst)

    def _place(self, inst: Instance, allowance: ReplyAllowance | None = None) -> None:
        """Make ``inst`` on a worker for its code (``inst.lock`` is held)."""
        for _ in range(LOST_WHILE_WAITING_TRIES):
            with self._lock:
                worker = self._worker_for(inst.code)
                worker.instances.add(inst.iid)  # its slot is held while it is made
            placed = False
            try:
                with self._held(worker):
                    self._new_on(worker, inst, allowance)
                    with self._lock:
                        placed = not worker.dead
                        if placed:
                            inst.worker = worker
            except WorkerLost:
                pass
            finally:
                if not placed:
                    with self._lock:
                        worker.instances.discard(inst.iid)
            if placed:
                return
        raise self._lost_while_waiting(inst.env_id)

    def _new_on(self, worker: Worker, inst: Instance, allowance: ReplyAllowance | None) -> None:
        message: dict[str, Any] = {"op": "new", "iid": inst.iid, "key": inst.code.key, "module": inst.code.module,
                                   "knobs": wire.to_wire(inst.knobs), "where": inst.env_id or "environment module"}
        if inst.code.key not in worker.loaded:
            message["source"] = inst.code.source
        timeout = self.limits.load_timeout_s if "source" in message else self.limits.call_timeout_s
        reply = self._request(worker, message, timeout, "new", None, budget=inst.budget, allowance=allowance)
        if "err" in reply:
            raise self._error_from_reply(reply["err"], "new", None, inst.env_id)
        worker.loaded.add(inst.code.key)

    def _restore(self, inst: Instance, allowance: ReplyAllowance | None = None) -> None:
        """Rebuild an instance whose worker was lost, replaying its episode so far. The replay's time is charged
        to the episode (``episode_budget_s``), so a worker that keeps dying cannot make the host replay for free."""
        started = time.monotonic()
        self._place(inst, allowance)
        with self._lock:
            self.replays += 1
        with self._hold_current(inst) as worker:
            self._replay_on(worker, inst, started, allowance)

    def _replay_on(self, worker: Worker, inst: Instance, started: float, allowance: ReplyAllowance | None) -> None:
        last: Any = None
        for method, arg, ok in inst.log:
            reply = self._request(worker, {"op": "call", "iid": inst.iid, "m": method, "a": arg},
                                  self.limits.call_timeout_s, method, inst, budget=inst.budget, allowance=allowance)
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

    def _prepare(self, inst: Instance, method: str, allowance: ReplyAllowance | None = None) -> None:
        """Make sure ``inst`` is placed for ``method`` (``inst.lock`` is held; no worker's lock is); replies are
        charged to ``allowance`` (if any)."""
        if inst.closed:
            raise SandboxCrashed("this sandboxed environment was closed", env_id=inst.env_id)
        worker = inst.worker
        if method == "reset":
            if inst.broken is not None or worker is None or worker.dead:
                self._detach(inst, allowance)
                inst.broken = None
                inst.log = []
                self._place(inst, allowance)
            return
        if inst.broken is not None:
            raise type(inst.broken)(f"the instance failed earlier ({inst.broken}); call reset() for a fresh one",
                                    env_id=inst.env_id)
        if worker is None or worker.dead:
            try:
                self._restore(inst, allowance)
            except SandboxError as exc:
                self._detach(inst, allowance)
                inst.broken = exc
                raise type(exc)(f"lost with its worker and could not be rebuilt: {exc}", env_id=inst.env_id) from None

    def _detach(self, inst: Instance, allowance: ReplyAllowance | None = None) -> None:
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
                                  budget=inst.budget, allowance=allowance)
                except SandboxError:
                    pass
        except WorkerLost:
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
        return self._call(inst, method, arg, None)

    def _call(self, inst: Instance, method: str, arg: Any, allowance: ReplyAllowance | None) -> Any:
        """:meth:`call`, its replies (replay included) charged to ``allowance`` (a batch's, if any)."""
        with inst.lock:
            for _ in range(LOST_WHILE_WAITING_TRIES):
                try:
                    self._prepare(inst, method, allowance)
                    with self._hold_current(inst) as worker:
                        return self._call_on(worker, inst, method, arg, allowance)
                except WorkerLost:
                    continue
            raise self._lost_while_waiting(inst.env_id)

    def _call_on(self, worker: Worker, inst: Instance, method: str, arg: Any, allowance: ReplyAllowance | None) -> Any:
        start = time.monotonic()
        reply = self._request(worker, {"op": "call", "iid": inst.iid, "m": method, "a": arg},
                              self.limits.call_timeout_s, method, inst, budget=inst.budget, allowance=allowance)
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
