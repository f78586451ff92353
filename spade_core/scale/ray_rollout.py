"""Rollout workers on Ray: the episode runner's environment side runs on env actors, generation stays here.

:class:`RayRolloutWorkers` keeps a :class:`~spade_core.scale.ray_envs.RayEnvGroup` for the whole run and plugs it
into :class:`~spade_core.rollout.runner.EpisodeRunner` as its ``env_pool``: every round, the runner sends all pending
prompts to the trainer's generator in one batched ``generate`` call (on the driver, next to the weights it trains),
then one ``step_many`` message per actor. Environments — and the sandboxes running designer code — are spread over
the cluster; sampling and the policy update are not, which keeps weight sync trivial (there is none).
"""

from __future__ import annotations

from typing import Any

from spade_core.models.base import ModelBackend
from spade_core.rollout.runner import EpisodeRunner
from spade_core.rollout.specs import RolloutConfig
from spade_core.scale.ray_envs import RayEnvGroup, RayEnvPool


class RayRolloutWorkers:
    """``num_actors`` env actors serving the episode runner (see the module docstring)."""

    def __init__(self, num_actors: int, *, store: str | None = None, actor_cpus: float = 0.25,
                 call_timeout_s: float = 120.0) -> None:
        self.group = RayEnvGroup(num_actors, store=store, actor_cpus=actor_cpus, call_timeout_s=call_timeout_s)
        self.runs = 0

    def env_pool(self) -> RayEnvPool:
        """The runner's ``env_pool`` factory: a fresh pool on the (checked) actors for each run."""
        self.runs += 1
        return self.group.pool()

    def runner(self, generator: ModelBackend, config: RolloutConfig | None = None) -> EpisodeRunner:
        """An :class:`EpisodeRunner` whose environments live on the env actors."""
        return EpisodeRunner(generator, config, env_pool=self.env_pool)

    def take_stats(self) -> dict[str, Any]:
        """Where environments ran since the last call: per actor its node, host, pid and counts."""
        actors = self.group.take_stats()
        return {"actors": actors, "runs": self.runs, "replaced_actors": self.group.replaced}

    def shutdown(self) -> None:
        self.group.shutdown()
