"""The learnability gate: an environment whose unhinted success never rises across its plays earns nothing, and
the reward it was paid before is clawed back when it is retired.

Regret pays a hint that carries a hidden fact (impossible without the hint, trivial with it) about 1 - chance, the
most any design earns. The hint-only arm (:mod:`spade_core.training.regret`) catches a hint that solves the task on
its own; a hidden fact that needs the task *and* the hint slips past it. What such an environment cannot hide is
that playing it teaches nothing: its unhinted success stays where it started. The ledger keeps, per environment,
the unhinted success of each iteration it was played in and the designer rewards paid for it; once it has been
played in ``min_plays`` iterations and the best ``window`` consecutive plays after the first ``window`` are not
``min_rise`` above those first ones, it is retired: from then on every proposal of it is paid minus the mean reward
its earlier proposals were paid (the claw-back), and the retirement keeps the numbers.

The price: an environment the agent learns slowly looks unlearnable for a while, so ``min_plays`` trades how long an
exploit is paid against how often a slow edge is lost. Measured in the small world (``benchmarks/bench_small_world.py
--candidates``, seed 0): it does not hold on its own. It judges one environment at a time, so a designer that moves
to a new one (another band's whisper) is paid in full until that one's ``min_plays``-th play, and a hint that gives
away the answer to a task that is learnable without it (the leaky relay) never trips it; the exploit share went from
44% to 100%. It is not part of the default objective (``regret.DEFAULT_OBJECTIVE``), which the hint-only arm defends.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from spade_core.training.errors import TrainingConfigError

GATE_UNLEARNABLE = "unlearnable"


@dataclass(frozen=True)
class LearnabilityConfig:
    """When the ledger judges an environment unlearnable."""

    min_plays: int = 6  # iterations it was played in before a verdict
    window: int = 2  # plays averaged at the start and at the best later stretch
    min_rise: float = 0.15  # unhinted success must rise at least this much above the first plays

    def __post_init__(self) -> None:
        if self.window < 1 or self.min_plays < 2 * self.window:
            raise TrainingConfigError(f"LearnabilityConfig: need window >= 1 and min_plays >= 2 * window, got "
                                      f"window={self.window}, min_plays={self.min_plays}")
        if not 0.0 < self.min_rise <= 1.0:
            raise TrainingConfigError(f"LearnabilityConfig.min_rise must be in (0, 1], got {self.min_rise}")


@dataclass
class LedgerEntry:
    """One environment's plays (unhinted success per iteration played), what it was paid, and its verdict."""

    plays: dict[int, float] = field(default_factory=dict)
    paid: list[float] = field(default_factory=list)
    retired_at: int | None = None
    clawed_back: float = 0.0

    @property
    def mean_paid(self) -> float:
        return math.fsum(self.paid) / len(self.paid) if self.paid else 0.0


class LearnabilityLedger:
    """Plays and payments per environment; :meth:`reward` applies the gate and the claw-back."""

    def __init__(self, config: LearnabilityConfig | None = None) -> None:
        self.config = config or LearnabilityConfig()
        self.entries: dict[str, LedgerEntry] = {}

    def record_play(self, env_id: str, iteration: int, unhinted_success: float) -> None:
        """The unhinted success rate of ``env_id``'s episodes in ``iteration`` (several plays in one iteration:
        pass their mean); retires it once the plays say it teaches nothing."""
        if not 0.0 <= unhinted_success <= 1.0:
            raise TrainingConfigError(f"record_play: unhinted success must be in [0, 1], got {unhinted_success}")
        entry = self.entries.setdefault(env_id, LedgerEntry())
        entry.plays[iteration] = unhinted_success
        if entry.retired_at is None and not self.learnable(env_id):
            entry.retired_at = iteration
            entry.clawed_back = math.fsum(entry.paid)

    def learnable(self, env_id: str) -> bool:
        """False once ``min_plays`` plays show no rise of ``min_rise`` over the first ``window`` plays."""
        entry = self.entries.get(env_id)
        if entry is None or len(entry.plays) < self.config.min_plays:
            return True
        rates = [entry.plays[i] for i in sorted(entry.plays)]
        w = self.config.window
        start = math.fsum(rates[:w]) / w
        best = max(math.fsum(rates[i:i + w]) / w for i in range(w, len(rates) - w + 1))
        return best >= start + self.config.min_rise

    def reward(self, env_id: str, reward: float) -> tuple[float, bool]:
        """The designer's reward for one proposal of ``env_id`` that its estimate scored ``reward``, and whether the
        gate applied: a retired environment pays minus the mean of what it was paid before (the claw-back)."""
        entry = self.entries.setdefault(env_id, LedgerEntry())
        if entry.retired_at is not None:
            return -max(entry.mean_paid, 0.0), True  # only what was paid comes back; a penalty is not refunded
        entry.paid.append(reward)
        return reward, False

    def retired(self) -> dict[str, LedgerEntry]:
        return {env_id: e for env_id, e in self.entries.items() if e.retired_at is not None}
