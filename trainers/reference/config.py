"""Typed configuration of the reference trainer backend (loadable from plain mappings, e.g. YAML)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spade_core.training.backend import reject_unknown_settings
from spade_core.training.errors import TrainingConfigError
from spade_core.training.settings import SHARDING_MODES, GeneratorSettings, LoraSettings, SharedTrainSettings

NORMALISERS = ("constant", "tokens")
PRECISIONS = ("auto", "fp32", "bf16")


@dataclass(frozen=True)
class ReferenceTrainerConfig(GeneratorSettings):
    """Coefficients of the clipped, masked policy-gradient update (Dr.GRPO / DAPO style).

    Loss per optimiser step over ``N`` sequences: ``sum_{i,t} m_it * l_it / Z`` with
    ``l = -min(r A, clip(r, 1 - clip_eps_low, 1 + clip_eps_high) A) + kl_coef * k3(ref, pi)``, ``r`` the ratio to
    the sampler's logprobs, and ``Z = N * max_completion_tokens`` (``normaliser="constant"``, Dr.GRPO: no
    per-sequence length bias) or the number of generated tokens in the step (``"tokens"``, DAPO token mean).
    Each ``update`` splits its batch into ``mini_batches`` optimiser steps, ``epochs`` times; micro-batches of
    ``micro_batch_size`` sequences accumulate gradients exactly (the normaliser is fixed per optimiser step).
    """

    # the knobs a run sets (self-play's train section) take their one default from SharedTrainSettings
    learning_rate: float = SharedTrainSettings.learning_rate
    betas: tuple[float, float] = (0.9, 0.999)
    adam_eps: float = 1e-8
    weight_decay: float = 0.0
    clip_eps_low: float = 0.2
    clip_eps_high: float = 0.28
    kl_coef: float = SharedTrainSettings.kl_coef
    normaliser: str = "constant"
    max_completion_tokens: int = SharedTrainSettings.max_completion_tokens
    micro_batch_size: int = SharedTrainSettings.micro_batch_size
    mini_batches: int = 1
    epochs: int = 1
    max_grad_norm: float | None = 1.0
    precision: str = "auto"  # auto: fp32 on CPU, bf16 autocast (fp32 master weights) on GPU
    device: str = "auto"
    lora: LoraSettings | None = None
    gradient_checkpointing: bool = False
    # False: the context before a sequence's first generated token (its prompt) runs once without gradient and the
    # loss backpropagates through the generated part only (the prompt's keys and values count as inputs). True: the
    # exact gradient also through the prompt's keys and values, at the cost of a backward pass and activations over
    # every prompt token (a designer prompt is ~4k tokens for ~300 trained ones). Logprobs and ratios are identical.
    # A sharded model (sharding="fsdp") runs only as a whole, the same calls on every rank, so it always takes True.
    context_gradient: bool = False
    sharding: str = "replicate"  # across data-parallel ranks: "replicate" (whole replicas) or "fsdp" (FSDP2 shards)
    seed: int = SharedTrainSettings.seed
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        checks = [
            (self.learning_rate > 0, "learning_rate must be > 0"),
            (0 <= self.clip_eps_low < 1, "clip_eps_low must be in [0, 1)"),
            (self.clip_eps_high >= 0, "clip_eps_high must be >= 0"),
            (self.kl_coef >= 0, "kl_coef must be >= 0"),
            (self.normaliser in NORMALISERS, f"normaliser must be one of {NORMALISERS}"),
            (self.max_completion_tokens >= 1, "max_completion_tokens must be >= 1"),
            (self.micro_batch_size >= 1, "micro_batch_size must be >= 1"),
            (self.mini_batches >= 1, "mini_batches must be >= 1"),
            (self.epochs >= 1, "epochs must be >= 1"),
            (self.max_grad_norm is None or self.max_grad_norm > 0, "max_grad_norm must be > 0 or None"),
            (self.precision in PRECISIONS, f"precision must be one of {PRECISIONS}"),
            (self.sharding in SHARDING_MODES, f"sharding must be one of {SHARDING_MODES}"),
            (self.sharding != "fsdp" or self.lora is None,
             "sharding='fsdp' trains full weights; LoRA adapters are small enough to replicate (sharding='replicate')"),
        ]
        for ok, message in checks:
            if not ok:
                raise TrainingConfigError(f"ReferenceTrainerConfig: {message}")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ReferenceTrainerConfig:
        """Build from a plain mapping (YAML/JSON); unknown keys raise with the list of known ones."""
        reject_unknown_settings(cls, data, "reference-trainer")
        values = dict(data)
        values["lora"] = LoraSettings.from_value(values.get("lora"))
        if isinstance(values.get("betas"), list):
            values["betas"] = tuple(values["betas"])
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def from_shared(shared: SharedTrainSettings) -> dict[str, Any]:
    """The self-play ``train`` knobs under this backend's names (``TrainerBackendSpec.shared_settings``)."""
    return shared.common() | {
        "kl_coef": shared.kl_coef, "micro_batch_size": shared.micro_batch_size,
        "max_completion_tokens": shared.max_completion_tokens, "lora": shared.lora(),
        "generator_max_batch_size": shared.generator_max_batch_size,
        "generator_kv_cache_mb": shared.generator_kv_cache_mb,
        "generator_decode_threads": shared.generator_decode_threads,
    } | shared.checkpointing()
