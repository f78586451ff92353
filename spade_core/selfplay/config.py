"""Every knob of a self-play run, as typed dataclasses (YAML-loadable, overridable with ``--set a.b=v``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from spade_core.heap import TRAINING_ARENAS, TRAINING_MMAP_THRESHOLD_MB
from spade_core.models.openai_backend import OpenAIOptions
from spade_core.selfplay.pool_health import PoolHealthConfig
from spade_core.training.regret import DEFAULT_OBJECTIVE

GENERATORS = ("hf", "hf_engine", "vllm")  # model.generator: who samples (see ModelSection)


@dataclass
class ModelSection:
    spec: str | None = None  # None: the embedded SmolLM2-135M-Instruct; or a directory / .gguf path
    max_batch_size: int = 32
    # who samples: "hf" the trainer's own module; "vllm" a colocated vLLM engine (GPU, `gpu` extra); "hf_engine" a
    # separate transformers copy of the policy. The last two get every update pushed and verified (needed with FSDP).
    generator: str = "hf"
    vllm: dict[str, Any] = field(default_factory=dict)  # VLLMBackend keyword arguments (gpu_memory_utilization, max_model_len, ...)
    torch_threads: int = 1  # 1 keeps CPU runs fast when sandbox workers share the cores (0: torch's default)
    malloc_arenas: int = TRAINING_ARENAS  # glibc malloc arenas this process's threads share (spade_core.heap); 0: glibc's default
    malloc_mmap_threshold_mb: int = TRAINING_MMAP_THRESHOLD_MB  # blocks this large get mappings of their own; 0: glibc's default


@dataclass
class DesignerSection:
    domains: list[str] = field(default_factory=lambda: ["math", "games"])
    candidates_per_iteration: int = 2
    max_repairs: int = 1
    max_new_tokens: int | None = None  # None: sized from the domain's worked examples (spade_core.designer.budget)
    temperature: float = 0.8
    corpus: str = "wiki"
    validation_seeds: int = 6
    worked_example: bool = True  # show one seed environment's full code in the prompt
    # who designs: None, the policy being trained; or any model spec (openai:<model>@<url>, a local path, tiny:<dir>),
    # which is frozen: its updates are skipped and the metrics say so
    model: str | None = None
    openai: OpenAIOptions = field(default_factory=OpenAIOptions)  # requests to an openai: designer.model
    # the calibration stage's probe is the agent playing each candidate; false skips it (an agent that cannot yet
    # solve anything would reject every environment as impossible; regret still penalises the unsolved ones)
    calibrate: bool = True
    enabled: bool = True  # False: no designer phase, the agent trains on a fixed pool (agent.domains/pool_tags/pool_ids)
    grounding: bool = True  # False: no corpus document in the prompt or the grounding stage (a manifest note suffices)
    memory: bool = True  # False: no pool neighbours and no past failures in the prompt


@dataclass
class AgentSection:
    envs_per_iteration: int = 2
    seeds_per_env: int = 3  # K paired rollouts: K hinted + K unhinted on the same seeds
    max_new_tokens: int = 24
    temperature: float = 1.0
    max_env_turns: int = 4  # replay only environments whose max_turns is at most this (keeps CPU runs short)
    # replay only these domains (None: every domain); the CPU default keeps to short observations
    domains: list[str] | None = field(default_factory=lambda: ["math", "games"])
    train_on_hinted: bool = False
    max_concurrent_episodes: int = 64
    hint_placement: str = "user"  # where hinted rollouts show the hint: rollout.runner.HINT_PLACEMENTS
    pool_tags: list[str] | None = None  # replay only environments carrying one of these tags (None: any)
    pool_ids: list[str] | None = None  # replay only these environment ids (None: any)


@dataclass
class RegretSection:
    no_hint_success_penalty: float = -0.5
    invalid_reward: float = -1.0
    learnability_weight: float = 0.0
    statistic: str = "mean"
    # the designer's reward: training.regret.OBJECTIVES; "defended" (regret, gated by the hint-only arm: a hint that
    # carries the answer earns nothing) | "regret" (undefended) | learnability | target | uniform
    objective: str = DEFAULT_OBJECTIVE
    target_success: float = 0.5  # objective "target": the unhinted success rate aimed at (GenEnv's alpha)


@dataclass
class TrainSection:
    learning_rate: float = 2e-6
    kl_coef: float = 0.0
    micro_batch_size: int = 1  # sequences per forward; designer prompts are long, so 1 bounds activation memory
    max_completion_tokens: int = 512
    backend: str = "reference"  # a trainer backend plugin: "reference" (PyTorch), "trl" (TRL GRPOTrainer)
    backend_options: dict[str, Any] = field(default_factory=dict)  # the backend's own config fields
    agent_advantage: str = "dr_grpo"
    designer_advantage: str = "ema"
    lora_r: int = 0  # 0: full fine-tuning
    # recompute each layer's activations in backward instead of keeping them: a designer sequence's ~300 trained
    # tokens attend over ~4k prompt keys, and keeping that attention's inputs for backward costs ~1 GB per sequence
    # on SmolLM2-135M (about 15% more update time). None: the backend's own default
    gradient_checkpointing: bool | None = None


@dataclass
class MemorySection:
    embedder: str = "minilm"  # "minilm": the packaged all-MiniLM-L6-v2; "hashing": a fast lexical embedder


@dataclass
class RaySection:
    enabled: bool = False  # sandbox workers, validation and rollouts as Ray actors/tasks
    address: str | None = None  # None with enabled: start a local Ray instance; "auto" or "ray://host:port": join one
    num_env_actors: int = 2  # Ray actors that host environment instances (each runs its own sandbox pool)
    num_cpus: int | None = None  # CPUs for a local instance (None: Ray's default)
    env_actor_cpus: float = 0.25  # CPUs Ray reserves per env actor (env steps are light; leaves room for validation)
    validation_task_cpus: float = 1.0  # CPUs per validation task (bounds how many candidates validate at once)
    call_timeout_s: float = 120.0  # an env actor that does not answer a batch in time is counted lost
    generator_actors: int = 0  # > 0: sample on this many Ray actors, each with its own copy of the policy
    generator_actor_cpus: float = 1.0  # CPUs Ray reserves per generator actor (its torch threads on CPU)
    generator_actor_gpus: float = 0.0  # GPUs per generator actor (1 for model.generator=vllm)
    generate_timeout_s: float = 1800.0  # a generator actor that does not answer a batch in time is replaced
    log_to_driver: bool = False  # forward actor/task stdout and stderr to this terminal


@dataclass
class SmallWorldSection:
    """The small world's comparison before the LLM loop (spade_core.selfplay.small_world)."""

    enabled: bool = False  # the CPU demo turns it on: a learning curve from a model that can learn in minutes
    arms: list[str] = field(default_factory=lambda: ["defended", "fixed"])  # smallworld.world.ARMS
    seeds: int = 1
    iterations: int = 12


@dataclass
class SelfPlayConfig:
    run_dir: str = "runs/selfplay"
    store: str | None = None  # None: the default registry store, so accepted envs are usable everywhere
    seed: int = 0
    iterations: int = 3
    time_budget_minutes: float = 18.0  # no new iteration starts once it looks like it would end past this
    model: ModelSection = field(default_factory=ModelSection)
    designer: DesignerSection = field(default_factory=DesignerSection)
    agent: AgentSection = field(default_factory=AgentSection)
    regret: RegretSection = field(default_factory=RegretSection)
    train: TrainSection = field(default_factory=TrainSection)
    memory: MemorySection = field(default_factory=MemorySection)
    ray: RaySection = field(default_factory=RaySection)
    pool: PoolHealthConfig = field(default_factory=PoolHealthConfig)  # retiring trivial/impossible/hint-copying envs
    small_world: SmallWorldSection = field(default_factory=SmallWorldSection)
