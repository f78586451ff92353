"""Scale-out: sandbox workers, validation and rollouts on a Ray cluster (``spade selfplay --ray [ADDRESS]``).

The self-play loop talks to one :class:`ScaleOut`: where candidates are validated and where the episode runner's
environments live. :func:`open_scale_out` gives :class:`LocalScaleOut` (this machine, no Ray import at all) unless
the config enables Ray, then :class:`~spade_core.scale.cluster.RayScaleOut`. Modules: :mod:`.ray_runtime` (start or
join Ray), :mod:`.ray_envs` (env actors and their client pool), :mod:`.ray_validation` (validation as Ray tasks),
:mod:`.ray_rollout` (the episode runner on env actors), :mod:`.cluster` (the three together for a run).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from spade_core.rollout.env_pool import EnvPoolFactory
from spade_core.scale.errors import (
    EnvActorLostError,
    RayConnectError,
    RayNotInstalledError,
    RemoteEnvError,
    ScaleError,
)
from spade_core.validation import validate_many


class ScaleOut(Protocol):
    """Where a run validates candidates and hosts its environments."""

    env_pool: EnvPoolFactory | None
    """The episode runner's ``env_pool`` (None: environments in this process)."""

    def validate_many(self, sources: Sequence[tuple[str, str]], *, workers: int = 4,
                      documents: Sequence[str | None] | None = None, **kwargs: Any) -> list[Any]:
        """Same contract as :func:`spade_core.validation.validate_many`."""
        ...

    def iteration_metrics(self) -> dict[str, Any]:
        """Extra blocks for this iteration's metrics (``{}`` on one machine; ``{"ray": {...}}`` on Ray)."""
        ...

    def close(self) -> None: ...


class LocalScaleOut:
    """Everything on this machine: threads for validation, environments in this process."""

    env_pool: EnvPoolFactory | None = None

    def validate_many(self, sources: Sequence[tuple[str, str]], *, workers: int = 4,
                      documents: Sequence[str | None] | None = None, **kwargs: Any) -> list[Any]:
        return validate_many(sources, workers=workers, documents=documents, **kwargs)

    def iteration_metrics(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        """Nothing to release."""


def ray_requested(config: Any) -> bool:
    """Whether a ``RaySection`` asks for Ray (``enabled``, or any ``address``)."""
    return bool(config.enabled or config.address)


def open_scale_out(config: Any, *, store: str | None = None) -> ScaleOut:
    """:class:`LocalScaleOut`, or a started :class:`~spade_core.scale.cluster.RayScaleOut` when ``config`` (a
    ``RaySection``) asks for Ray; ``store`` is the registry store path the env actors register environments from."""
    if not ray_requested(config):
        return LocalScaleOut()
    from spade_core.scale.ray_runtime import require_ray

    require_ray()  # a clear install message before any Ray-only module is imported
    from spade_core.scale.cluster import RayScaleOut

    return RayScaleOut.start(config, store=store)


__all__ = [
    "EnvActorLostError", "LocalScaleOut", "RayConnectError", "RayNotInstalledError", "RemoteEnvError", "ScaleError",
    "ScaleOut", "open_scale_out", "ray_requested",
]
