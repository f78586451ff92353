"""Every knob of a self-play run, as typed dataclasses (YAML-loadable, overridable with ``--set a.b=v``).

A section that configures a component is built on the component's own knob class (``designer`` on
``DesignKnobs``, ``agent`` on ``RolloutKnobs``, ``regret`` is ``RegretCoefficients``, ``train`` on ``TrainKnobs``), so
each default is written once, beside the component, and the run hands the section on whole
(:func:`spade_core.typed_config.derive`). What the run derives for a component from another knob (``regret.k`` from
``agent.seeds_per_env``, a designer run's domain and seed, the trainer's seed and run directory) is no key of the
file: setting one fails, naming the knob to set (``SelfPlayConfig.DERIVED_KEYS``). Enum-like knobs are ``Literal``
types and every section checks its values when it is built, so a wrong value fails when the file is loaded, naming
the key and the allowed values; so do an unknown domain in any list of domains (:func:`check_domain_lists`) and an unknown trainer backend. The comments beside
the fields (here and in the component classes) are their help (``spade selfplay --help-config``)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Literal, get_args

from spade_core.designer.loop import DesignKnobs
from spade_core.errors import PluginError
from spade_core.heap import TRAINING_ARENAS, TRAINING_MMAP_THRESHOLD_MB
from spade_core.models.base import DEFAULT_DECODE_THREADS, DEFAULT_KV_CACHE_MB, MAX_BATCH_SIZE, SamplingParams
from spade_core.models.openai_backend import OpenAIOptions
from spade_core.plugins.backends import find_trainer_backend_spec
from spade_core.plugins.domains import default_domains, loaded_domains
from spade_core.rollout.specs import RolloutKnobs
from spade_core.selfplay.budget import BudgetSplit
from spade_core.selfplay.pool_health import PoolHealthConfig
from spade_core.smallworld.world import ARMS as SMALL_WORLD_ARMS
from spade_core.training.advantages import Estimator
from spade_core.training.errors import UnknownTrainerBackendError
from spade_core.training.regret import RegretCoefficients
from spade_core.training.settings import SharedTrainSettings, TrainKnobs
from spade_core.typed_config import ConfigError
from spade_core.validation.config import DESIGN_GROUNDING, GroundingThresholds, ValidationKnobs, check_stage_budgets
from spade_core.validation.stage_hook import stage_names

DOMAIN_LIST = MappingProxyType({"domain_list": True})
"""The metadata of a config field that lists domain names: :func:`check_domain_lists` checks every such list when
the config loads, against the installed domains."""


def check_domain_lists(config: Any, prefix: str = "") -> None:
    """Every list of domain names in ``config`` (a field with :data:`DOMAIN_LIST` metadata, in any section) names
    installed domains only; ConfigError naming the key, the unknown names and the installed ones otherwise."""
    loaded = None
    for f in fields(config):
        value = getattr(config, f.name)
        if is_dataclass(value) and not isinstance(value, type):
            check_domain_lists(value, f"{prefix}{f.name}.")
        elif f.metadata.get("domain_list") and value is not None:
            loaded = loaded if loaded is not None else loaded_domains()
            unknown = [d for d in value if d not in loaded]
            if unknown:
                raise ConfigError(f"{prefix}{f.name}: unknown domain(s) {unknown}; installed: {sorted(loaded)} (a "
                                  "plugin adds a domain through spade_domains; `spade plugins` lists them)")


Generator = Literal["hf", "hf_engine", "vllm"]
GENERATORS: tuple[Generator, ...] = get_args(Generator)  # model.generator: who samples (see ModelSection)


@dataclass
class ModelSection:
    spec: str | None = None  # None: the embedded SmolLM2-135M-Instruct; or a directory / .gguf path
    max_batch_size: int = MAX_BATCH_SIZE  # sequences one forward pass of a local generator holds (more are chunked)
    # MiB of keys and values a local (transformers) generator keeps between calls, so an episode's next turn prefills
    # only its new tokens (spade_core.models.kv_sessions); least recently used dropped past it; 0: keep none
    kv_cache_mb: float = DEFAULT_KV_CACHE_MB
    # intra-op CPU threads of a local generator's decode steps (prefill keeps torch_threads); on shared cores one
    # thread is faster, since a decode step is many small ops and each waits on a barrier; 0: torch_threads
    decode_threads: int = DEFAULT_DECODE_THREADS
    # who samples: "hf" the trainer's own module; "vllm" a colocated vLLM engine (GPU, `gpu` extra); "hf_engine" a
    # separate transformers copy of the policy. The last two get every update pushed and verified (needed with FSDP).
    generator: Generator = "hf"
    # VLLMBackend keyword arguments (gpu_memory_utilization, max_model_len, ...); its enable_prefix_caching is True
    # unless set here, so multi-turn episodes reuse their history's KV blocks as kv_cache_mb does for "hf"
    vllm: dict[str, Any] = field(default_factory=dict)
    torch_threads: int = 1  # 1 keeps CPU runs fast when sandbox workers share the cores (0: torch's default)
    malloc_arenas: int = TRAINING_ARENAS  # glibc malloc arenas this process's threads share (spade_core.heap); 0: glibc's default
    malloc_mmap_threshold_mb: int = TRAINING_MMAP_THRESHOLD_MB  # blocks this large get mappings of their own; 0: glibc's default


@dataclass(frozen=True)
class DesignerSection(DesignKnobs):
    """The designer: its DesignConfig knobs (each run's domain and seed come from ``domains`` and ``seed``), and
    what self-play decides around it."""

    # default: the loaded domains whose DomainSpec says selfplay_default (short, CPU-quick episodes)
    domains: list[str] = field(default_factory=default_domains, metadata=DOMAIN_LIST)
    candidates_per_iteration: int = 2  # new environments the designer writes per iteration, split over the domains
    corpus: str = "wiki"  # grounding documents: wiki, jsonl:PATH, parquet:PATH, hf:PATH, a plugin corpus name
    validation_seeds: int = 6  # seeds each candidate is validated on (and baseline episodes played)
    # who designs: None, the policy being trained; or any model spec (openai:<model>@<url>, a local path, tiny:<dir>),
    # which is frozen: its updates are skipped and the metrics say so
    model: str | None = None
    openai: OpenAIOptions = field(default_factory=OpenAIOptions)  # requests to an openai: designer.model
    enabled: bool = True  # False: no designer phase, the agent trains on a fixed pool (agent.domains/pool_tags/pool_ids)
    memory: bool = True  # False: no pool neighbours and no past failures in the prompt (neighbours = failures = 0)


@dataclass(frozen=True)
class AgentSection(RolloutKnobs):
    """The agent: its RolloutConfig knobs (sampling comes from ``max_new_tokens`` and ``temperature``, the seed from
    ``seed``), and what self-play decides around it."""

    envs_per_iteration: int = 2  # environments the agent plays per iteration (new ones first, then replay)
    # K paired rollouts: K hinted + K unhinted on the same seeds (the regret estimator's k)
    seeds_per_env: int = 3
    max_new_tokens: int = 24  # the agent's tokens per turn
    temperature: float = SamplingParams.temperature  # the agent's sampling temperature
    # None: the agent plays every environment up to its own max_turns, bounded by max_context_tokens; a number
    # replays only environments whose max_turns is at most it
    max_env_turns: int | None = None
    # replay only these domains (None: every domain); the default, the selfplay_default domains, keeps to short
    # observations on a CPU
    domains: list[str] | None = field(default_factory=default_domains, metadata=DOMAIN_LIST)
    train_on_hinted: bool = False  # also train on the hinted episodes (off: they only measure regret)
    pool_tags: list[str] | None = None  # replay only environments carrying one of these tags (None: any)
    pool_ids: list[str] | None = None  # replay only these environment ids (None: any)
    # environment packs (folders, .tar.gz, .parquet or installed pack names) imported into the store before the first
    # iteration, through the local gate (spade_core.packs); their accepted environments join the pool
    pool_packs: list[str] | None = None


@dataclass(frozen=True)
class TrainSection(TrainKnobs):
    """The trainer: the knobs every backend is offered (SharedTrainSettings; its seed, run directory and generator
    batch size come from ``seed``, ``run_dir`` and ``model.max_batch_size``), the backend and the advantages."""

    backend: str = "reference"  # a trainer backend plugin: "reference" (PyTorch), "trl" (TRL GRPOTrainer)
    backend_options: dict[str, Any] = field(default_factory=dict)  # the backend's own config fields
    agent_advantage: Estimator = "dr_grpo"  # the agent's advantage estimator (spade_core.training.advantages)
    designer_advantage: Estimator = "ema"  # the designer's advantage estimator

    def __post_init__(self) -> None:
        super().__post_init__()
        try:
            spec = find_trainer_backend_spec(self.backend)
        except UnknownTrainerBackendError as exc:
            raise ConfigError(f"train.backend: {exc}") from exc
        # the backend's own config, as a run builds it (what a run derives at SharedTrainSettings's defaults),
        # checked now rather than after the model loads
        shared = SharedTrainSettings(**{f.name: getattr(self, f.name) for f in fields(TrainKnobs)})
        try:
            spec.check_settings(spec.settings_from(shared) | dict(self.backend_options))
        except (ValueError, TypeError, PluginError) as exc:
            raise ConfigError(f"train.backend_options ({self.backend} backend): {exc}") from exc


@dataclass
class MemorySection:
    embedder: Literal["minilm", "hashing"] = "minilm"  # "minilm": the packaged all-MiniLM-L6-v2; "hashing": lexical


@dataclass(frozen=True)
class ValidationSection(ValidationKnobs):
    """The validation gate: its ValidationConfig knobs (the seed sample and baseline episodes come from
    ``designer.validation_seeds``, the probe's episodes from ``agent.seeds_per_env``), and the probe model."""

    # a capable probe model (any model spec) that plays each candidate unhinted, hinted and hint-only at the
    # calibration stage (spade_core.validation.probe); None: the designer section's calibrate rule decides
    probe: str | None = None
    # the designer loop's grounding: its document is one corpus sample, so grounding keeps a score and never rejects
    grounding: GroundingThresholds = field(default_factory=lambda: DESIGN_GROUNDING)

    def __post_init__(self) -> None:
        check_stage_budgets(self.stage_budget_s, stage_names())


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
    seeds: int = 1  # seeds per arm (each a fresh agent and designer)
    iterations: int = 12  # designer -> agent -> update rounds per seed

    def __post_init__(self) -> None:
        unknown = [arm for arm in self.arms if arm not in SMALL_WORLD_ARMS]
        if unknown:
            raise ConfigError(f"small_world.arms: unknown arm(s) {unknown}; expected some of {list(SMALL_WORLD_ARMS)}")


@dataclass
class SelfPlayConfig:
    """The whole run. Sections hold a component's user-set knobs (a base class of its config); what a run derives
    for a component from another knob is set in one place (wiring, the loop) and is no key of the file."""

    DERIVED_KEYS: ClassVar[dict[str, str]] = {
        "regret.k": "agent.seeds_per_env", "agent.sampling": "agent.max_new_tokens and agent.temperature",
        "agent.seed": "seed", "designer.domain": "designer.domains", "designer.seed": "seed", "train.seed": "seed",
        "train.run_dir": "run_dir", "train.generator_max_batch_size": "model.max_batch_size",
        "train.generator_kv_cache_mb": "model.kv_cache_mb",
        "train.generator_decode_threads": "model.decode_threads", "validation.seeds": "designer.validation_seeds",
        "validation.baseline_episodes": "designer.validation_seeds",
    }

    run_dir: str = "runs/selfplay"  # where the run writes its config, metrics, checkpoints, report and errors.log
    # None: a store inside the run directory (RUN_STORE_FILE); spade --store or $SPADE_STORE points at another
    store: str | None = None
    seed: int = 0  # every seed of the run (designer, rollouts, replay, engines) derives from this
    iterations: int = 3  # designer -> agent -> update rounds
    # the whole run's wall-clock budget (small world, model load, every iteration); each phase gets a deadline from
    # what remains (the budget section); no iteration starts once it is spent
    time_budget_minutes: float = 18.0
    budget: BudgetSplit = field(default_factory=BudgetSplit)  # how the time budget is split over the phases
    model: ModelSection = field(default_factory=ModelSection)
    designer: DesignerSection = field(default_factory=DesignerSection)
    agent: AgentSection = field(default_factory=AgentSection)
    regret: RegretCoefficients = field(default_factory=RegretCoefficients)  # the designer's reward
    train: TrainSection = field(default_factory=TrainSection)
    memory: MemorySection = field(default_factory=MemorySection)
    ray: RaySection = field(default_factory=RaySection)
    pool: PoolHealthConfig = field(default_factory=PoolHealthConfig)  # retiring trivial/impossible/hint-copying envs
    validation: ValidationSection = field(default_factory=ValidationSection)
    small_world: SmallWorldSection = field(default_factory=SmallWorldSection)

    def __post_init__(self) -> None:
        check_domain_lists(self)  # every domain list of every section, in this one place
