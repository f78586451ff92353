"""The candidate the stages share: what the gate starts with, what stages make for later ones, and the seams
(the calibration probe, the novelty memory) it holds."""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from spade_core.contract.env import SpadeEnv
from spade_core.contract.inner import HandleFactory
from spade_core.memory.behaviour import BehaviourMatch, ScoreFn
from spade_core.memory.fingerprint import Fingerprint
from spade_core.validation.config import ValidationConfig
from spade_core.validation.episodes import (
    EnvFactory,
    Episode,
    Policy,
    play,
)
from spade_core.validation.report import StageResult
from spade_core.validation.stage_clock import StageClock
from spade_registry.manifest import EnvManifest
from spade_registry.records import Status


@runtime_checkable
class CalibrationProbe(Protocol):
    """Plays the candidate on ``seeds`` (hinted or not) and says which episodes succeeded."""

    def successes(self, make_env: Callable[[], SpadeEnv], seeds: Sequence[int], *, hinted: bool) -> list[bool]: ...


class HandlesFor(Protocol):
    """Makes the handle factory for the candidate's code or a variant of it the stages made; variants given the same
    ``family`` may share a sandbox worker (they are the candidate's own code with values the host changed)."""

    def __call__(self, source: str, env_id: str, *, family: str | None = None) -> HandleFactory: ...


class NoveltyMemory(Protocol):
    """Where stored environments' fingerprints come from (:class:`spade_core.memory.BehaviourIndex`)."""

    def refresh(self) -> int:
        """Bring the stored fingerprints up to date (fingerprinting records that have none)."""
        ...

    def nearest(self, query: Fingerprint, k: int = 3, *, score: ScoreFn) -> list[BehaviourMatch]: ...



@dataclass
class Candidate:
    """Everything the stages know about one candidate so far."""

    source: str
    file: str
    config: ValidationConfig
    handle_factory_for: HandlesFor
    allowed_modules: dict[str, list[str]] | None = None
    store: Any = None
    document: str | None = None
    probe: Policy | CalibrationProbe | None = None
    memory: NoveltyMemory | None = None
    content_hash: str = ""
    installed_seed: str | None = None
    """The module of the installed plugin seed whose exact code (same content hash) this candidate is: it is validated
    as that seed, so ``exact_duplicate`` and ``novelty`` do not compare it with its own name or record."""
    tree: ast.Module | None = None
    manifest: EnvManifest | None = None
    envs: EnvFactory | None = None
    reference_episodes: list[Episode] = field(default_factory=list)
    all_episodes: list[Episode] = field(default_factory=list)
    outcome_status: Status | None = None
    duplicate_of: str | None = None
    shared_env: Any = None
    fingerprint: Fingerprint | None = None
    replays: dict[tuple[int, int], Episode] = field(default_factory=dict)  # (played seed's reference, on seed)
    results: dict[str, StageResult] = field(default_factory=dict)  # every stage's result so far, by stage name
    clock: StageClock = field(default_factory=StageClock)  # the running stage's deadline (its loops check it)

    def new_env(self):
        assert self.envs is not None
        return self.envs()

    def env(self):
        """The shared instance (every use starts with ``reset``, which starts a fresh episode)."""
        if self.shared_env is None or self.shared_env.last_error is not None:
            self.shared_env = self.new_env()
        return self.shared_env

    def run(self, seed: int, policy: Policy, *, fresh: bool = False, **kwargs: Any) -> Episode:
        """Play one episode on the shared instance (``reset`` starts every episode afresh), or on a brand-new
        instance when ``fresh`` (the determinism check compares two fresh instances). None starts past the
        running stage's deadline (:class:`~spade_core.validation.stage_clock.StageBudgetSpent`)."""
        self.clock.check()
        if fresh:
            env = self.new_env()
            try:
                episode = play(env, seed, policy, **kwargs)
            finally:
                env.close()
        else:
            episode = play(self.env(), seed, policy, **kwargs)
            if episode.error is not None:  # a failed instance is not reused
                self.shared_env = None
        self.all_episodes.append(episode)
        return episode


CANDIDATE_INPUTS: frozenset[str] = frozenset({
    "source", "file", "config", "handle_factory_for", "allowed_modules", "store", "document", "probe", "memory",
    "content_hash", "installed_seed",
})
"""What every :class:`Candidate` starts with, before any stage runs: any stage may read these."""

CANDIDATE_SHARED: frozenset[str] = frozenset({
    "all_episodes", "shared_env", "replays", "results", "outcome_status", "duplicate_of", "clock",
})
"""Bookkeeping any stage may read and add to: every episode played so far, the reused instance, cross-seed replays,
the results so far, the status a failure gives, the duplicate it names and the running stage's deadline."""

CANDIDATE_PRODUCTS: frozenset[str] = frozenset(Candidate.__dataclass_fields__) - CANDIDATE_INPUTS - CANDIDATE_SHARED
"""What stages make for later ones (the parsed module and manifest, the instance factory, the reference's episodes,
the behavioural fingerprint): a stage reads one only when a stage it needs exports it (``Stage.reads``/``exports``)."""
