"""What sandbox calls may spend, charged where it is paid: a caller's total time (:class:`TimeBudget`), one batch's
reply bytes and values (:class:`ReplyAllowance`), a batch's time split over its calls (:func:`split_batch_time`),
and a worker's CPU, read from ``/proc`` and capped with ``RLIMIT_CPU`` from outside (:func:`arm_cpu`).

A :class:`TimeBudget` is passed to the pool with the work it bounds (``WorkerPool.load``/``create``, and from there
every call of the instance); nothing reads it from the calling thread.
"""

from __future__ import annotations

import math
import os
import resource
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from spade_core.deadlines import Deadline
from spade_core.errors import SandboxTimeout
from spade_core.sandbox.channel import ChannelError, Worker
from spade_core.sandbox.cpu_share import cpu_share
from spade_core.sandbox.limits import SandboxLimits

BATCH_TOTAL_REPLIES = 4
"""One ``call_many`` accepts at most this many replies' worth (``max_reply_bytes``, ``max_reply_elements``) over all
its workers; a worker whose frame would go past it is replaced and its calls are redone one by one."""
CPU_CHECK_S = 0.25
"""How often (at most, per worker, at its next message) the host reads a worker's CPU time from ``/proc``."""
IDLE_CPU_SLACK_S = 0.1
"""CPU a worker may use outside the host-measured time of its calls before it is killed (timer ticks, GC)."""
_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class TimeBudget:
    """A bound on the total host-measured time of every sandbox call made with it, across pools, and on when they
    may run (:meth:`within`: a deadline, such as a validation stage's).

    ``floor`` below 1 charges wall time at the CPU share a busy machine gives (:mod:`~spade_core.sandbox.cpu_share`):
    beside other jobs a call's seconds cost what the call could use of a CPU, so the budget lasts at most
    ``1 / floor`` times its wall-clock length; 1.0 charges wall time as it is.

    A call still running when the budget runs out (or its deadline passes) is killed with its worker; every later
    call with it fails at once with :class:`SandboxTimeout`. The validation pipeline gives each candidate one
    (``ValidationConfig.candidate_budget_s``), so code whose every call stays just under the call timeout cannot
    hold it for minutes, and each stage runs within its own deadline. Requests a worker sends the host during a call
    are part of that call's time (charged once).
    """

    __slots__ = ("depth", "floor", "knob", "limit_s", "spent_s", "what", "window")

    def __init__(self, seconds: float, what: str = "this candidate", knob: str = "", floor: float = 1.0) -> None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
            raise ValueError(f"TimeBudget needs a positive number of seconds, got {seconds!r}")
        if not 0 < floor <= 1:
            raise ValueError(f"TimeBudget's floor is a CPU share in (0, 1], got {floor!r}")
        self.floor = float(floor)
        self.limit_s = float(seconds)
        self.spent_s = 0.0
        self.what = what
        self.knob = knob
        self.depth = 0
        self.window: tuple[Deadline, Callable[[], str]] | None = None

    @contextmanager
    def within(self, deadline: Deadline, says: Callable[[], str]) -> Iterator[None]:
        """Calls made in the block end by ``deadline`` too (each gets at most the time left; none starts past it);
        ``says`` words the timeout (the stage's budget, how far it got)."""
        outer, self.window = self.window, (deadline, says)
        try:
            yield
        finally:
            self.window = outer

    def _window_passed(self) -> bool:
        return self.window is not None and self.window[0].expired() and self.spent_s < self.limit_s

    def error(self, env_id: str | None = None) -> SandboxTimeout:
        if self._window_passed():
            assert self.window is not None
            return SandboxTimeout(self.window[1](), env_id=env_id)
        where = f" ({self.knob})" if self.knob else ""
        return SandboxTimeout(
            f"{self.what} used its whole budget of {self.limit_s:g} s of environment time{where}; its calls are "
            "too slow in total (make reset/step take milliseconds)", env_id=env_id)

    def spent(self) -> SandboxTimeout | None:
        """The error once the budget is used up, else None: a check that failed because its calls were cut off
        reports the budget, not what the cut-off calls looked like."""
        return self.error(None) if self.spent_s >= self.limit_s else None

    def exhaust(self) -> None:
        """A call ran into the end of the budget: nothing is left (a call cut off by the deadline of
        :meth:`within` leaves the total as charged)."""
        if not self._window_passed():
            self.spent_s = self.limit_s

    def cut(self, deadline: float) -> tuple[float, float | None]:
        """``deadline`` cut to what is left (of the budget and of the :meth:`within` deadline), and that end (None
        inside a call already charged, whose own deadline holds); raises the error when nothing is left."""
        if self.depth:
            return deadline, None
        left = self.limit_s - self.spent_s
        if left <= 0 or self._window_passed():
            raise self.error(None)
        left /= cpu_share(self.floor)
        if self.window is not None:
            left = min(left, self.window[0].remaining())
        end = time.monotonic() + left
        return min(deadline, end), end

    @contextmanager
    def charged(self, started: float) -> Iterator[None]:
        """Charge the time from ``started`` to the end of the block (outermost block only)."""
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            if self.depth == 0:
                self.spent_s += (time.monotonic() - started) * cpu_share(self.floor)


class ReplyAllowance:
    """What is left of one ``call_many``'s reply budget; every frame of the batch, its retries and their replays
    is charged here, so a crash mid-batch cannot multiply what the host accepts."""

    __slots__ = ("bytes_left", "values_left")

    def __init__(self, limits: SandboxLimits) -> None:
        self.bytes_left = BATCH_TOTAL_REPLIES * (limits.max_reply_bytes + 1024)
        self.values_left = BATCH_TOTAL_REPLIES * limits.max_reply_elements

    def charge(self, worker: Worker) -> None:
        self.bytes_left -= worker.last_frame_bytes
        self.values_left -= worker.last_frame_values

    def spent(self) -> bool:
        return self.bytes_left <= 0 or self.values_left <= 0


def split_batch_time(elapsed: float, items: Sequence[Any]) -> list[float]:
    """Split a batch's host-measured time over its calls. The worker's own per-call figures only set the
    proportions (a worker can shift time between its own instances, never make the total smaller)."""
    weights = []
    for item in items:
        try:
            weight = float(item[2])
        except (TypeError, ValueError, IndexError):
            weight = 0.0
        weights.append(weight if 0.0 < weight < 1e6 else 0.0)
    total = sum(weights)
    if total <= 0.0:
        return [elapsed / max(1, len(items))] * len(items)
    return [elapsed * w / total for w in weights]


def read_cpu(pid: int) -> tuple[int, float] | None:
    """``(start time in ticks, CPU seconds used)`` of a process from ``/proc/<pid>/stat``, or None if it is gone."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        try:
            data = os.read(fd, 4096)
        finally:
            os.close(fd)
        fields = data.rsplit(b")", 1)[1].split()
        return int(fields[19]), (int(fields[11]) + int(fields[12])) / _CLK_TCK
    except (OSError, IndexError, ValueError):
        return None


def arm_cpu(worker: Worker, budget_s: float, limits: SandboxLimits, hard_too: bool) -> bool:
    """Police and arm a worker's CPU from outside, before a message: it can neither change its own limit
    (seccomp) nor spin between calls unnoticed. Returns whether the hard limit may still be raised (``hard_too``:
    the host runs as root and has not been refused yet).

    Every :data:`CPU_CHECK_S` the host reads the worker's CPU time from ``/proc``: CPU beyond the host-measured
    time of its calls since the last reading (plus :data:`IDLE_CPU_SLACK_S`) was spent outside any call or by
    extra threads, and :class:`ChannelError` is raised (the pool kills the worker and replays its instances on a
    fresh one). Then, when the armed limit does not leave ``budget_s`` above what the worker may have used,
    ``RLIMIT_CPU`` is set with ``prlimit``: soft at that point plus ``cpu_s_per_call``, hard one second later (as
    root), never above ``cpu_s_per_worker``.
    """
    now = time.monotonic()
    if worker.cpu_seen_at is None or now - worker.cpu_seen_at >= CPU_CHECK_S:
        got = read_cpu(worker.pid)
        if got is None:
            return hard_too  # gone: the send reports it
        start, cpu = got
        if worker.start_ticks is None:
            worker.start_ticks = start
        elif start != worker.start_ticks:
            return hard_too  # the pid is no longer our worker's
        if worker.cpu_seen_at is not None:
            idle = cpu - worker.cpu_seen - worker.busy_since_seen
            if idle > IDLE_CPU_SLACK_S + 0.05 * worker.busy_since_seen:
                raise ChannelError("protocol", f"the worker used {idle:.2f} s of CPU outside its calls "
                                   f"({cpu:.2f} s in all); it was killed")
        worker.cpu_seen, worker.busy_since_seen, worker.cpu_seen_at = cpu, 0.0, now
    need = worker.cpu_seen + worker.busy_since_seen + budget_s
    if need <= worker.cpu_armed:
        return hard_too
    cap = limits.cpu_s_per_worker
    soft = min(math.ceil(need + limits.cpu_s_per_call), cap)
    try:
        if hard_too:
            resource.prlimit(worker.pid, resource.RLIMIT_CPU, (soft, min(soft + 1, cap)))
        else:
            resource.prlimit(worker.pid, resource.RLIMIT_CPU, (soft, cap))
    except PermissionError:
        hard_too = False
        try:
            resource.prlimit(worker.pid, resource.RLIMIT_CPU, (soft, cap))
        except OSError:
            return hard_too
    except (OSError, ValueError):
        return hard_too
    worker.cpu_armed = soft
    return hard_too
