"""``spade import``: bring a pack's environments into a store, trusting nothing the pack says.

Each environment goes through, in order: its files (read and type-checked), its content hash (recomputed from the
module with the registry's hashing and compared with the record's and the index's), the plugins it needs (a domain
or sandbox module no installed plugin provides refuses it, naming what to install; :mod:`.requirements`), the
duplicate check (the same code already in the store is skipped, naming the local id), and the local validation gate
(:func:`~spade_core.validation.pipeline.validate_source`, sandboxed; the pack's own report is kept as provenance
only). Accepted environments are stored in the ``spade-pack`` namespace (:data:`~spade_registry.ids.PACK_NAMESPACE`),
where nothing but imports lives: ``spade/Foo-v0`` in a pack becomes ``spade-pack/Foo-v0`` here (the next version of
the name when another pack took that one), so a pack never takes an id a plugin seed or the designer needs. They are
stored with designer trust, so they only ever run in the sandbox.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from spade_core.gym_bridge.seeds import sync_seed_environments
from spade_core.memory.behaviour import BehaviourIndex
from spade_core.packs.requirements import (
    MISSING_PLUGIN_STAGE,
    InstalledPlugins,
    installed_plugins,
    missing_plugin_problem,
)
from spade_core.packs.schema import BrokenEnvironment, Pack, PackEnvironment
from spade_core.validation.config import ValidationConfig
from spade_core.validation.pipeline import _manifest_of, validate_many
from spade_core.validation.report import ValidationReport
from spade_registry import gate
from spade_registry.errors import StoreError
from spade_registry.hashing import content_hash
from spade_registry.ids import PACK_NAMESPACE
from spade_registry.records import Status, Trust
from spade_registry.store import RegistryStore

ACCEPTED, REJECTED, DUPLICATE = "accepted", "rejected", "duplicate"
FORMAT_STAGE, HASH_STAGE, MANIFEST_STAGE = "pack_format", "content_hash", "pack_manifest"
STORE_STAGE = gate.STORE_STAGE
"""Import stages before and after the validation gate's own (whose names come from the gate's report)."""


@dataclass(frozen=True)
class ImportOutcome:
    """What happened to one environment of the pack."""

    pack_id: str
    verdict: str
    env_id: str | None = None
    stage: str | None = None
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ImportReport:
    pack: str
    origin: str
    outcomes: list[ImportOutcome] = field(default_factory=list)
    seconds: float = 0.0
    validate_seconds: float = 0.0
    validated: int = 0
    """Environments that went through the validation gate (the others were settled before it)."""

    def count(self, verdict: str) -> int:
        return sum(o.verdict == verdict for o in self.outcomes)

    @property
    def accepted_ids(self) -> list[str]:
        return [o.env_id for o in self.outcomes if o.verdict == ACCEPTED and o.env_id]

    @property
    def usable_ids(self) -> list[str]:
        """Local ids of the pack's environments that the store now holds as accepted (imported or duplicates)."""
        return [o.env_id for o in self.outcomes if o.verdict in (ACCEPTED, DUPLICATE) and o.env_id]

    def summary(self) -> dict[str, Any]:
        return {"pack": self.pack, "origin": self.origin, "accepted": self.count(ACCEPTED),
                "rejected": self.count(REJECTED), "duplicate": self.count(DUPLICATE),
                "validated": self.validated, "seconds": round(self.seconds, 3),
                "validate_seconds": round(self.validate_seconds, 3)}


def check_environment(env: PackEnvironment | BrokenEnvironment) -> ImportOutcome | None:
    """The rejection of an environment whose files, hash or manifest do not hold together, else None."""
    if isinstance(env, BrokenEnvironment):
        return ImportOutcome(env.pack_id, REJECTED, stage=FORMAT_STAGE, reason=env.reason)
    try:
        actual = content_hash(env.code)
    except (RecursionError, MemoryError) as exc:  # nesting deep enough to exhaust the parser: not an environment
        return ImportOutcome(env.pack_id, REJECTED, stage=HASH_STAGE, reason=(
            f"the module cannot be hashed ({type(exc).__name__}: it nests too deeply to parse)"))
    if actual != env.content_hash:
        return ImportOutcome(env.pack_id, REJECTED, stage=HASH_STAGE, reason=(
            f"the module's content hash is {actual}, but the pack claims {env.content_hash}: the module was changed "
            "after export or the hash is forged; re-export the pack from its source store"))
    declared = _manifest_of(env.code)
    if declared != env.manifest:
        return ImportOutcome(env.pack_id, REJECTED, stage=MANIFEST_STAGE, reason=(
            "the pack's manifest differs from the module's own ENV_SPEC; the manifest was edited after export"))
    return None


def _settle_before_gate(env: PackEnvironment | BrokenEnvironment, store: RegistryStore,
                        seen: dict[str, str], installed: InstalledPlugins) -> ImportOutcome | None:
    """The outcome of an environment settled without the validation gate (broken, forged, needing a plugin that is
    not installed, already stored, a duplicate within the pack, or data the store cannot keep), or None when it goes
    to the gate."""
    rejection = check_environment(env)
    if rejection is not None:
        return rejection
    assert isinstance(env, PackEnvironment)
    missing = missing_plugin_problem(env, installed)
    if missing is not None:
        return ImportOutcome(env.pack_id, REJECTED, stage=MISSING_PLUGIN_STAGE, reason=missing)
    local = store.find_by_hash(env.content_hash)
    if local is not None and local.trust is Trust.DESIGNER and local.status is Status.ACCEPTED:
        return ImportOutcome(env.pack_id, DUPLICATE, env_id=local.env_id, reason=(
            f"the same code is already stored as {local.env_id or f'#{local.rid}'}"))
    if local is not None:
        return ImportOutcome(env.pack_id, REJECTED, stage="exact_duplicate", reason=(
            f"the same code is already stored as {local.env_id or f'#{local.rid}'} with status "
            f"{local.status_label} ({local.trust.value}); it is not imported again"))
    if env.content_hash in seen:
        return ImportOutcome(env.pack_id, DUPLICATE, reason=f"the pack holds the same code as {seen[env.content_hash]}")
    problem = gate.json_problem(env.stats.to_dict(), "stats")
    if problem is not None:
        return ImportOutcome(env.pack_id, REJECTED, stage=STORE_STAGE, reason=problem)
    return None


def _provenance(pack: Pack, env: PackEnvironment) -> dict[str, Any]:
    return {"source": "pack", "pack": pack.header.name, "pack_id": env.pack_id, "pack_origin": pack.origin,
            "pack_status": env.status, "pack_created_at": pack.header.created_at, "lineage": env.lineage.to_dict(),
            "pack_report": env.report, "pack_provenance": env.provenance}


def import_pack(pack: Pack, store: RegistryStore, *, workers: int = 2, config: ValidationConfig | None = None,
                novelty: bool = False,
                progress: Callable[[str, int, int], None] | None = None) -> ImportReport:
    """Import ``pack`` into ``store`` (see the module docstring); every environment gets one outcome, in pack order.

    ``novelty``: also run the gate's novelty stage against the store's environments (off by default: a pack is a
    pool chosen by someone else, and near-duplicates of each other are its author's choice; the stage is then
    reported as skipped in each record's report)."""
    started = time.perf_counter()
    report = ImportReport(pack.header.name, pack.origin)
    outcomes: dict[int, ImportOutcome] = {}
    to_validate: list[tuple[int, PackEnvironment]] = []
    seen: dict[str, str] = {}
    sync_seed_environments(store)  # the names installed plugins declare are reserved before any pack name is taken
    installed = installed_plugins()
    for i, env in enumerate(pack.environments):
        try:
            settled = _settle_before_gate(env, store, seen, installed)
        except StoreError as exc:  # one environment the store cannot look up is rejected; the others go on
            settled = ImportOutcome(env.pack_id, REJECTED, stage=STORE_STAGE, reason=str(exc))
        if settled is not None:
            outcomes[i] = settled
            continue
        assert isinstance(env, PackEnvironment)
        seen[env.content_hash] = env.pack_id
        to_validate.append((i, env))
    if progress is not None:
        progress("validating", 0, len(to_validate))
    t0 = time.perf_counter()
    reports = _validate(to_validate, store, workers=workers, config=config, novelty=novelty, progress=progress)
    report.validate_seconds = time.perf_counter() - t0
    report.validated = len(reports)
    behaviour = BehaviourIndex(store)
    for (i, env), checked in zip(to_validate, reports, strict=True):
        try:
            outcomes[i] = _store(pack, env, checked, store, behaviour)
        except StoreError as exc:  # one environment the store refuses is rejected; the others go on
            outcomes[i] = ImportOutcome(env.pack_id, REJECTED, stage=STORE_STAGE, reason=str(exc))
    report.outcomes = [outcomes[i] for i in range(len(pack.environments))]
    report.seconds = time.perf_counter() - started
    return report


def _validate(items: Sequence[tuple[int, PackEnvironment]], store: RegistryStore, *, workers: int,
              config: ValidationConfig | None, novelty: bool,
              progress: Callable[[str, int, int], None] | None) -> list[ValidationReport]:
    out: list[ValidationReport] = []
    chunk = max(1, workers) * 8
    for start in range(0, len(items), chunk):
        part = items[start:start + chunk]
        out += validate_many([(f"{env.pack_id} (pack)", env.code) for _, env in part], workers=workers, store=store,
                             config=config or ValidationConfig(),
                             memory=BehaviourIndex(store) if novelty else None)
        if progress is not None:
            progress("validating", len(out), len(items))
    return out


def _store(pack: Pack, env: PackEnvironment, checked: ValidationReport, store: RegistryStore,
           behaviour: BehaviourIndex) -> ImportOutcome:
    if not checked.accepted:
        return ImportOutcome(env.pack_id, REJECTED, stage=checked.failed_stage, reason=checked.message)
    record, created = store.add(code=env.code, manifest=env.manifest, status=Status.ACCEPTED, trust=Trust.DESIGNER,
                                provenance=_provenance(pack, env), report=checked.to_dict(), version=env.version,
                                namespace=PACK_NAMESPACE)
    if not created:
        return ImportOutcome(env.pack_id, DUPLICATE, env_id=record.env_id,
                             reason=f"the same code was stored meanwhile as {record.env_id or f'#{record.rid}'}")
    store.update_stats(record.rid, {"pack": env.stats.to_dict()})
    if checked.fingerprint is not None:
        behaviour.put(record.rid, checked.fingerprint)
    note = "" if record.version == env.version else f"(version {env.version} of {env.name} is taken here)"
    return ImportOutcome(env.pack_id, ACCEPTED, env_id=record.env_id, reason=note)
