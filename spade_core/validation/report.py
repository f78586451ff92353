"""Structured validation results: per stage what was observed, likely causes and how to fix.

Written for two readers: the designer model (in its repair prompt, :meth:`ValidationReport.repair_message`) and a
human in the terminal. A stage that could not run is ``skipped`` with why: it never counts as passed, and an
accepted report says how many stages it skipped. A rejected report holds every failing stage, not only the first; a
stage that needs an earlier stage that failed is ``not_run``, naming that stage.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any

from spade_core.errors import (
    ContractError,
    EnvCodeError,
    SandboxError,
    SandboxMemoryError,
    SandboxPolicyError,
    SandboxTimeout,
)
from spade_core.memory.fingerprint import Fingerprint
from spade_registry.records import Status


class Verdict(enum.StrEnum):
    """One stage's verdict."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    NOT_RUN = "not_run"
    """It needs an earlier stage that failed (or did not run): ``observed`` names that stage."""


class Outcome(enum.StrEnum):
    """The whole report's verdict."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"


@dataclass
class StageResult:
    """One stage's verdict: ``passed``, ``failed`` (with the record ``status`` that gives), ``skipped`` (with
    why, in ``observed``) or ``not_run`` (the earlier stage it needs failed, in ``observed``)."""

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

    @property
    def not_run(self) -> bool:
        return self.verdict == Verdict.NOT_RUN

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
        """The first failing stage (the one whose status the report takes)."""
        return next((s.stage for s in self.stages if s.failed), None)

    @property
    def grounding_score(self) -> float | None:
        """The grounding stage's score in [0, 1] (None when it did not measure one): how much the task's answers
        take from its document (``spade_core.validation.grounding``)."""
        stage = next((s for s in self.stages if s.stage == "grounding"), None)
        score = stage.details.get("score") if stage is not None else None
        return float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None

    @property
    def failures(self) -> list[StageResult]:
        """Every failing stage, in pipeline order."""
        return [s for s in self.stages if s.failed]

    @property
    def not_run(self) -> list[StageResult]:
        """Stages that could not run because a stage they need failed (each names it)."""
        return [s for s in self.stages if s.not_run]

    @property
    def skipped(self) -> list[StageResult]:
        """Stages that could not run (each says why)."""
        return [s for s in self.stages if s.skipped]

    @property
    def message(self) -> str:
        failures = self.failures
        if failures:
            others = failures[1:]
            also = f"\nAlso failing: {', '.join(s.stage for s in others)}" if others else ""
            return failures[0].message() + also
        if not self.accepted:  # rejected without a failed stage (e.g. a report built by hand)
            return f"{self.status}"
        skipped = self.skipped
        if not skipped:
            return "accepted: every stage passed"
        reasons = "; ".join(f"{s.stage}: {s.observed}" for s in skipped)
        return f"accepted with {len(skipped)} stage{'s' if len(skipped) != 1 else ''} skipped ({reasons})"

    def repair_message(self) -> str:
        """What the designer reads before its next attempt: every failing stage with its causes and fixes, then
        the stages that could not run because of them."""
        failures = self.failures
        if not failures:
            return "The environment passed validation."
        names = ", ".join(f"'{s.stage}'" for s in failures)
        plural = "s" if len(failures) != 1 else ""
        parts = [f"Your environment was rejected: {len(failures)} failing stage{plural} ({names}). Fix all of them."]
        parts += [s.message() for s in failures]
        waiting = self.not_run
        if waiting:
            parts.append("Not checked yet (they run once the stage they need passes): "
                         + "; ".join(f"{s.stage} ({s.observed})" for s in waiting))
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file, "verdict": self.verdict.value, "status": Status(self.status).value,
            "stage": self.failed_stage, "message": self.message,
            "failed_stages": [s.stage for s in self.failures], "grounding_score": self.grounding_score,
            "skipped": [{"stage": s.stage, "why": s.observed} for s in self.skipped],
            "not_run": [{"stage": s.stage, "why": s.observed} for s in self.not_run],
            "env_id": self.env_id, "name": self.name, "domain": self.domain,
            "content_hash": self.content_hash, "seeds": self.seeds, "seconds": round(self.seconds, 4),
            "stages": [asdict(s) for s in self.stages],
        }


def fail(stage: str, observed: str, causes: list[str], fix: list[str], **details: Any) -> StageResult:
    return StageResult(stage, Verdict.FAILED, observed, causes, fix, details=details)


def fail_rule(stage: str, observed: str, causes: list[str], fix: list[str], *, rule: str,
              **details: Any) -> StageResult:
    """A failed property check: the rule it states is the last fix the designer reads, and kept in ``details``."""
    return fail(stage, observed, causes, [*fix, f"keep the rule: {rule}"], rule=rule, **details)


def ok(stage: str, observed: str, **details: Any) -> StageResult:
    return StageResult(stage, Verdict.PASSED, observed, details=details)


def skipped(stage: str, why: str) -> StageResult:
    return StageResult(stage, Verdict.SKIPPED, why)


def describe_error(err: BaseException | None) -> tuple[str, list[str], list[str]]:
    """Observed text, likely causes and fixes for an error raised by environment code."""
    if isinstance(err, SandboxTimeout):
        return (f"a call did not finish in time: {err}", ["an infinite or very long loop", "a search that explodes"],
                ["bound every loop", "precompute less in reset/step"])
    if isinstance(err, SandboxMemoryError):
        return (f"the environment ran out of memory: {err}", ["a huge list/string", "unbounded recursion or growth"],
                ["keep state small (kilobytes)"])
    if isinstance(err, SandboxPolicyError):
        return (f"the sandbox policy refused an operation: {err}",
                ["a forbidden import, builtin or attribute (dunders, private attributes of other objects)"],
                ["use only the allowed modules and plain Python"])
    if isinstance(err, EnvCodeError):
        return (f"the environment code raised: {err}", ["a bug in reset/step/privileged_hint/reference_action"],
                ["fix the line named in the message"])
    if isinstance(err, ContractError):
        return (f"the environment broke the contract: {err}", ["a return value of the wrong type or shape"],
                ["reset returns (str, dict); step returns (str, float, bool, bool, dict) with JSON-only info"])
    if isinstance(err, SandboxError):
        return (f"the sandbox worker failed: {err}", ["the process crashed (e.g. deep recursion)"],
                ["avoid deep recursion and huge allocations"])
    return (f"{type(err).__name__}: {err}", ["unexpected failure"], ["see the message"])
