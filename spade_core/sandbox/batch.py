"""``call_many``: many calls with one message per worker and budget, in parallel on different workers.

A batch takes its instances' locks in id order, reserves each call's worker, then holds the workers' channels in
serial order while it sends every message and reads every reply, so two batches sharing instances or workers
never wait on each other in a circle. All of a batch's replies together, retries and replays included, are bounded
by one :class:`~.budgets.ReplyAllowance`, passed to every exchange the batch makes. A message that fails as a whole
loses its worker, and its calls are redone one by one (with replay) to find the culprit; so are calls whose worker
was lost while the batch waited for it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import ExitStack, nullcontext
from typing import Any

from spade_core.errors import SandboxCrashed, SandboxError, SandboxTimeout, SpadeError
from spade_core.sandbox.budgets import ReplyAllowance, TimeBudget, split_batch_time
from spade_core.sandbox.channel import ChannelError, Worker
from spade_core.sandbox.exchange import WorkerLost
from spade_core.sandbox.instances import Instance
from spade_core.sandbox.placement import InstancePlacement


class BatchCalls(InstancePlacement):
    """The pool's batch path; see the module docstring."""

    def call_many(self, calls: Sequence[tuple[Instance, str, Any]]) -> list[Any]:
        """Run many calls with one message per worker; each result is the raw value or a ``SpadeError``."""
        self._drain_dropped()
        insts = sorted({id(inst): inst for inst, _, _ in calls}.values(), key=lambda inst: inst.iid)
        held = []  # acquired by hand: an ExitStack costs more than the call it guards at 64 calls a message
        try:
            for inst in insts:  # in one order (iid), so two batches sharing instances never wait on each other
                inst.lock.acquire()
                held.append(inst.lock)
            return self._call_many(calls, ReplyAllowance(self.limits))
        finally:
            for lock in reversed(held):
                lock.release()

    def _call_many(self, calls: Sequence[tuple[Instance, str, Any]], allowance: ReplyAllowance) -> list[Any]:
        results: list[Any] = [None] * len(calls)
        groups: dict[tuple[int, int], tuple[Worker, TimeBudget | None, list[int]]] = {}
        redo: list[int] = []
        reserved: dict[int, Worker] = {}  # each worker once, however many of the batch's calls it hosts
        try:
            for index, (inst, method, _) in enumerate(calls):
                try:
                    self._prepare(inst, method, allowance)
                    worker = self._reserve_current(inst, reserved)
                except SpadeError as exc:
                    results[index] = exc
                    continue
                except WorkerLost:
                    redo.append(index)
                    continue
                # one message per worker and budget: calls charged to different budgets never share a message
                groups.setdefault((worker.serial, id(inst.budget)), (worker, inst.budget, []))[2].append(index)
            redo += self._send_batches(calls, list(groups.values()), results, allowance)
        finally:
            for worker in reserved.values():
                self._unreserve(worker)
        self._retry_individually(calls, redo, results, allowance)
        return results

    def _send_batches(self, calls: Sequence[tuple[Instance, str, Any]],
                      groups: list[tuple[Worker, TimeBudget | None, list[int]]], results: list[Any],
                      allowance: ReplyAllowance) -> list[int]:
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
                redo += self._receive_batch(calls, worker, indices, deadline, started, budget, budget_end, results,
                                            allowance)
        return redo

    def _fail_batch(self, worker: Worker) -> None:
        if not worker.dead:
            self._lose_worker(worker, "batch failed")

    def _receive_batch(self, calls: Sequence[tuple[Instance, str, Any]], worker: Worker, indices: list[int],
                       deadline: float, started: float, budget: TimeBudget | None, budget_end: float | None,
                       results: list[Any], allowance: ReplyAllowance) -> list[int]:
        # each batch message gets the budget of one reply (n replies of max_reply_bytes would let one message
        # cost the host n times the memory), and all of them together, retries and replays included,
        # BATCH_TOTAL_REPLIES of it (the batch's ReplyAllowance, charged by _recv_reply)
        try:
            try:
                with budget.charged(time.monotonic()) if budget is not None else nullcontext():
                    reply = self._recv_reply(worker, deadline,
                                             self.limits.max_reply_bytes + 1024 + 64 * len(indices),
                                             self.limits.max_reply_elements + 16 * len(indices), allowance)
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
                            results: list[Any], allowance: ReplyAllowance) -> None:
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
                results[index] = self._call(inst, method, arg, allowance)
            except SpadeError as exc:
                results[index] = exc
                failures += 1
