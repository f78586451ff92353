"""What the pool knows of the code it placed and of each environment instance, and what loading code produced."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from spade_core.errors import SandboxError, SpadeError
from spade_core.sandbox.budgets import TimeBudget
from spade_core.sandbox.channel import Worker


@dataclass
class PlacedCode:
    """One code record the pool runs, keyed by the hash of its module name and source."""

    key: str
    source: str
    module: str
    env_id: str | None
    group: str
    """The workers this code may use: its own (the code's key) or those of its family."""


@dataclass
class Instance:
    """One environment instance: its code, knobs and worker (None while unplaced), and the calls of its episode so
    far (replayed on a fresh worker when its own was lost)."""

    iid: int
    code: PlacedCode
    knobs: dict[str, Any]
    env_id: str | None
    worker: Worker | None = None
    broken: SandboxError | None = None
    log: list[tuple[str, Any, bool]] = field(default_factory=list)
    last_value: Any = None
    episode_time: float = 0.0
    closed: bool = False
    budget: TimeBudget | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)
    """Held for each public operation on the instance (its calls and their log stay in order)."""


@dataclass(frozen=True)
class LoadResult:
    """What loading designer code in the sandbox produced: the raw ``ENV_SPEC`` and class name, or the error."""

    spec: Any
    class_name: str | None
    error: SpadeError | None

    @property
    def ok(self) -> bool:
        return self.error is None
