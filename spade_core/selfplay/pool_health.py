"""The pool heals itself: self-play's paired rollouts retire environments that turn out trivial, impossible,
hint-only or hint-copying for the agent.

Every iteration plays each chosen environment K times with the hint and K times without, on the same seeds (and,
under the defended objective, K times with the hint alone, no task). This module adds those outcomes to running
totals kept in the record's stats (``health``), and once an environment has ``min_episodes`` of each it is judged:

- **hint-only**: the hint alone (no observation) solved it in at least ``copy_min_successes`` episodes and more
  often than the task alone did: the hint carries the answer, in whatever encoding the agent reads;

- **trivial**: unhinted success at or above ``trivial_above`` (the hint cannot matter; regret is zero);
- **impossible**: hinted success at or below ``impossible_below`` (nothing to learn, even with the hint);
- **hint-copying**: at least ``copy_min_successes`` hinted successes, and in at least ``copy_fraction`` of them the
  winning action was the hint (or the hint's number) copied: the hint gives the answer away, which a
  regret-maximising designer is paid for.

Only designer-written environments are retired: bundled seeds are reviewed code, and a weak agent failing them (or
solving them every time) says something about the agent, not the environment.

A judged environment gets :attr:`Status.RETIRED` with the verdict, the reason and the numbers kept in its stats
(``retired``), so it leaves the replay pool and Gymnasium registration. ``keep_at_least`` accepted environments
always remain (a weak early agent fails everywhere; an empty pool would stop the run).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from spade_core import linear_re
from spade_core.rollout.trajectory import Trajectory
from spade_registry.errors import InvalidIdError, StoreError
from spade_registry.gate import INT64_MAX
from spade_registry.records import Status, Trust
from spade_registry.store import RegistryStore

_log = logging.getLogger(__name__)

HEALTH_KEY = "health"
RETIRED_KEY = "retired"


@dataclass
class PoolHealthConfig:
    """When self-play retires a pool environment (see :mod:`spade_core.selfplay.pool_health`)."""

    enabled: bool = True  # False: no environment is ever retired
    min_episodes: int = 6  # hinted and unhinted episodes each, summed over iterations, before a verdict
    trivial_above: float = 0.95  # unhinted success at or above this: trivial
    impossible_below: float = 0.0  # hinted success at or below this: impossible
    copy_min_successes: int = 3  # hinted successes needed before hint-copying is judged
    copy_fraction: float = 0.8  # this share of hinted wins copied the hint: hint-copying
    keep_at_least: int = 4  # never retire below this many accepted environments


@dataclass
class Health:
    """Running totals of one environment's paired rollouts."""

    hinted: int = 0
    hinted_successes: int = 0
    unhinted: int = 0
    unhinted_successes: int = 0
    copied_successes: int = 0
    hint_only: int = 0  # episodes of the hint-only arm (the hint without the task)
    hint_only_successes: int = 0

    @property
    def p_hint(self) -> float:
        return self.hinted_successes / self.hinted if self.hinted else 0.0

    @property
    def p_nohint(self) -> float:
        return self.unhinted_successes / self.unhinted if self.unhinted else 0.0

    @property
    def p_hint_only(self) -> float:
        return self.hint_only_successes / self.hint_only if self.hint_only else 0.0


@dataclass(frozen=True)
class Retirement:
    """One retired environment: the verdict, why, and the totals it was judged on."""

    env_id: str
    verdict: str  # hint_only | hint_copying | trivial | impossible
    reason: str
    health: Health
    iteration: int

    def to_dict(self) -> dict:
        return {"env_id": self.env_id, "verdict": self.verdict, "reason": self.reason, "iteration": self.iteration,
                **asdict(self.health)}


_TOKEN = linear_re.compile(r"[0-9a-z]+")
MAX_TEXT_CHARS = 4000
"""Only this much of an action or a hint is compared."""
_FORMAT_WORDS = frozenset({"boxed", "answer", "final"})


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text[:MAX_TEXT_CHARS].lower())


def copied_hint(action: str, hint: str | None) -> bool:
    """Whether ``action`` is the hint copied: its words and numbers (answer formatting such as ``\\boxed``
    aside) appear in the hint in the same order, next to each other (one-word and one-digit actions included)."""
    if not hint:
        return False
    said = [t for t in _tokens(action) if t not in _FORMAT_WORDS]
    shown = _tokens(hint)
    n = len(said)
    return n > 0 and any(shown[i:i + n] == said for i in range(len(shown) - n + 1))


def _copied(trajectory: Trajectory) -> bool:
    """A hinted success whose winning (last) action copied the hint shown on that turn."""
    if not (trajectory.hinted and trajectory.success and trajectory.turns):
        return False
    last = trajectory.turns[-1]
    return copied_hint(last.action, last.hint)


def judge(health: Health, config: PoolHealthConfig) -> tuple[str, str] | None:
    """``(verdict, reason)`` once the totals say the environment should leave the pool; None otherwise."""
    if health.hinted < config.min_episodes or health.unhinted < config.min_episodes:
        return None
    if health.hint_only >= config.min_episodes and health.hint_only_successes >= config.copy_min_successes and \
            health.p_hint_only > health.p_nohint:
        return "hint_only", (f"the hint alone, without the task, solved it in {health.hint_only_successes} of "
                             f"{health.hint_only} episodes; the task alone in {health.unhinted_successes} of "
                             f"{health.unhinted} (p_hint_only {health.p_hint_only:.2f} > p_nohint "
                             f"{health.p_nohint:.2f}): the hint carries the answer")
    if health.hinted_successes >= config.copy_min_successes and \
            health.copied_successes >= config.copy_fraction * health.hinted_successes:
        return "hint_copying", (f"{health.copied_successes} of {health.hinted_successes} hinted successes copied "
                                f"the hint as the action (p_hint {health.p_hint:.2f}, p_nohint {health.p_nohint:.2f})")
    if health.p_nohint >= config.trivial_above:
        return "trivial", (f"solved without the hint in {health.unhinted_successes} of {health.unhinted} episodes "
                           f"(p_nohint {health.p_nohint:.2f} >= {config.trivial_above:.2f})")
    if health.p_hint <= config.impossible_below:
        return "impossible", (f"solved with the hint in {health.hinted_successes} of {health.hinted} episodes "
                              f"(p_hint {health.p_hint:.2f} <= {config.impossible_below:.2f})")
    return None


class PoolHealth:
    """Adds each iteration's paired outcomes to the records' totals and retires what :func:`judge` condemns."""

    def __init__(self, store: RegistryStore, config: PoolHealthConfig | None = None) -> None:
        self.store = store
        self.config = config or PoolHealthConfig()

    def review(self, trajectories: Sequence[Trajectory], *, iteration: int) -> list[Retirement]:
        """Update every played environment's totals (seat 0 only, like the regret estimate); retire the condemned.
        Returns the retirements of this call."""
        by_env: dict[str, list[Trajectory]] = {}
        for t in trajectories:
            if t.seat == 0 and t.failure is None:
                by_env.setdefault(t.env_id, []).append(t)
        retired: list[Retirement] = []
        for env_id, mine in by_env.items():
            try:
                retirement = self._review_one(env_id, mine, iteration)
            except (StoreError, InvalidIdError) as exc:  # one record the store cannot read or write: the others go on
                _log.warning("pool health skipped %s: %s", env_id, exc)
                continue
            if retirement is not None:
                retired.append(retirement)
        return retired

    def _review_one(self, env_id: str, mine: list[Trajectory], iteration: int) -> Retirement | None:
        record = self.store.get(env_id)
        health = stored_health(record.stats.get(HEALTH_KEY))
        for t in mine:
            if t.hint_only:
                health.hint_only += 1
                health.hint_only_successes += int(t.success)
            elif t.hinted:
                health.hinted += 1
                health.hinted_successes += int(t.success)
                health.copied_successes += int(_copied(t))
            else:
                health.unhinted += 1
                health.unhinted_successes += int(t.success)
        self.store.update_stats(env_id, {HEALTH_KEY: asdict(health)})
        verdict = judge(health, self.config) if self.config.enabled else None
        if verdict is None or record.status is not Status.ACCEPTED or record.trust is not Trust.DESIGNER:
            return None  # bundled seeds are reviewed code: a weak agent failing them says nothing of the environment
        if self.store.count(status=Status.ACCEPTED) <= self.config.keep_at_least:
            return None
        retirement = Retirement(env_id, verdict[0], verdict[1], health, iteration)
        self.store.update_stats(env_id, {RETIRED_KEY: retirement.to_dict()})
        self.store.set_status(env_id, Status.RETIRED)
        return retirement


def stored_health(value: object) -> Health:
    """The running totals kept in a record's stats; a total that is not a count in the store's range (an older or
    hand-edited record) starts again from 0."""
    totals = value if isinstance(value, dict) else {}
    return Health(**{k: v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= INT64_MAX else 0
                     for k, v in totals.items() if k in Health.__dataclass_fields__})
