"""One request and its reply on a worker's channel, for the pool (:mod:`.pool`) and its layers.

A call holds its worker's channel (``worker.lock``) for the exchange, after reserving the worker under the pool's
lock (:meth:`~.workers.WorkerLifecycle._reserve`), never the pool's lock itself. Each exchange has a wall-clock
deadline cut to its :class:`~.budgets.TimeBudget`, arms the worker's CPU limit, serves the worker's requests to the
host on the way (``{"sub": ...}``, see :func:`~.pool.register_sub_handler`) and charges the reply to the
:class:`~.budgets.ReplyAllowance` it is given (a ``call_many``'s, passed down to every exchange it makes, its
retries and replays included). A failure of the channel (timeout, oversize, protocol, death)
kills the worker and becomes the typed error of the instance whose call it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from spade_core.errors import (
    SandboxCrashed,
    SandboxError,
    SandboxMemoryError,
    SandboxPolicyError,
    SandboxTimeout,
    SpadeError,
)
from spade_core.sandbox import oslayers
from spade_core.sandbox.budgets import CPU_CHECK_S, ReplyAllowance, TimeBudget, arm_cpu
from spade_core.sandbox.channel import METHOD_NAMES, ChannelError, Worker, error_from_reply
from spade_core.sandbox.instances import Instance
from spade_core.sandbox.workers import WorkerLifecycle

MAX_SUB_REQUESTS = 256
"""Requests one call may send to the host (a code-domain environment runs the agent's code this way)."""
LOST_WHILE_WAITING_TRIES = 3
"""Times a call starts over when the worker it waited for was lost meanwhile (another instance's call killed it)."""

ServeRequest = Callable[[dict[str, Any], float], dict[str, Any]]
"""Serves one request of a worker to the host: ``(request, call deadline) -> answer``."""


class WorkerLost(Exception):
    """The worker a call reserved was lost before the call got its channel: the call starts over."""


class WorkerExchange(WorkerLifecycle):
    """The pool's exchanges on its workers' channels; see the module docstring."""

    grace_s: float
    """Slack past a call's timeout before its worker is deemed hung."""
    _can_raise_cpu_hard: bool

    def _init_exchange(self) -> None:
        self.grace_s = max(0.5, 0.25 * self.limits.call_timeout_s)
        self._can_raise_cpu_hard = oslayers.has_capability(oslayers.CAP_SYS_RESOURCE)

    def _sub_handler(self, op: Any) -> ServeRequest | None:
        """What serves a worker's request ``op`` to the host in the middle of a call (None: an unknown request,
        the worker's protocol error)."""
        return None

    @contextmanager
    def _held(self, worker: Worker) -> Iterator[Worker]:
        """The channel of ``worker``, reserved by the caller, for the block; the reservation ends with it. Raises
        :class:`WorkerLost` when the worker died while this thread waited for it."""
        try:
            with worker.lock:
                if worker.dead:
                    raise WorkerLost
                yield worker
        finally:
            self._unreserve(worker)

    @staticmethod
    def _lost_while_waiting(env_id: str | None) -> SandboxCrashed:
        return SandboxCrashed(f"the worker this call waited for was lost {LOST_WHILE_WAITING_TRIES} times in a row "
                              "(calls of other instances on it killed it); try again, or give this environment's "
                              "code a pool of its own", env_id=env_id)

    def _request(self, worker: Worker, message: dict[str, Any], timeout: float, what: str, inst: Instance | None,
                 max_bytes: int | None = None, budget: TimeBudget | None = None,
                 allowance: ReplyAllowance | None = None) -> Any:
        """One request/reply, its time charged to ``budget`` and its reply to ``allowance`` (each if any); channel
        failures kill the worker and raise the typed error. The caller holds ``worker.lock``, never the pool's lock."""
        self._await_ready(worker)
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
                                         self.limits.max_reply_elements, allowance)
            except ChannelError as exc:
                if budget is not None and exc.kind == "timeout" and budget_end is not None and deadline >= budget_end:
                    raise self._budget_spent(worker, budget, inst) from None
                raise self._channel_failure(worker, exc, what, timeout, inst) from None
            finally:
                worker.busy_since_seen += time.monotonic() - started
        if not isinstance(reply, dict) or ("ok" not in reply and not isinstance(reply.get("err"), dict)):
            raise self._channel_failure(worker, ChannelError("protocol", "reply is not {ok|err}"), what, timeout, inst)
        return reply

    def _recv_reply(self, worker: Worker, deadline: float, max_bytes: int, max_elements: int,
                    allowance: ReplyAllowance | None = None) -> Any:
        """The reply to the message just sent, serving the worker's requests to the host (``{"sub": ...}``) on
        the way; each answer is plain JSON data produced by trusted host code. Any exception while serving a
        request is a protocol error of this worker (it is killed): the channel never goes out of step. Every
        reply is charged to ``allowance`` (if any) and bounded by what it has left."""
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
            serve = self._sub_handler(request.get("op")) if isinstance(request, dict) else None
            if serve is None:
                raise ChannelError("protocol", "the worker sent an unknown request to the host")
            try:
                worker.send({"subr": serve(request, deadline)}, deadline)
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
