"""Structured validation results: per stage what was observed, likely causes and how to fix.

Written for two readers: the designer model (in its repair prompt, :meth:`ValidationReport.repair_message`) and a
human in the terminal.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

STAGES = (
    "structure", "exact_duplicate", "policy", "instantiate", "contract", "determinism", "start_state", "baselines",
    "reference", "verifier", "reward_range", "hint", "grounding", "novelty", "calibration",
)
"""The pipeline's stages in the order they run (cheapest first)."""

OUTCOME_STATUS = {"exact_duplicate": "duplicate", "novelty": "duplicate"}
"""Stages whose failure gives a status other than ``failed``; calibration sets trivial/impossible itself."""


@dataclass
class StageResult:
    """One stage's verdict: ``passed``, ``failed`` or ``skipped`` (with why)."""

    stage: str
    verdict: str
    observed: str = ""
    causes: list[str] = field(default_factory=list)
    fix: list[str] = field(default_factory=list)
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.verdict == "failed"

    def message(self) -> str:
        parts = [f"[{self.stage}] {self.observed}"]
        if self.causes:
            parts.append("Possible causes: " + "; ".join(self.causes))
        if self.fix:
            parts.append("To fix: " + "; ".join(self.fix))
        return "\n".join(parts)


@dataclass
class ValidationReport:
    """The whole pipeline's outcome for one candidate."""

    file: str
    content_hash: str
    stages: list[StageResult] = field(default_factory=list)
    status: str = "accepted"
    env_id: str | None = None
    name: str | None = None
    domain: str | None = None
    seeds: list[int] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def accepted(self) -> bool:
        return self.status == "accepted"

    @property
    def verdict(self) -> str:
        return "accepted" if self.accepted else "rejected"

    @property
    def failed_stage(self) -> str | None:
        return next((s.stage for s in self.stages if s.failed), None)

    @property
    def message(self) -> str:
        failed = next((s for s in self.stages if s.failed), None)
        if failed is None:
            return "accepted: every stage passed"
        return failed.message()

    def repair_message(self) -> str:
        """What the designer reads before its next attempt."""
        failed = next((s for s in self.stages if s.failed), None)
        if failed is None:
            return "The environment passed validation."
        return f"Your environment was rejected at stage '{failed.stage}'.\n{failed.message()}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file, "verdict": self.verdict, "status": self.status, "stage": self.failed_stage,
            "message": self.message, "env_id": self.env_id, "name": self.name, "domain": self.domain,
            "content_hash": self.content_hash, "seeds": self.seeds, "seconds": round(self.seconds, 4),
            "stages": [asdict(s) for s in self.stages],
        }
