"""The validation gate for installed third-party plugin seeds (:class:`~spade_core.gym_bridge.seeds.SeedGate`).

A seed is validated as itself (``Candidate.installed_seed``: its declared name and its own stored record are not
duplicates of it), in the sandbox like any candidate, against the store it will be kept in (exact duplicates,
novelty). The verdict is kept twice: with the seed's record (its report, naming the gate), and on disk by the
SHA-256 of the gate's key and the seed's content hash, so a new store, or the next ``spade list``, judges an
unchanged seed without validating it again. Novelty is judged in the store where the seed was first gated.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from spade_core import __version__
from spade_core.cache_root import cache_dir, keep
from spade_core.gym_bridge.seeds import GATE_KEY, PluginSeed, SeedSyncResult, SeedVerdict, sync_seed_environments
from spade_core.memory.behaviour import BehaviourIndex
from spade_core.plugins.manager import PluginRegistry
from spade_core.validation.pipeline import validate_source
from spade_core.validation.stage_hook import stages_in_effect
from spade_registry.hashing import content_hash
from spade_registry.store import RegistryStore

CACHE_ENV = "SPADE_SEED_VERDICT_CACHE"
TRUST = "plugin"
"""The trust a gated seed's report names: installed third-party code, judged by the gate before it is registered."""


def verdict_cache_dir() -> Path:
    """``$SPADE_SEED_VERDICT_CACHE``, else ``<user cache folder>/spade/seed-verdicts``."""
    return cache_dir("seed-verdicts", CACHE_ENV)


def gate_key() -> str:
    """Names the gate: SPADE's version and every stage in effect (built-in and plugin-added, with its plugin)."""
    parts = [__version__, *(f"{s.origin}:{s.name}:{s.rejects_as.value}" for s in stages_in_effect())]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _path(key: str, source: str) -> Path:
    name = hashlib.sha256(f"{key}\0{content_hash(source)}".encode()).hexdigest()
    return verdict_cache_dir() / f"{name}.json"


def cached_verdict(key: str, source: str) -> SeedVerdict | None:
    """The verdict gate ``key`` gave ``source``, kept on disk; None if there is none (or the file is not one)."""
    try:
        report = json.loads(_path(key, source).read_text(encoding="utf-8"))
        verdict = SeedVerdict.from_report(report) if isinstance(report, dict) else None
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return verdict if verdict is not None and report.get(GATE_KEY) == key else None


def remember_verdict(key: str, source: str, verdict: SeedVerdict) -> None:
    """Keep a verdict on disk (atomically); a cache folder that cannot be written only costs time."""
    keep(_path(key, source), lambda handle: handle.write(json.dumps(verdict.report).encode("utf-8")))


@dataclass(frozen=True)
class PluginSeedGate:
    """The gate for third-party seeds; ``key`` names it (:func:`gate_key`)."""

    key: str = field(default_factory=gate_key)

    def __call__(self, store: RegistryStore, seed: PluginSeed) -> SeedVerdict:
        kept = cached_verdict(self.key, seed.source)
        if kept is not None:
            return kept
        memory = BehaviourIndex(store)
        memory.refresh()  # fingerprint the stored environments first, so novelty's budget times only the seed
        report = validate_source(seed.source, file=str(seed.seed.source_path()), store=store, memory=memory,
                                 installed_seed=seed.module)
        verdict = SeedVerdict.from_report({**report.to_dict(), GATE_KEY: self.key, "trust": TRUST})
        remember_verdict(self.key, seed.source, verdict)
        return verdict


def gate_plugin_seeds(store: RegistryStore, plugins: PluginRegistry | None = None) -> SeedSyncResult:
    """Sync every plugin's seeds into ``store``, third-party ones through the gate (unchanged ones cost nothing)."""
    return sync_seed_environments(store, plugins, gate=PluginSeedGate())
