"""How a run's time budget (``time_budget_minutes``) becomes a deadline for every phase.

The small world before the loop may use at most ``budget.small_world`` of the whole budget. Then each iteration
that starts gets an equal share of what remains (``remaining / iterations left``), so time one iteration leaves
unused is carried forward to the next. Inside an iteration the phases run in order (designer, agent rollouts,
update); each phase, when it starts, gets its fraction of what is left of the share, in proportion to its own and
the later phases' fractions: a phase that ends early hands its time on to the phases after it. The update phase's
fraction is what the designer and agent leave (``1 - designer - agent``); it keeps room for the update, the metrics
line, the checkpoint and the report, which always run (an update is not stopped half-way).

A :class:`~spade_core.deadlines.StopRequest` (SIGTERM, Ctrl-C) expires every deadline at once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from spade_core.deadlines import Deadline, StopRequest
from spade_core.typed_config import ConfigError

Phase = Literal["designer", "agent", "update"]
PHASES: tuple[Phase, ...] = ("designer", "agent", "update")


@dataclass(frozen=True)
class BudgetSplit:
    """The ``budget`` section: what share of the time budget each phase may use."""

    small_world: float = 0.3  # at most this fraction of the whole budget for the small world before the loop
    designer: float = 0.35  # of each iteration's share: the designer phase (no new candidate or repair past it)
    agent: float = 0.45  # of each iteration's share: the agent rollouts (past it: no new turn, episodes time_limit)

    def __post_init__(self) -> None:
        for name in ("small_world", "designer", "agent"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise ConfigError(f"budget.{name} must be a fraction in (0, 1), got {value}")
        if self.designer + self.agent >= 1.0:
            raise ConfigError(f"budget.designer + budget.agent must stay below 1 (the rest is the update's), got "
                              f"{self.designer} + {self.agent}")

    def fraction(self, phase: Phase) -> float:
        return {"designer": self.designer, "agent": self.agent, "update": 1.0 - self.designer - self.agent}[phase]


@dataclass(frozen=True)
class IterationBudget:
    """One iteration's share of the budget: ``start`` to ``end`` on the monotonic clock."""

    start: float
    end: float
    split: BudgetSplit
    stop: StopRequest

    @property
    def share_s(self) -> float:
        return self.end - self.start

    def deadline(self, phase: Phase) -> Deadline:
        """The deadline of ``phase`` starting now: its fraction of what is left of the share, the later phases
        keeping theirs."""
        now = time.monotonic()
        later = PHASES[PHASES.index(phase):]
        weight = self.split.fraction(phase) / sum(self.split.fraction(p) for p in later)
        return Deadline(now + max(0.0, self.end - now) * weight, self.stop)


class RunBudget:
    """The run's budget from ``started`` (a monotonic time) for ``seconds``; hands out each phase's deadline."""

    def __init__(self, seconds: float, split: BudgetSplit, stop: StopRequest, *, started: float | None = None) -> None:
        self.started = time.monotonic() if started is None else started
        self.end = self.started + seconds
        self.split = split
        self.stop = stop

    def small_world(self) -> Deadline:
        return Deadline(self.started + self.split.small_world * (self.end - self.started), self.stop)

    def spent(self) -> bool:
        """True once the budget is used up or a stop was requested: no new iteration starts."""
        return self.stop.requested or time.monotonic() >= self.end

    def iteration(self, iterations_left: int) -> IterationBudget:
        """The next iteration's share: an equal part of what remains."""
        now = time.monotonic()
        return IterationBudget(now, now + max(0.0, self.end - now) / max(1, iterations_left), self.split, self.stop)
