"""Keep the seed environments of installed plugins in the registry store.

Seeds are installed code: the store keeps their source (for the environment memory) and module path (so they are
imported, never ``exec``'d from the database). The seeds SPADE itself ships (plugins of the ``spade-rl``
distribution) are stored as accepted: SPADE's own test suite runs each through the gate before a release
(``test_bundled_seed_environments_pass``), and gating all of them again at a user's first sync would cost minutes.
A third-party plugin's seeds have no such check behind them, so each goes through the gate (:class:`SeedGate`,
:mod:`spade_core.gym_bridge.seed_gate`) before it is stored as accepted; a refused one is stored with its report and
never registered. Gating runs only where a caller passes a gate (``spade list``, ``spade plugins``, every ``spade``
command that opens the store, the start of a self-play run); ``import spade_core`` never validates: it stores a
third-party seed only on a verdict already kept for its code, and leaves it pending otherwise.

A fingerprint of every seed's source (and of the gate that judged them) is kept in the store, so the common case —
nothing changed — costs one read.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Protocol

from spade_core.contract.inner import load_trusted_module
from spade_core.plugins.contributions import SeedEnvironment
from spade_core.plugins.hookspecs import DISTRIBUTION
from spade_core.plugins.manager import PluginRegistry, get_plugins
from spade_registry.errors import StoreError
from spade_registry.hashing import content_hash
from spade_registry.manifest import EnvManifest
from spade_registry.records import Record, Status, Trust
from spade_registry.store import RegistryStore

FINGERPRINT_KEY = "bundled_seed_fingerprint"
GATE_KEY = "gate"
"""The key of a gated seed's report that holds the :attr:`SeedGate.key` of the gate that judged it."""
REFUSALS = frozenset({Status.FAILED, Status.TRIVIAL, Status.IMPOSSIBLE, Status.DUPLICATE})
"""The record statuses a gate's rejection gives (``ValidationStageSpec.rejects_as``)."""


@dataclass(frozen=True)
class PluginSeed:
    """One seed a loaded plugin contributes, with its source and the distribution the plugin comes from."""

    plugin: str
    distribution: str
    seed: SeedEnvironment
    source: str

    @property
    def module(self) -> str:
        return self.seed.module

    @property
    def third_party(self) -> bool:
        """True unless SPADE itself ships it (those are gated by SPADE's test suite, see the module docstring)."""
        return self.distribution != DISTRIBUTION


@dataclass(frozen=True)
class SeedVerdict:
    """What the gate said of one seed's code: the record status, the failing stage and message, the whole report."""

    status: Status
    stage: str | None
    message: str
    report: dict[str, Any]

    @classmethod
    def from_report(cls, report: dict[str, Any]) -> SeedVerdict:
        """The verdict a validation report (``ValidationReport.to_dict()``) gives; ValueError if it is not one."""
        stage, message = report.get("stage"), report.get("message", "")
        if not isinstance(stage, str | None) or not isinstance(message, str):
            raise ValueError(f"a validation report's stage and message are text, got {stage!r} and {message!r}")
        return cls(Status(report.get("status")), stage, message, report)


class SeedGate(Protocol):
    """Validates a third-party seed (in the store it will be kept in) and says what the gate concluded."""

    @property
    def key(self) -> str:
        """Names the gate (SPADE's version and the stages in effect): a verdict of another gate is judged again."""
        ...

    def __call__(self, store: RegistryStore, seed: PluginSeed) -> SeedVerdict: ...


@dataclass(frozen=True)
class RefusedSeed:
    """A third-party seed the gate refused: stored with its report, never registered."""

    plugin: str
    module: str
    stage: str | None
    message: str

    def __str__(self) -> str:
        return (f"plugin {self.plugin!r}: seed {self.module} was refused by the validation gate at stage "
                f"{self.stage or '?'}: {self.message} (run `spade validate` on its file for the whole report)")


@dataclass(frozen=True)
class SeedNameClash:
    """A seed named like one another plugin already ships: refused (never stored or registered), the first kept."""

    name: str
    plugin: str
    module: str
    kept_plugin: str
    kept_module: str

    def __str__(self) -> str:
        return (f"plugin {self.plugin!r}: seed {self.module} is not registered: its name {self.name!r} is the name "
                f"of the seed {self.kept_module} that plugin {self.kept_plugin!r} ships, which stays registered; "
                f"rename one of them (ENV_SPEC['name']) or uninstall one plugin")


@dataclass
class SeedSyncResult:
    added: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    """Third-party seed modules with no verdict yet (no gate was given): neither stored nor registered."""
    refused: list[RefusedSeed] = field(default_factory=list)
    clashes: list[SeedNameClash] = field(default_factory=list)
    """Seeds refused because another plugin's seed already has their name (see :func:`_one_seed_per_name`)."""
    skipped: bool = False

    @property
    def problems(self) -> list[str]:
        """One line for each seed that is not registered and why (what ``spade`` commands warn about)."""
        return [*self.errors, *map(str, self.refused), *map(str, self.clashes)]


def plugin_seeds(plugins: PluginRegistry) -> tuple[list[PluginSeed], list[str]]:
    """Every seed the loaded plugins contribute, with its source; and a problem line for each that cannot be read."""
    seeds, errors = [], []
    for plugin_name, result in plugins.collect("spade_seed_environments"):
        for seed in result:
            try:
                seeds.append(PluginSeed(plugin_name, plugins.distribution_of(plugin_name), seed, seed.source()))
            except Exception as exc:  # one missing seed must not stop the others
                errors.append(f"plugin {plugin_name!r}: seed {getattr(seed, 'module', seed)!r}: {exc}")
    return seeds, errors


def installed_seed_of(source: str, plugins: PluginRegistry | None = None) -> str | None:
    """The module of the installed seed whose code ``source`` is exactly (same content hash), or None."""
    digest = content_hash(source)
    seeds, _ = plugin_seeds(plugins or get_plugins())
    return next((s.module for s in seeds if content_hash(s.source) == digest), None)


def _fingerprint(seeds: list[PluginSeed]) -> str:
    digest = hashlib.sha256()
    for s in sorted(seeds, key=lambda s: s.module):
        digest.update(f"{s.plugin}\0{s.module}\0{s.source}\0".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _done_mark(fingerprint: str, seeds: list[PluginSeed], gate: SeedGate | None) -> str:
    """What the store keeps once a sync of these seeds finished: with a gate and third-party seeds, which gate."""
    return f"{fingerprint}:{gate.key}" if gate is not None and any(s.third_party for s in seeds) else fingerprint


def sync_seed_environments(store: RegistryStore, plugins: PluginRegistry | None = None, *,
                           gate: SeedGate | None = None) -> SeedSyncResult:
    """Add new or changed seeds (a third-party one as the gate judged it) and retire seed records no plugin ships now.

    Without ``gate`` nothing is validated: a third-party seed whose code has no kept verdict is left pending."""
    plugins = plugins or get_plugins()
    if not plugins.complete:  # a plugin is mid-import: its seeds would look removed; sync on the next call
        return SeedSyncResult(skipped=True)
    seeds, errors = plugin_seeds(plugins)
    fingerprint = _fingerprint(seeds)
    result = SeedSyncResult(errors=errors)
    kept = store.get_meta(FINGERPRINT_KEY) or ""
    if not errors and (kept == _done_mark(fingerprint, seeds, gate) or (gate is None and kept.startswith(fingerprint))):
        result.skipped = True
        return result

    loaded = []
    for seed in seeds:
        try:
            raw_manifest, _ = load_trusted_module(seed.module)
            loaded.append((seed, EnvManifest.from_dict(raw_manifest, source=f"{seed.module}.ENV_SPEC")))
        except Exception as exc:  # report and continue with the other seeds
            result.errors.append(f"plugin {seed.plugin!r}: seed {seed.module}: {exc}")
    loaded = _one_seed_per_name(store, loaded, result)
    try:  # names reserved by what the plugins declare, before any designer record can take one
        store.declare_bundled_names(manifest.name for _, manifest in loaded)
    except StoreError as exc:
        result.errors.append(f"the bundled names could not be reserved: {exc}")
    current_hashes = set()
    for seed, manifest in loaded:
        try:
            record = _sync_one(store, seed, manifest, gate, result)
        except StoreError as exc:  # one seed the store refuses must not stop the others
            result.errors.append(f"plugin {seed.plugin!r}: seed {seed.module}: {exc}")
            continue
        if record is not None:
            current_hashes.add(record.content_hash)

    for record in store.query(trust=Trust.BUNDLED, status=Status.ACCEPTED):
        if record.content_hash not in current_hashes:
            store.set_status(record.rid, Status.RETIRED)
            result.retired.append(record.env_id or f"#{record.rid}")
    if not result.errors and not result.clashes:  # a clash is reported again at every sync until it is resolved
        mark = _done_mark(fingerprint, seeds, gate)
        store.set_meta(FINGERPRINT_KEY, f"{mark}:pending" if result.pending else mark)
    return result


def _one_seed_per_name(store: RegistryStore, loaded: list[tuple[PluginSeed, EnvManifest]],
                       result: SeedSyncResult) -> list[tuple[PluginSeed, EnvManifest]]:
    """The seeds to store, one per name: a name already held by an accepted seed record stays with that record's
    plugin, else (plugins installed together) with the plugin whose name sorts first, whatever order they load in;
    every other seed of the name (other code) is refused, recorded in ``result.clashes``. Same code under the same
    name is one seed, whoever ships it."""
    owners: dict[str, tuple[str, str, str]] = {}  # name -> (plugin, module, content hash)
    for record in store.query(trust=Trust.BUNDLED, status=Status.ACCEPTED):
        plugin = record.provenance.get("plugin")
        if isinstance(plugin, str) and record.module is not None:
            owners.setdefault(record.name, (plugin, record.module, record.content_hash))
    shipped = {(seed.plugin, seed.module, manifest.name) for seed, manifest in loaded}
    owners = {name: owner for name, owner in owners.items()  # a seed no longer shipped under its name holds none
              if (*owner[:2], name) in shipped}
    digests = [content_hash(seed.source) for seed, _ in loaded]
    for (seed, manifest), digest in sorted(zip(loaded, digests, strict=True), key=lambda s: (s[0][0].plugin,
                                                                                            s[0][0].module)):
        owners.setdefault(manifest.name, (seed.plugin, seed.module, digest))
    kept = []
    for (seed, manifest), digest in zip(loaded, digests, strict=True):
        owner = owners[manifest.name]
        if owner[2] == digest or owner[:2] == (seed.plugin, seed.module):  # the same seed, or its new code
            kept.append((seed, manifest))
        else:
            result.clashes.append(SeedNameClash(manifest.name, seed.plugin, seed.module, owner[0], owner[1]))
    return kept


def _sync_one(store: RegistryStore, seed: PluginSeed, manifest: EnvManifest, gate: SeedGate | None,
              result: SeedSyncResult) -> Record | None:
    """Store one seed as its verdict says; the record if it is accepted, else None (refused or pending)."""
    verdict = _verdict(store, seed, gate) if seed.third_party else None
    if seed.third_party and verdict is None:
        result.pending.append(seed.module)
        return None
    record = _store_seed(store, seed, manifest, verdict, result)
    if record.status is Status.ACCEPTED:
        return record
    assert verdict is not None
    result.refused.append(RefusedSeed(seed.plugin, seed.module, verdict.stage, verdict.message))
    return None


def _verdict(store: RegistryStore, seed: PluginSeed, gate: SeedGate | None) -> SeedVerdict | None:
    """The verdict kept with the seed's stored record (any, without a gate; the same gate's, with one), else the
    gate's (None without a gate: pending)."""
    record = store.find_by_hash(content_hash(seed.source))
    if record is not None and record.trust is Trust.BUNDLED and record.report is not None:
        if gate is None or record.report.get(GATE_KEY) == gate.key:
            try:
                return SeedVerdict.from_report(record.report)
            except ValueError:
                pass  # not a gate's report: judge it again
    if record is not None and record.trust is Trust.BUNDLED and gate is None and record.status is Status.ACCEPTED:
        return SeedVerdict(record.status, None, "", {})  # stored before seeds were gated: judged at the next gating
    return None if gate is None else gate(store, seed)


def _store_seed(store: RegistryStore, seed: PluginSeed, manifest: EnvManifest, verdict: SeedVerdict | None,
                result: SeedSyncResult) -> Record:
    status = Status.ACCEPTED if verdict is None else verdict.status
    failed_stage = verdict.stage if verdict is not None and status is Status.FAILED else None
    report = None if verdict is None or not verdict.report else verdict.report
    provenance = {"source": "plugin" if seed.third_party else "bundled", "plugin": seed.plugin, "module": seed.module,
                  "distribution": seed.distribution}
    record, created = store.add(
        code=seed.source, manifest=manifest.to_dict(), status=status, trust=Trust.BUNDLED, module=seed.module,
        failed_stage=failed_stage, provenance=provenance, report=report,
    )
    if record.trust is not Trust.BUNDLED:
        raise StoreError(f"its code is already stored as the designer record {record.env_id or f'#{record.rid}'}, "
                         "so it cannot be stored as bundled code; remove that record (it claims a seed's code)")
    if record.status is not status or (report is not None and record.report != report):
        record = store.set_status(record.rid, status, failed_stage=failed_stage, report=report)
    if created and status is Status.ACCEPTED:
        result.added.append(record.env_id or f"#{record.rid}")
    return record


def refused_seeds(store: RegistryStore, plugins: PluginRegistry | None = None) -> list[RefusedSeed]:
    """The loaded third-party seeds whose stored record the gate refused (what ``spade plugins`` lists)."""
    refused = []
    for seed in plugin_seeds(plugins or get_plugins())[0]:
        record = store.find_by_hash(content_hash(seed.source)) if seed.third_party else None
        if record is None or record.trust is not Trust.BUNDLED or record.status not in REFUSALS:
            continue
        verdict = record.report or {}
        refused.append(RefusedSeed(seed.plugin, seed.module, verdict.get("stage") or record.failed_stage,
                                   str(verdict.get("message", ""))))
    return refused
