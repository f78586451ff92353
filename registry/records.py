"""Environment records: what the store keeps for every environment ever written."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from spade_registry.ids import ENV_NAMESPACE


class Status(enum.StrEnum):
    """Lifecycle of a record. Only ``accepted`` records are registered with Gymnasium."""

    ACCEPTED = "accepted"
    QUARANTINED = "quarantined"
    FAILED = "failed"
    DUPLICATE = "duplicate"
    TRIVIAL = "trivial"
    IMPOSSIBLE = "impossible"
    RETIRED = "retired"

    @classmethod
    def parse(cls, value: str) -> Status:
        try:
            return cls(value)
        except ValueError:
            allowed = ", ".join(s.value for s in cls)
            raise ValueError(f"unknown status {value!r}; expected one of: {allowed}") from None


class Trust(enum.StrEnum):
    """Where the code came from, which decides where it runs."""

    BUNDLED = "bundled"  # shipped in an installed plugin; imported and run in-process
    DESIGNER = "designer"  # written by a model; runs only in the sandbox


@dataclass(frozen=True)
class Record:
    """One environment: immutable code and manifest, plus mutable status, stats and report."""

    rid: int
    env_id: str | None
    name: str
    version: int | None
    content_hash: str
    domain: str
    status: Status
    trust: Trust
    max_turns: int
    players: int
    tags: tuple[str, ...]
    manifest: dict[str, Any]
    code: str
    module: str | None
    failed_stage: str | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    namespace: str = ENV_NAMESPACE
    """``spade`` for seeds and designer environments, ``spade-pack`` for imported ones (see :mod:`spade_registry.ids`)."""

    @property
    def status_label(self) -> str:
        """``failed:<stage>`` for failures with a known stage, else the status value."""
        if self.status is Status.FAILED and self.failed_stage:
            return f"failed:{self.failed_stage}"
        return self.status.value
