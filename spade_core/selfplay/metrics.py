"""The schema of ``metrics.jsonl``: one :class:`IterationMetrics` per finished iteration, as typed dataclasses.

The loop fills these, :mod:`spade_core.selfplay.records` writes them (one JSON line each, and TensorBoard scalars
from :meth:`IterationMetrics.scalars`), and the report reads them back with :func:`read_metrics`. Nothing else spells
a metrics key: a renamed field fails where it is read, not silently in a plot.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spade_core.selfplay.pool_health import Retirement
from spade_core.training.regret import RegretEstimate
from spade_core.typed_config import ConfigError, from_dict, to_dict

METRICS_FILE = "metrics.jsonl"


@dataclass
class CandidateRecord:
    """One designer candidate of an iteration, as its last attempt left it."""

    index: int
    domain: str
    name: str | None  # the ENV_SPEC name, when the code got that far
    verdict: str  # "accepted" or "rejected"
    status: str  # the record status the validator gave: accepted, failed, trivial, impossible, duplicate, ...
    stage: str | None  # the first failing validation stage (None when accepted)
    message: str  # the validator's message for that stage (what the designer read before a repair)
    attempts: int  # 1 + repairs
    env_id: str | None = None  # the registry id, when accepted
    code_file: str | None = None  # the last attempt's code (or raw completion), relative to the run directory


@dataclass
class DesignerMetrics:
    candidates: int = 0
    accepted: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)  # "accepted" or the failing status -> candidates
    attempts: int = 0
    tokens: int = 0
    accepted_ids: list[str] = field(default_factory=list)
    model: str = "policy"  # who designs: the trained policy, or a frozen designer.model spec
    frozen: bool = False
    designs: list[CandidateRecord] = field(default_factory=list)
    not_started: int = 0  # candidates the phase's deadline kept from starting


@dataclass
class RegretMetrics:
    values: list[float] = field(default_factory=list)
    mean: float = 0.0
    per_env: dict[str, RegretEstimate] = field(default_factory=dict)  # each: the three arms' rates and the gate applied


@dataclass
class EpisodeRecord:
    """One played episode shown in the report; its text is in ``transcript_file`` (relative to the run dir)."""

    episode_id: str
    hinted: bool
    seed: int | None
    success: bool
    reward: float
    finish: str
    turn_rewards: list[float] = field(default_factory=list)
    transcript_file: str | None = None


@dataclass
class EnvExample:
    """The best or worst environment of an iteration by regret, with one hinted and one unhinted episode."""

    rank: str  # "best" or "worst"
    env_id: str
    regret: float
    hinted: EpisodeRecord | None = None
    unhinted: EpisodeRecord | None = None


@dataclass
class AgentMetrics:
    envs: list[str] = field(default_factory=list)
    episodes: int = 0
    success_hinted: float = 0.0
    success_unhinted: float = 0.0
    success_hint_only: float | None = None  # the hint without the task; None: the objective plays no hint-only arm
    hint_only_episodes: int = 0  # measured, not trained on (their cost: K more episodes per environment)
    mean_reward: float = 0.0
    env_failures: int = 0
    # censored by the phase's deadline: episodes ended as time_limit (not trained on, their seeds left out of the
    # regret estimate and of the success rates) and episodes that never started
    time_limited: int = 0
    not_started: int = 0
    censored_pairs: int = 0  # seeds left out of the regret estimates because an arm was time-limited or not played
    examples: list[EnvExample] = field(default_factory=list)


@dataclass
class PoolMetrics:
    size: int = 0
    diversity: float = 0.0  # distinct names / size
    retired: list[Retirement] = field(default_factory=list)  # environments the pool's health check retired


@dataclass
class ThroughputMetrics:
    tokens: int = 0
    tokens_per_s: float = 0.0


@dataclass
class TimeSplit:
    """Seconds of the iteration spent in each part; ``other`` is everything but generation, validation and training."""

    generate: float = 0.0
    validate: float = 0.0
    train: float = 0.0
    other: float = 0.0
    total: float = 0.0

    PARTS = ("generate", "validate", "train", "other")


@dataclass
class BudgetMetrics:
    """How the time budget bounded the iteration (spade_core.selfplay.budget): its share and each bounded phase's
    allowance when the phase started, in seconds."""

    share_s: float = 0.0
    designer_s: float = 0.0
    agent_s: float = 0.0


@dataclass
class RoleUpdate:
    """One role's policy update of an iteration."""

    loss: float | None = None
    trajectories: int = 0
    mean_advantage: float = 0.0
    metrics: dict[str, float] = field(default_factory=dict)  # the trainer backend's numeric update metrics


@dataclass
class TrainMetrics:
    agent: RoleUpdate | None = None  # None: no agent update this iteration
    designer: RoleUpdate | None = None
    designer_update: str | None = None  # why there was no designer update, when it was skipped by design


@dataclass
class IterationMetrics:
    iteration: int
    designer: DesignerMetrics = field(default_factory=DesignerMetrics)
    regret: RegretMetrics = field(default_factory=RegretMetrics)
    agent: AgentMetrics = field(default_factory=AgentMetrics)
    pool: PoolMetrics = field(default_factory=PoolMetrics)
    throughput: ThroughputMetrics = field(default_factory=ThroughputMetrics)
    time: TimeSplit = field(default_factory=TimeSplit)
    train: TrainMetrics = field(default_factory=TrainMetrics)
    budget: BudgetMetrics = field(default_factory=BudgetMetrics)
    # a stop request (SIGTERM, Ctrl-C) reached the iteration: it stopped at a turn boundary, skipped its update if it
    # had not begun, and was checkpointed; --resume goes on with the next iteration
    partial: bool = False
    stopped_by: str | None = None  # the signal's name, e.g. "SIGTERM"
    errors: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0  # since the run (or its resumption) started
    setup_seconds: float = 0.0  # building the run's objects before its first iteration
    ray: dict[str, Any] | None = None  # on Ray: nodes, env actors, where environments ran (spade_core.scale)
    summary: list[str] = field(default_factory=list)  # one line per role: what happened and why (selfplay.verdicts)

    def to_json(self) -> str:
        return json.dumps(to_dict(self))

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> IterationMetrics:
        return from_dict(cls, data, where="metrics")

    def scalars(self) -> dict[str, float]:
        """The TensorBoard scalars of this iteration, by tag."""
        out = {
            "designer/accepted": float(self.designer.accepted), "designer/candidates": float(self.designer.candidates),
            "regret/mean": self.regret.mean, "agent/success_hinted": self.agent.success_hinted,
            "agent/success_unhinted": self.agent.success_unhinted, "pool/size": float(self.pool.size),
            **({} if self.agent.success_hint_only is None else {"agent/success_hint_only": self.agent.success_hint_only}),
            "throughput/tokens_per_s": self.throughput.tokens_per_s,
        }
        for part in (*TimeSplit.PARTS, "total"):
            out[f"time/{part}"] = float(getattr(self.time, part))
        for role, update in (("agent", self.train.agent), ("designer", self.train.designer)):
            if update is not None and update.loss is not None:
                out[f"train/{role}_loss"] = float(update.loss)
        return out


def read_metrics(run_dir: str | Path) -> list[IterationMetrics]:
    """Every complete record of ``metrics.jsonl`` (a line cut short by a crash, or of another schema, is skipped)."""
    path = Path(run_dir) / METRICS_FILE
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(IterationMetrics.from_mapping(json.loads(line)))
        except (json.JSONDecodeError, ConfigError, TypeError):
            continue
    return records
