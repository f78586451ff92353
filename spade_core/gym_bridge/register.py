"""Register accepted store records with Gymnasium as ``spade/<Name>-v<N>`` (imported ones as
``spade-pack/<Name>-v<N>``).

``gymnasium.register`` scans the whole registry on every call (quadratic for 100,000 records), so specs are
built directly from the store's compact index and inserted after the same conflict check it makes. Specs use a
string entry point and JSON-safe kwargs, so ``EnvSpec.to_json()`` works and worker processes can rebuild them.
"""

from __future__ import annotations

import gc
import os
import warnings
from typing import Any

import gymnasium.error
from gymnasium.envs.registration import EnvSpec, registry

from spade_core.errors import StoreError
from spade_core.gym_bridge.make import ENTRY_POINT
from spade_core.gym_bridge.seeds import sync_seed_environments
from spade_core.gym_bridge.stores import open_store
from spade_registry.ids import ENV_NAMESPACE
from spade_registry.paths import default_store_path, resolve_store_path


def register_store(store: str | os.PathLike[str] | None = None, *, sync_seeds: bool = True) -> list[str]:
    """Register every accepted record of ``store`` (default store if ``None``) not yet registered; return new ids.

    Call it again at any time to pick up records accepted since: it is the one call that makes newly accepted
    environments available to ``gymnasium.make`` in a running process. A designer record named like a bundled
    environment (:meth:`~spade_registry.store.RegistryStore.shadowing_ids`) is never registered.
    """
    opened = open_store(store)
    if sync_seeds:
        for clash in sync_seed_environments(opened).clashes:
            warnings.warn(str(clash), RuntimeWarning, stacklevel=2)
    explicit = store is not None and resolve_store_path(store).resolve() != default_store_path().resolve()
    store_kwarg = {"store": str(opened.path)} if explicit else {}
    unversioned = {
        spec.name for spec in registry.values() if spec.namespace == ENV_NAMESPACE and spec.version is None
    }
    added = []
    shadowing = opened.shadowing_ids()
    for env_id in sorted(shadowing - set(registry)):
        warnings.warn(f"{env_id} is not registered: a designer environment may not take a bundled environment's "
                      "name (an unversioned id would resolve to it); re-validate it under its own name",
                      RuntimeWarning, stacklevel=2)
    collecting = gc.isenabled()
    gc.disable()  # 100,000 new specs would set off many full collections that find nothing to free
    try:
        for env_id, max_turns in opened.accepted_index():
            if env_id in registry or env_id in shadowing:
                continue
            problem = _register_one(env_id, max_turns, store_kwarg, unversioned)
            if problem is None:
                added.append(env_id)
            else:  # one record that cannot be registered is reported; the others are registered
                warnings.warn(f"{env_id!r:.200} is not registered: {problem}", RuntimeWarning, stacklevel=2)
    finally:
        if collecting:
            gc.enable()
    return added


def _register_one(env_id: str, max_turns: int, store_kwarg: dict[str, str], unversioned: set[str]) -> str | None:
    """Register one accepted record's id; the reason it cannot be registered, or None."""
    try:
        spec = _spec(env_id, max_episode_steps(max_turns), {"env_id": env_id, **store_kwarg})
    except gymnasium.error.Error as exc:
        return f"Gymnasium refuses the id ({exc})"
    if spec.namespace == ENV_NAMESPACE and spec.name in unversioned:
        return f"an unversioned {ENV_NAMESPACE}/{spec.name} is already registered"
    registry[env_id] = spec
    return None


_PREFIX = f"{ENV_NAMESPACE}/"
_TEMPLATE = EnvSpec(id=f"{_PREFIX}Template-v0", entry_point=ENTRY_POINT)


def _spec(env_id: str, max_steps: int | None, kwargs: dict[str, Any]) -> EnvSpec:
    """``EnvSpec(id=env_id, entry_point=ENTRY_POINT, max_episode_steps=max_steps, kwargs=kwargs)``, built without
    Gymnasium's id regex for an id of the store's own ``spade/<Name>-v<N>`` form (a third of the import time at
    100,000 records); any other id goes through the real constructor, which checks it."""
    name, sep, version = env_id[len(_PREFIX):].rpartition("-v")
    if not (env_id.startswith(_PREFIX) and sep and name and version.isdigit() and version.isascii()
            and (version == "0" or version[0] != "0") and "/" not in name):
        return EnvSpec(id=env_id, entry_point=ENTRY_POINT, max_episode_steps=max_steps, kwargs=kwargs)
    spec = object.__new__(EnvSpec)
    spec.__dict__ = {**_TEMPLATE.__dict__, "id": env_id, "name": name, "version": int(version),
                     "max_episode_steps": max_steps, "kwargs": kwargs}
    return spec


def max_episode_steps(max_turns: int) -> int | None:
    """The spec's turn limit: the manifest's ``max_turns``, except ``None`` for single-turn environments.

    Gymnasium's ``TimeLimit`` sets ``truncated=True`` on the step that reaches the limit even when the episode
    terminated, which would break the rule that a single-turn episode ends ``terminated=True, truncated=False``;
    ``SpadeEnv`` enforces ``max_turns`` itself either way.
    """
    return max_turns if max_turns > 1 else None


def register_on_import() -> list[str]:
    """What ``import spade_core`` runs: register the default store, warning (not failing) on a store problem."""
    try:
        return register_store()
    except StoreError as exc:
        warnings.warn(f"SPADE environments were not registered: {exc}", RuntimeWarning, stacklevel=3)
        return []
