"""Keep the bundled seed environments of installed plugins in the registry store.

Seeds are trusted, installed code: the store keeps their source (for the environment memory) and module path
(so they are imported, never ``exec``'d from the database). A fingerprint of every seed's source is kept in the
store, so the common case — nothing changed — costs one read.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from spade_core.contract.inner import load_trusted_module
from spade_core.plugins.contributions import SeedEnvironment
from spade_core.plugins.manager import PluginRegistry, get_plugins
from spade_registry.errors import StoreError
from spade_registry.manifest import EnvManifest
from spade_registry.records import Record, Status, Trust
from spade_registry.store import RegistryStore

FINGERPRINT_KEY = "bundled_seed_fingerprint"


@dataclass
class SeedSyncResult:
    added: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: bool = False


def _seed_sources(plugins: PluginRegistry) -> tuple[list[tuple[str, SeedEnvironment, str]], list[str]]:
    seeds, errors = [], []
    for plugin_name, result in plugins.collect("spade_seed_environments"):
        for seed in result:
            try:
                seeds.append((plugin_name, seed, seed.source()))
            except Exception as exc:  # one missing seed must not stop the others
                errors.append(f"plugin {plugin_name!r}: seed {getattr(seed, 'module', seed)!r}: {exc}")
    return seeds, errors


def sync_seed_environments(store: RegistryStore, plugins: PluginRegistry | None = None) -> SeedSyncResult:
    """Add new or changed bundled seeds as accepted records and retire bundled records no plugin ships now."""
    plugins = plugins or get_plugins()
    if not plugins.complete:  # a plugin is mid-import: its seeds would look removed; sync on the next call
        return SeedSyncResult(skipped=True)
    seeds, errors = _seed_sources(plugins)
    digest = hashlib.sha256()
    for plugin_name, seed, source in sorted(seeds, key=lambda s: s[1].module):
        digest.update(f"{plugin_name}\0{seed.module}\0{source}\0".encode("utf-8", "surrogatepass"))
    fingerprint = digest.hexdigest()
    result = SeedSyncResult(errors=errors)
    if store.get_meta(FINGERPRINT_KEY) == fingerprint and not errors:
        result.skipped = True
        return result

    loaded = []
    for plugin_name, seed, source in seeds:
        try:
            raw_manifest, _ = load_trusted_module(seed.module)
            loaded.append((plugin_name, seed, source, EnvManifest.from_dict(raw_manifest, source=f"{seed.module}.ENV_SPEC")))
        except Exception as exc:  # report and continue with the other seeds
            result.errors.append(f"plugin {plugin_name!r}: seed {seed.module}: {exc}")
    try:  # names reserved by what the plugins declare, before any designer record can take one
        store.declare_bundled_names(manifest.name for *_, manifest in loaded)
    except StoreError as exc:
        result.errors.append(f"the bundled names could not be reserved: {exc}")
    current_hashes = set()
    for plugin_name, seed, source, manifest in loaded:
        try:
            record = _store_seed(store, plugin_name, seed, source, manifest, result)
        except StoreError as exc:  # one seed the store refuses must not stop the others
            result.errors.append(f"plugin {plugin_name!r}: seed {seed.module}: {exc}")
            continue
        current_hashes.add(record.content_hash)

    for record in store.query(trust=Trust.BUNDLED, status=Status.ACCEPTED):
        if record.content_hash not in current_hashes:
            store.set_status(record.rid, Status.RETIRED)
            result.retired.append(record.env_id or f"#{record.rid}")
    if not result.errors:
        store.set_meta(FINGERPRINT_KEY, fingerprint)
    return result


def _store_seed(store: RegistryStore, plugin_name: str, seed: SeedEnvironment, source: str, manifest: EnvManifest,
                result: SeedSyncResult) -> Record:
    record, created = store.add(
        code=source, manifest=manifest.to_dict(), status=Status.ACCEPTED, trust=Trust.BUNDLED,
        module=seed.module, provenance={"source": "bundled", "plugin": plugin_name, "module": seed.module},
    )
    if record.trust is not Trust.BUNDLED:
        raise StoreError(f"its code is already stored as the designer record {record.env_id or f'#{record.rid}'}, "
                         "so it cannot be stored as bundled code; remove that record (it claims a seed's code)")
    if record.status is not Status.ACCEPTED:
        record = store.set_status(record.rid, Status.ACCEPTED)
    if created:
        result.added.append(record.env_id or f"#{record.rid}")
    return record
