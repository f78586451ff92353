"""The share of a CPU a busy machine gives one runnable process now, so that a time budget charges what the work
cost and not how long it queued behind other work.

On a machine with more runnable processes than CPUs (the 1-minute load average above the CPUs this process may use:
its affinity, and a cgroup v2 quota where one is set), a second of wall time buys about ``cpus / load`` of a CPU.
Validation charges sandbox time and sets stage deadlines at that rate (:class:`~spade_core.sandbox.budgets.
TimeBudget`, :class:`~spade_core.validation.stage_clock.StageClock`), so a good environment whose reference takes
30 s alone is not rejected for taking 75 s beside four other jobs. ``floor`` bounds the stretch: budgets never
last more than ``1 / floor`` times their wall-clock value, whatever the load (a candidate's own workers add to the
load; with the floor they cannot buy it more than that). An idle machine charges wall time as it is.
"""

from __future__ import annotations

import os
import time

REFRESH_S = 1.0
"""The load is read again after this long (one read is a few microseconds; calls come by the thousand)."""
CGROUP_CPU_MAX = "/sys/fs/cgroup/cpu.max"

_seen: tuple[float, float] = (-REFRESH_S, 1.0)  # (when, cpus / load capped at 1)


def usable_cpus() -> float:
    """CPUs this process may run on: its affinity set, capped by a cgroup v2 quota (``cpu.max``) where one is set."""
    try:
        cpus = float(len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        cpus = float(os.cpu_count() or 1)
    try:
        with open(CGROUP_CPU_MAX, encoding="ascii") as f:
            quota, period = f.read(64).split()[:2]
        if quota != "max" and float(period) > 0:
            cpus = min(cpus, float(quota) / float(period))
    except (OSError, ValueError):
        pass
    return max(cpus, 1e-3)


def _ratio() -> float:
    global _seen
    now = time.monotonic()
    when, ratio = _seen
    if now - when >= REFRESH_S:
        try:
            load = os.getloadavg()[0]
        except OSError:
            load = 0.0
        cpus = usable_cpus()
        ratio = 1.0 if load <= cpus else cpus / load
        _seen = (now, ratio)
    return ratio


def cpu_share(floor: float) -> float:
    """The share of a CPU one process gets now (1.0 on a machine with a CPU free), never below ``floor`` (1.0: wall
    time as it is)."""
    return 1.0 if floor >= 1.0 else max(floor, _ratio())
