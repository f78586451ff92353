"""Structured validation results: per stage what was observed, likely causes and how to fix.

Written for two readers: the designer model (in its repair prompt, :meth:`ValidationReport.repair_message`) and a
human in the terminal. A stage that could not run is ``skipped`` with why: it never counts as passed, and an
accepted report says how many stages it skipped.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any

from spade_core.memory.fingerprint import Fingerprint
from spade_registry.records import Status


class Verdict(enum.StrEnum):
    """One stage's verdict."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


class Outcome(enum.StrEnum):
    """The whole report's verdict."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"


@dataclass
class StageResult:
    """One stage's verdict: ``passed``, ``failed`` (with the record ``status`` that gives) or ``skipped`` (with
    why, in ``observed``)."""

    stage: str
    verdict: Verdict
    observed: str = ""
    causes: list[str] = field(default_factory=list)
    fix: list[str] = field(default_factory=list)
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)
    status: Status | None = None

    @property
    def failed(self) -> bool:
        return self.verdict == Verdict.FAILED

    @property
    def skipped(self) -> bool:
        return self.verdict == Verdict.SKIPPED

    def message(self) -> str:
        parts = [f"[{self.stage}] {self.observed}"]
        if self.causes:
            parts.append("Possible causes: " + "; ".join(self.causes))
        if self.fix:
            parts.append("To fix: " + "; ".join(self.fix))
        return "\n".join(parts)


@dataclass
class ValidationReport:
    """The whole pipeline's outcome for one candidate. ``fingerprint`` (its behaviour, for the store's novelty
    index) is kept beside the report, not in :meth:`to_dict`."""

    file: str
    content_hash: str
    stages: list[StageResult] = field(default_factory=list)
    status: Status = Status.ACCEPTED
    env_id: str | None = None
    name: str | None = None
    domain: str | None = None
    seeds: list[int] = field(default_factory=list)
    seconds: float = 0.0
    fingerprint: Fingerprint | None = field(default=None, repr=False, compare=False)

    @property
    def accepted(self) -> bool:
        return self.status == Status.ACCEPTED

    @property
    def verdict(self) -> Outcome:
        return Outcome.ACCEPTED if self.accepted else Outcome.REJECTED

    @property
    def failed_stage(self) -> str | None:
        return next((s.stage for s in self.stages if s.failed), None)

    @property
    def skipped(self) -> list[StageResult]:
        """Stages that could not run (each says why)."""
        return [s for s in self.stages if s.skipped]

    @property
    def message(self) -> str:
        failed = next((s for s in self.stages if s.failed), None)
        if failed is not None:
            return failed.message()
        if not self.accepted:  # rejected without a failed stage (e.g. a report built by hand)
            return f"{self.status}"
        skipped = self.skipped
        if not skipped:
            return "accepted: every stage passed"
        reasons = "; ".join(f"{s.stage}: {s.observed}" for s in skipped)
        return f"accepted with {len(skipped)} stage{'s' if len(skipped) != 1 else ''} skipped ({reasons})"

    def repair_message(self) -> str:
        """What the designer reads before its next attempt."""
        failed = next((s for s in self.stages if s.failed), None)
        if failed is None:
            return "The environment passed validation."
        return f"Your environment was rejected at stage '{failed.stage}'.\n{failed.message()}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file, "verdict": self.verdict.value, "status": Status(self.status).value,
            "stage": self.failed_stage, "message": self.message,
            "skipped": [{"stage": s.stage, "why": s.observed} for s in self.skipped],
            "env_id": self.env_id, "name": self.name, "domain": self.domain,
            "content_hash": self.content_hash, "seeds": self.seeds, "seconds": round(self.seconds, 4),
            "stages": [asdict(s) for s in self.stages],
        }
