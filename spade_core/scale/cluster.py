"""One run's Ray resources together: the runtime, validation tasks and rollout workers (env actors)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spade_core.rollout.env_pool import EnvPoolFactory
from spade_core.scale.ray_rollout import RayRolloutWorkers
from spade_core.scale.ray_runtime import RayRuntime
from spade_core.scale.ray_validation import RayValidator


class RayScaleOut:
    """The :class:`~spade_core.scale.ScaleOut` of a Ray run: validation as Ray tasks, environments on env actors,
    and (with ``ray.generator_actors``) sampling on generator actors."""

    def __init__(self, runtime: RayRuntime, validator: RayValidator, rollouts: RayRolloutWorkers,
                 config: Any = None) -> None:
        self.runtime = runtime
        self.validator = validator
        self.rollouts = rollouts
        self.config = config
        self.generators: Any = None  # a RayGeneratorPool once start_generators() ran
        self.env_pool: EnvPoolFactory | None = rollouts.env_pool

    @classmethod
    def start(cls, config: Any, *, store: str | None = None) -> RayScaleOut:
        """Start or join Ray as ``config`` (a ``RaySection``) says and start the env actors."""
        runtime = RayRuntime.start(config.address, num_cpus=config.num_cpus, log_to_driver=config.log_to_driver)
        try:
            rollouts = RayRolloutWorkers(config.num_env_actors, store=store, actor_cpus=config.env_actor_cpus,
                                         call_timeout_s=config.call_timeout_s)
        except BaseException:
            runtime.shutdown()
            raise
        return cls(runtime, RayValidator(task_cpus=config.validation_task_cpus), rollouts, config)

    def start_generators(self, model_dir: str, *, kind: str, options: dict[str, Any], max_batch_size: int,
                         seed: int) -> Any:
        """Start ``ray.generator_actors`` actors that sample the policy (``kind`` "hf" or "vllm"); returns the
        :class:`~spade_core.scale.ray_generation.RayGeneratorPool` the trainer pushes its weights to."""
        from spade_core.scale.ray_generation import RayGeneratorPool

        cfg = self.config
        self.generators = RayGeneratorPool(
            str(model_dir), kind=kind, num_actors=cfg.generator_actors, actor_cpus=cfg.generator_actor_cpus,
            actor_gpus=cfg.generator_actor_gpus, options=options, max_batch_size=max_batch_size,
            timeout_s=cfg.generate_timeout_s, seed=seed)
        return self.generators

    def validate_many(self, sources: Sequence[tuple[str, str]], *, workers: int = 4,
                      documents: Sequence[str | None] | None = None, **kwargs: Any) -> list[Any]:
        return self.validator.validate_many(sources, workers=workers, documents=documents, **kwargs)

    def iteration_metrics(self) -> dict[str, Any]:
        """``{"ray": ...}``: the cluster (nodes, CPUs), where environments ran (per env actor: node, host, pid,
        environments made, resets, steps, failures) and validation tasks (count, fallbacks, hosts)."""
        nodes = self.runtime.nodes()
        rollouts = self.rollouts.take_stats()
        return {"ray": {
            "address": self.runtime.address or "local", "nodes": len(nodes),
            "cpus": sum(float(n["cpus"]) for n in nodes), "hosts": sorted({n["hostname"] for n in nodes}),
            "actors": len(rollouts["actors"]), "env_actors": rollouts["actors"],
            "replaced_actors": rollouts["replaced_actors"], "validation": self.validator.take_stats(),
        } | ({"generator_actors": self.generators.take_stats()} if self.generators is not None else {})}

    def close(self) -> None:
        """Stop the generator and env actors, then Ray if this run started it."""
        try:
            if self.generators is not None:
                self.generators.shutdown()
            self.rollouts.shutdown()
        finally:
            self.runtime.shutdown()
