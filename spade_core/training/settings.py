"""Trainer settings that every backend shares, as plain dataclasses and tuples: no torch here.

Configs (YAML, ``spade selfplay --set``) are parsed and checked before any model is built, so reading them must not
import torch. The modules that act on these settings (:mod:`spade_core.training.lora`,
:mod:`spade_core.training.sharding`) import them from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spade_core.models.base import DEFAULT_DECODE_THREADS, DEFAULT_KV_CACHE_MB, MAX_BATCH_SIZE
from spade_core.training.backend import reject_unknown_settings
from spade_core.training.errors import TrainingConfigError
from spade_core.typed_config import require

DEFAULT_TOLERANCE = 0.05  # mean |logprob difference| per probe token allowed after a push (nats)
DEFAULT_PROBE_SEQUENCES = 4  # sequences scored by trainer and engine after each push
DEFAULT_PUSH_CHUNK_MB = 1024.0  # a push is sent in pieces of about this size, so it never needs a second model copy

if TYPE_CHECKING:
    import torch

BASE_DTYPES = ("fp32", "bf16")
SHARDING_MODES = ("replicate", "fsdp")


@dataclass(frozen=True)
class LoraSettings:
    """Low-rank adapters via ``peft`` (only the adapters train; the frozen base doubles as the KL reference).

    No adapter dropout: the policy-gradient ratio needs the trainer's forward to match the sampler's."""

    r: int = 8
    alpha: int = 16
    target_modules: tuple[str, ...] | str = "all-linear"
    base_dtype: str = "fp32"  # the frozen base: "fp32", or "bf16" (half the memory: a 30B base fits in 60 GB)

    def __post_init__(self) -> None:
        if self.r < 1:
            raise TrainingConfigError(f"lora.r must be >= 1, got {self.r}")
        if self.base_dtype not in BASE_DTYPES:
            raise TrainingConfigError(f"lora.base_dtype must be one of {BASE_DTYPES}, got {self.base_dtype!r}")

    @property
    def torch_base_dtype(self) -> torch.dtype:
        import torch  # only a trainer that builds the model asks; reading settings stays torch-free

        return torch.bfloat16 if self.base_dtype == "bf16" else torch.float32

    @classmethod
    def from_value(cls, value: Any) -> LoraSettings | None:
        """``None``, settings, or a plain mapping (YAML/JSON; unknown keys raise with the known ones)."""
        if value is None or isinstance(value, LoraSettings):
            return value
        if not isinstance(value, Mapping):
            raise TrainingConfigError(f"lora: expected a mapping of LoRA settings or null, got {value!r}")
        reject_unknown_settings(cls, value, "lora")
        values = dict(value)
        if isinstance(values.get("target_modules"), list):
            values["target_modules"] = tuple(values["target_modules"])
        return cls(**values)


@dataclass(frozen=True)
class TrainKnobs:
    """The trainer knobs a run sets (the self-play ``train`` section holds them); their defaults are every bundled
    backend's defaults too (each backend's config reads them from here)."""

    learning_rate: float = 2e-6  # the optimiser's step size (both roles)
    kl_coef: float = 0.0  # KL penalty towards the initial policy (0: none)
    # sequences per forward; designer prompts are long, so 1 bounds activation memory
    micro_batch_size: int = 1
    max_completion_tokens: int = 512  # the loss normaliser's length
    lora_r: int = 0  # 0: full fine-tuning
    # recompute each layer's activations in backward instead of keeping them: a designer sequence's ~300 trained
    # tokens attend over ~4k prompt keys, and keeping that attention's inputs for backward costs ~1 GB per sequence
    # on SmolLM2-135M (about 15% more update time). None: the backend's own default
    gradient_checkpointing: bool | None = None

    def __post_init__(self) -> None:
        checks = [(self.learning_rate > 0, "learning_rate must be > 0"), (self.kl_coef >= 0, "kl_coef must be >= 0"),
                  (self.micro_batch_size >= 1, "micro_batch_size must be >= 1"),
                  (self.max_completion_tokens >= 1, "max_completion_tokens must be >= 1"),
                  (self.lora_r >= 0, "lora_r must be >= 0 (0: full fine-tuning)")]
        require(self, checks, TrainingConfigError)


@dataclass(frozen=True)
class SharedTrainSettings(TrainKnobs):
    """What every trainer backend is offered: the ``train`` knobs and what a run derives for them (the seed, the
    run directory, the generator's batch size). Each backend's plugin maps them onto its own config names
    (``TrainerBackendSpec.shared_settings``), and ``train.backend_options`` overrides the result."""

    seed: int = 0  # self-play: the run's seed
    generator_max_batch_size: int = MAX_BATCH_SIZE  # self-play: model.max_batch_size
    generator_kv_cache_mb: float = DEFAULT_KV_CACHE_MB  # self-play: model.kv_cache_mb
    generator_decode_threads: int = DEFAULT_DECODE_THREADS  # self-play: model.decode_threads
    run_dir: str = ""  # the run directory: a backend keeps files of its own in a subfolder of it

    def lora(self) -> dict[str, int] | None:
        """The ``lora`` setting both bundled backends take: ``None`` for full fine-tuning."""
        return {"r": self.lora_r} if self.lora_r else None

    def common(self) -> dict[str, Any]:
        """What a backend that maps nothing else gets: the learning rate and the seed."""
        return {"learning_rate": self.learning_rate, "seed": self.seed}

    def checkpointing(self) -> dict[str, bool]:
        """``gradient_checkpointing`` under the name both bundled backends use, when the run sets it."""
        return {} if self.gradient_checkpointing is None else {"gradient_checkpointing": self.gradient_checkpointing}


@dataclass(frozen=True)
class GeneratorSettings:
    """A trainer backend's sampling engine: its batch, and how each push of the weights to a separate engine (vLLM, a
    transformers copy, Ray actors) is sent and checked. Both bundled backends' configs extend it."""

    generator_max_batch_size: int = SharedTrainSettings.generator_max_batch_size
    generator_kv_cache_mb: float = SharedTrainSettings.generator_kv_cache_mb  # kept keys/values of the generator
    generator_decode_threads: int = SharedTrainSettings.generator_decode_threads  # its decode steps' CPU threads
    sync_probe_sequences: int = DEFAULT_PROBE_SEQUENCES  # with a separate generator: see weight_sync
    sync_tolerance: float = DEFAULT_TOLERANCE
    push_chunk_mb: float = DEFAULT_PUSH_CHUNK_MB  # a push to a separate generator goes in pieces of this size

    def __post_init__(self) -> None:
        checks = [(self.generator_max_batch_size >= 1, "generator_max_batch_size must be >= 1"),
                  (self.generator_kv_cache_mb >= 0, "generator_kv_cache_mb must be >= 0 (0: keep none)"),
                  (self.generator_decode_threads >= 0,
                   "generator_decode_threads must be >= 0 (0: torch's own thread setting)"),
                  (self.sync_probe_sequences >= 1, "sync_probe_sequences must be >= 1"),
                  (self.sync_tolerance > 0, "sync_tolerance must be > 0"), (self.push_chunk_mb > 0, "push_chunk_mb must be > 0")]
        for ok, message in checks:
            if not ok:
                raise TrainingConfigError(f"{type(self).__name__}: {message}")
