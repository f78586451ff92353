"""Register accepted store records with Gymnasium as ``spade/<Name>-v<N>``.

``gymnasium.register`` scans the whole registry on every call (quadratic for 100,000 records), so specs are
built directly from the store's compact index and inserted after the same conflict check it makes. Specs use a
string entry point and JSON-safe kwargs, so ``EnvSpec.to_json()`` works and worker processes can rebuild them.
"""

from __future__ import annotations

import os
import warnings

from gymnasium.envs.registration import EnvSpec, registry

from spade_core.errors import SpadeError, StoreError
from spade_core.gym_bridge.make import ENTRY_POINT
from spade_core.gym_bridge.seeds import sync_seed_environments
from spade_core.gym_bridge.stores import open_store
from spade_registry.ids import ENV_NAMESPACE
from spade_registry.paths import default_store_path, resolve_store_path


def register_store(store: str | os.PathLike[str] | None = None, *, sync_seeds: bool = True) -> list[str]:
    """Register every accepted record of ``store`` (default store if ``None``) not yet registered; return new ids.

    Call it again at any time to pick up records accepted since: it is the one call that makes newly accepted
    environments available to ``gymnasium.make`` in a running process.
    """
    opened = open_store(store)
    if sync_seeds:
        sync_seed_environments(opened)
    explicit = store is not None and resolve_store_path(store).resolve() != default_store_path().resolve()
    store_kwarg = {"store": str(opened.path)} if explicit else {}
    unversioned = {
        spec.name for spec in registry.values() if spec.namespace == ENV_NAMESPACE and spec.version is None
    }
    added = []
    for env_id, max_turns in opened.accepted_index():
        if env_id in registry:
            continue
        spec = EnvSpec(
            id=env_id,
            entry_point=ENTRY_POINT,
            max_episode_steps=max_episode_steps(max_turns),
            kwargs={"env_id": env_id, **store_kwarg},
        )
        if spec.name in unversioned:
            raise SpadeError(f"cannot register {env_id}: an unversioned {ENV_NAMESPACE}/{spec.name} is already registered")
        registry[env_id] = spec
        added.append(env_id)
    return added


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
