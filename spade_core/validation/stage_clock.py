"""A stage's budget while it runs: the deadline its work checks where the cost is paid.

The stage loop (:func:`spade_core.validation.stage_list.run_stage`) starts a :class:`StageClock` from the stage's
budget (its ``Stage.budget_s``, or ``ValidationConfig.stage_budget_s`` by name) and hands its deadline to the
candidate's :class:`~spade_core.sandbox.budgets.TimeBudget`, so every sandbox call of the stage gets at most the time
left and none starts past it (episodes stop there). Host-side loops (replays, hint scans, probes, perturbations)
walk their items through :meth:`StageClock.items`, which checks the deadline before each item and keeps the count
for the message. Past the deadline the stage fails: a stage too slow to finish is rejected, as a stage that took
longer than its budget always was.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from spade_core.deadlines import NO_DEADLINE, Deadline
from spade_core.sandbox.cpu_share import cpu_share
from spade_core.validation.config import STAGE_BUDGET_KEY

T = TypeVar("T")


class StageBudgetSpent(Exception):
    """Raised by a deadline check past the stage's deadline; the stage loop turns it into the stage's result."""

    def __init__(self, clock: StageClock) -> None:
        super().__init__(clock.spent_message())
        self.clock = clock


@dataclass
class _Loop:
    what: str
    done: int
    total: int


@dataclass
class StageClock:
    """One stage's deadline and how far its loops got. The default never expires (a stage run on its own)."""

    stage: str = ""
    budget_s: float = 0.0
    deadline: Deadline = NO_DEADLINE
    loops: list[_Loop] = field(default_factory=list)
    last: _Loop | None = None  # the last loop that ended
    seen_at_expiry: str | None = None  # how far the loops got when a check first found the deadline passed

    @classmethod
    def start(cls, stage: str, budget_s: float, floor: float = 1.0) -> StageClock:
        """The clock of ``stage``, whose deadline is ``budget_s`` from now, stretched by the CPU share a busy
        machine gives now (never more than ``1 / floor`` times: :func:`~spade_core.sandbox.cpu_share.cpu_share`)."""
        return cls(stage, budget_s, Deadline.after(budget_s / cpu_share(floor)))

    def expired(self) -> bool:
        return self.deadline.expired()

    def check(self) -> None:
        """Raise :class:`StageBudgetSpent` once the deadline has passed."""
        if self.deadline.expired():
            if self.seen_at_expiry is None:
                self.seen_at_expiry = self.progress()
            raise StageBudgetSpent(self)

    def items(self, items: Iterable[T], what: str) -> Iterator[T]:
        """``items`` one by one, the deadline checked before each (past it :class:`StageBudgetSpent` is raised);
        ``what`` names them in the message ("hint episodes")."""
        listed = list(items)
        loop = _Loop(what, 0, len(listed))
        self.loops.append(loop)
        try:
            for item in listed:
                self.check()
                yield item
                loop.done += 1
        finally:
            self.last = loop
            self.loops.remove(loop)

    def progress(self) -> str:
        """How far the stage's loops got: ``after K of M items`` for each loop running (outermost first), or for
        the last one that ran."""
        loops = self.loops or ([self.last] if self.last is not None else [])
        if not loops:
            return "before its first item"
        return "after " + ", ".join(f"{loop.done} of {loop.total} {loop.what}" for loop in loops)

    def spent_message(self) -> str:
        progress = self.seen_at_expiry if self.seen_at_expiry is not None else self.progress()
        return (f"the stage's budget of {self.budget_s:g} s was spent {progress}; make calls cheaper or raise "
                f"{STAGE_BUDGET_KEY}.{self.stage}")
