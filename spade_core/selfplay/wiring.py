"""Building a self-play run's objects from its config: store, memory, corpus, scale-out, trainer (and its sampling
engine), designer model, episode runner, regret and advantage estimators. No loop logic lives here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spade_core.corpora import open_corpus
from spade_core.gym_bridge import open_store, register_store
from spade_core.heap import fix_mmap_threshold, limit_arenas
from spade_core.memory import EnvironmentMemory, HashingEmbedder, MiniLMEmbedder
from spade_core.models.base import SamplingParams
from spade_core.models.loading import load_model
from spade_core.packs.importing import import_pack
from spade_core.packs.reading import open_pack
from spade_core.plugins.backends import find_trainer_backend_spec
from spade_core.rollout.runner import EpisodeRunner
from spade_core.rollout.specs import RolloutConfig
from spade_core.scale import open_scale_out, ray_requested
from spade_core.seeding import engine_seed
from spade_core.selfplay.config import GENERATORS, ModelSection, SelfPlayConfig
from spade_core.selfplay.designer_model import DesignerModel, designer_model
from spade_core.selfplay.records import RUN_STORE_FILE
from spade_core.training.advantages import AdvantageConfig, AdvantageEstimator
from spade_core.training.regret import RegretConfig
from spade_core.training.settings import SharedTrainSettings
from spade_core.typed_config import ConfigError, derive
from spade_core.validation.config import ProbeThresholds, ValidationConfig
from spade_core.validation.seed_gate import gate_plugin_seeds

EMBEDDERS: dict[str, Callable[[], Any]] = {"minilm": MiniLMEmbedder, "hashing": HashingEmbedder}
"""``memory.embedder``: the packaged all-MiniLM-L6-v2, or a fast lexical embedder."""


@dataclass
class RunParts:
    """Everything a self-play run works with, built once per run (or resumption)."""

    store: Any
    memory: EnvironmentMemory
    corpus: Any
    scale: Any
    trainer: Any
    designer_model: DesignerModel
    runner: EpisodeRunner
    regret_config: RegretConfig
    agent_advantages: AdvantageEstimator
    designer_advantages: AdvantageEstimator


def configure_heap(model: ModelSection) -> None:
    """Apply the model section's C-heap settings to this process (0 leaves glibc's default)."""
    if model.malloc_arenas > 0:
        limit_arenas(model.malloc_arenas)
    if model.malloc_mmap_threshold_mb > 0:
        fix_mmap_threshold(model.malloc_mmap_threshold_mb)


def build_run(config: SelfPlayConfig, run_dir: Path, *, data_parallel: Any = None,
              on_model_load: Callable[[], None] = lambda: None) -> RunParts:
    """Open the store (seeds synced, accepted environments registered) and build every part of the run."""
    configure_heap(config.model)  # before the first threaded work: see spade_core.heap
    store = open_store(run_store(config))
    gate_plugin_seeds(store)  # third-party seeds go through the gate here, once per code (spade_core.gym_bridge.seeds)
    start_pool(config, store)
    register_store(run_store(config))
    memory = EnvironmentMemory(store, embedder=build_embedder(config.memory.embedder))
    corpus = open_corpus(config.designer.corpus)
    scale = open_scale_out(config.ray, store=str(store.path))  # this machine, or Ray (--ray)
    on_model_load()
    trainer = build_trainer(config, run_dir, data_parallel=data_parallel, scale=scale)
    designer = designer_model(config.designer.model, trainer.generator, openai=config.designer.openai,
                              max_batch_size=config.model.max_batch_size)
    runner = EpisodeRunner(trainer.generator, rollout_config(config), env_pool=scale.env_pool)
    return RunParts(
        store=store, memory=memory, corpus=corpus, scale=scale, trainer=trainer, designer_model=designer,
        runner=runner, regret_config=regret_config(config),
        agent_advantages=AdvantageEstimator(AdvantageConfig(estimator=config.train.agent_advantage)),
        designer_advantages=AdvantageEstimator(AdvantageConfig(estimator=config.train.designer_advantage)),
    )


def run_store(config: SelfPlayConfig) -> str:
    """The run's registry store: ``store`` when set, else one inside the run directory (the user's own store is
    written only when they point at it)."""
    return config.store if config.store is not None else str(Path(config.run_dir) / RUN_STORE_FILE)


def start_pool(config: SelfPlayConfig, store: Any) -> list[str]:
    """Import ``agent.pool_packs`` into the store through the local gate (a rerun or resumption finds them stored
    and validates nothing); return the local ids of the packs' environments now in the pool."""
    ids: list[str] = []
    for source in config.agent.pool_packs or ():
        ids += import_pack(open_pack(source), store).usable_ids
    return ids


def rollout_config(config: SelfPlayConfig) -> RolloutConfig:
    """The ``agent`` section's rollout knobs, with its sampling and the run's seed."""
    sampling = SamplingParams(max_new_tokens=config.agent.max_new_tokens, temperature=config.agent.temperature)
    return derive(RolloutConfig, config.agent, sampling=sampling, seed=config.seed)


def regret_config(config: SelfPlayConfig) -> RegretConfig:
    """The ``regret`` section with K = ``agent.seeds_per_env`` (the paired rollouts the loop plays)."""
    return derive(RegretConfig, config.regret, k=config.agent.seeds_per_env)


def validation_config(config: SelfPlayConfig) -> ValidationConfig:
    """The ``validation`` section's gate knobs, with the seed sample and baseline episodes of
    ``designer.validation_seeds`` and the probe's episodes of ``agent.seeds_per_env``."""
    seeds = config.designer.validation_seeds
    return derive(ValidationConfig, config.validation, seeds=tuple(range(seeds)), baseline_episodes=seeds,
                  probe=ProbeThresholds(episodes=config.agent.seeds_per_env))


def build_embedder(name: str) -> Any:
    if name not in EMBEDDERS:
        raise ConfigError(f"memory.embedder: expected one of {sorted(EMBEDDERS)}, got {name!r}")
    return EMBEDDERS[name]()


def build_trainer(config: SelfPlayConfig, run_dir: Path, *, data_parallel: Any = None, scale: Any = None) -> Any:
    """The trainer backend of ``train.backend`` on the loaded model, with its sampling engine; on the driver of a
    data-parallel group, wrapped so every update is shared out to the other ranks."""
    if config.model.torch_threads > 0:
        import torch

        torch.set_num_threads(config.model.torch_threads)
    spec = find_trainer_backend_spec(config.train.backend)
    settings = trainer_settings(config, run_dir, spec)
    if settings.get("sharding") == "fsdp":
        # every rank starts from the architecture with its weights on the meta device; the trainer streams each
        # rank's shards from the checkpoint files, so no process holds a whole copy. Where the files name the
        # weights differently from the model, rank 0 loads the whole model on the host and shares it out.
        from spade_core.training.sharding import can_stream_weights

        loaded = load_model(config.model.spec, device="cpu", dtype="float32", weights=False)
        if data_parallel is not None and data_parallel.is_driver and not can_stream_weights(loaded.model,
                                                                                             loaded.directory):
            loaded = load_model(config.model.spec, device="cpu", dtype="float32")
    else:
        loaded = load_model(config.model.spec, device="cpu" if not cuda_available() else None)
    generator = build_generator(config, loaded.directory, data_parallel=data_parallel, scale=scale)
    extra: dict[str, Any] = {"generator": generator} if generator is not None else {}
    if data_parallel is not None:
        extra["data_parallel"] = data_parallel
    trainer = spec.load()(loaded.model, loaded.tokenizer, config=settings, **extra)
    if data_parallel is not None and data_parallel.is_driver:
        from spade_core.training.data_parallel import DataParallelDriver

        return DataParallelDriver(trainer, data_parallel)
    return trainer


def trainer_settings(config: SelfPlayConfig, run_dir: Path, spec: Any) -> dict[str, Any]:
    """The backend's config: the shared ``train`` knobs under the backend's own names (its plugin maps them), then
    ``train.backend_options``."""
    shared = derive(SharedTrainSettings, config.train, seed=config.seed,
                    generator_max_batch_size=config.model.max_batch_size,
                    generator_kv_cache_mb=config.model.kv_cache_mb,
                    generator_decode_threads=config.model.decode_threads, run_dir=str(run_dir))
    return spec.settings_from(shared) | dict(config.train.backend_options)


def build_generator(config: SelfPlayConfig, model_dir: Path, *, data_parallel: Any = None, scale: Any = None) -> Any:
    """``None``: the trainer samples from its own module; otherwise a separate engine it pushes weights to."""
    kind = config.model.generator
    if kind not in GENERATORS:
        raise ConfigError(f"model.generator: expected one of {GENERATORS}, got {kind!r}")
    if config.ray.generator_actors > 0:
        return ray_generators(config, model_dir, kind, data_parallel=data_parallel, scale=scale)
    if kind == "hf":
        return None
    if kind == "hf_engine":
        from spade_core.models.hf_generator import HFGenerator

        return HFGenerator.from_pretrained(model_dir, device="cuda" if cuda_available() else "cpu",
                                           max_batch_size=config.model.max_batch_size,
                                           kv_cache_mb=config.model.kv_cache_mb,
                                           decode_threads=config.model.decode_threads)
    if kind == "vllm":
        from spade_core.models.vllm_backend import VLLMBackend

        rank = getattr(data_parallel, "rank", 0)
        options = {"seed": engine_seed(config.seed, rank)} | dict(config.model.vllm)
        return VLLMBackend(model_dir, colocate=True, **options)
    raise AssertionError(f"unhandled generator {kind!r}")


def ray_generators(config: SelfPlayConfig, model_dir: Path, kind: str, *, data_parallel: Any, scale: Any) -> Any:
    """``ray.generator_actors`` engines on Ray (vLLM ones for ``vllm``, transformers ones otherwise)."""
    if not ray_requested(config.ray):
        raise ConfigError(f"ray.generator_actors={config.ray.generator_actors} samples on Ray actors: enable Ray "
                          "(spade selfplay --ray, or ray.enabled=true)")
    if data_parallel is not None:
        raise ConfigError("ray.generator_actors and a torchrun/accelerate launch both spread generation; use one")
    options = dict(config.model.vllm) if kind == "vllm" else {"kv_cache_mb": config.model.kv_cache_mb,
                                                               "decode_threads": config.model.decode_threads}
    return scale.start_generators(
        str(model_dir), kind="vllm" if kind == "vllm" else "hf", options=options,
        max_batch_size=config.model.max_batch_size, seed=config.seed)


def cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()
