"""Typed configuration of the TRL trainer backend: every knob in one place, loadable from plain mappings (YAML).

The fields map onto ``trl.GRPOConfig`` (see :meth:`TRLTrainerConfig.grpo_kwargs`); ``grpo_overrides`` passes any
other ``GRPOConfig`` field through unchanged (checked against TRL's field list when the backend is built).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spade_core.training.backend import reject_unknown_settings
from spade_core.training.errors import TrainingConfigError
from spade_core.training.settings import GeneratorSettings, LoraSettings, SharedTrainSettings

# TRL loss types whose objective is the clipped importance-ratio surrogate the sampler logprobs feed into.
LOSS_TYPES = ("grpo", "bnpo", "dr_grpo", "dapo", "cispo")
IMPORTANCE_LEVELS = ("token", "sequence")
SCHEDULERS = ("constant", "constant_with_warmup", "linear", "cosine")
DEVICES = ("auto", "cpu", "cuda")
VLLM_MODES = ("colocate",)

# GRPOConfig fields this config sets itself; ``grpo_overrides`` may not repeat them (one place per knob).
_OWNED_GRPO_FIELDS = frozenset({
    "learning_rate", "adam_beta1", "adam_beta2", "adam_epsilon", "weight_decay", "lr_scheduler_type",
    "warmup_steps", "max_grad_norm", "beta", "epsilon", "epsilon_high", "loss_type", "importance_sampling_level",
    "max_completion_length", "temperature", "top_p", "top_k", "num_generations", "per_device_train_batch_size",
    "gradient_accumulation_steps", "steps_per_generation", "num_iterations", "use_vllm", "vllm_mode",
    "vllm_gpu_memory_utilization", "vllm_tensor_parallel_size", "vllm_enable_sleep_mode", "vllm_max_model_length",
    "bf16", "fp16", "use_cpu", "gradient_checkpointing", "seed", "output_dir", "max_steps", "logging_steps",
    "report_to", "save_strategy", "disable_dropout", "mask_truncated_completions", "vllm_importance_sampling_correction",
    "scale_rewards", "disable_tqdm",
})


@dataclass(frozen=True)
class TRLTrainerConfig(GeneratorSettings):
    """Settings of the TRL ``GRPOTrainer`` behind SPADE's trainer interface.

    Loss: TRL's clipped surrogate with ``epsilon``/``epsilon_high`` around the ratio to the *sampler's* logprobs,
    aggregated by ``loss_type`` (``dr_grpo``: sum over tokens / (sequences * ``max_completion_length``), matching the
    reference backend's constant normaliser; ``dapo``: token mean over the optimiser step; ``grpo``/``bnpo`` as in
    TRL). ``beta`` > 0 adds TRL's k3 KL to a frozen reference copy.

    Batching: an ``update`` splits its trajectories into micro-batches of ``per_device_train_batch_size`` and takes
    one optimiser step per ``gradient_accumulation_steps`` micro-batches, ``num_iterations`` times over the batch.
    ``num_generations``/``steps_per_generation``/``max_steps`` only matter to ``GRPOTrainer.train()`` driven by
    :func:`~spade_trainers.trl.grpo.make_rollout_func` (G episodes per dataset row).

    ``temperature`` is the sampling temperature of ``train()`` rollouts and TRL's default scoring temperature;
    ``update`` scores every trajectory at the temperature it was sampled with (designer and agent differ). ``use_vllm`` samples with TRL's colocated vLLM engine (CUDA and the
    ``vllm`` package required; vLLM sleep mode is not supported, since SPADE's runner samples between TRL's own
    generation calls); otherwise the generator is an ``HFGenerator`` sharing the trained module.
    """

    # the knobs a run sets (self-play's train section) take their one default from SharedTrainSettings
    learning_rate: float = SharedTrainSettings.learning_rate
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    adam_epsilon: float = 1e-8
    weight_decay: float = 0.0
    lr_scheduler_type: str = "constant"
    warmup_steps: int = 0
    max_grad_norm: float | None = 1.0
    beta: float = SharedTrainSettings.kl_coef
    epsilon: float = 0.2
    epsilon_high: float = 0.28
    loss_type: str = "dr_grpo"
    importance_sampling_level: str = "token"
    max_completion_length: int = SharedTrainSettings.max_completion_tokens
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    num_generations: int = 8
    per_device_train_batch_size: int = SharedTrainSettings.micro_batch_size
    gradient_accumulation_steps: int = 1
    # micro-batches per train() generation batch; None: the fewest that hold whole groups of num_generations and
    # whole optimiser steps (TRL's own None takes gradient_accumulation_steps, which with one sequence per
    # micro-batch leaves a group of 8 split). update() does not depend on it (see TRLTrainer._dapo_items)
    steps_per_generation: int | None = None
    num_iterations: int = 1
    max_steps: int = -1
    use_vllm: bool = False
    vllm_mode: str = "colocate"
    vllm_gpu_memory_utilization: float = 0.3
    vllm_tensor_parallel_size: int = 1
    vllm_max_model_length: int | None = None
    bf16: bool | None = None  # None: bf16 autocast on CUDA, fp32 on CPU (fp32 master weights either way)
    device: str = "auto"
    gradient_checkpointing: bool = False
    lora: LoraSettings | None = None  # train low-rank adapters (peft) on a frozen base, which is also the KL reference
    seed: int = SharedTrainSettings.seed
    output_dir: str | None = None  # None: a fresh temporary directory (TRL writes logs/checkpoints of train() there)
    logging_steps: int = 1
    check_sampler_logprobs: bool = True  # one extra no-grad forward per update: sampler vs trainer logprob drift
    grpo_overrides: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        checks = [
            (self.learning_rate > 0, "learning_rate must be > 0"),
            (0 <= self.adam_beta1 < 1 and 0 <= self.adam_beta2 < 1, "adam_beta1/adam_beta2 must be in [0, 1)"),
            (self.adam_epsilon > 0, "adam_epsilon must be > 0"),
            (self.weight_decay >= 0, "weight_decay must be >= 0"),
            (self.lr_scheduler_type in SCHEDULERS, f"lr_scheduler_type must be one of {SCHEDULERS}"),
            (self.warmup_steps >= 0, "warmup_steps must be >= 0"),
            (self.lr_scheduler_type in ("constant", "constant_with_warmup") or self.max_steps > 0,
             "lr_scheduler_type 'linear'/'cosine' decays over max_steps updates: set max_steps > 0"),
            (self.max_grad_norm is None or self.max_grad_norm > 0, "max_grad_norm must be > 0 or None"),
            (self.beta >= 0, "beta (KL coefficient) must be >= 0"),
            (0 <= self.epsilon < 1, "epsilon must be in [0, 1)"),
            (self.epsilon_high >= 0, "epsilon_high must be >= 0"),
            (self.loss_type in LOSS_TYPES, f"loss_type must be one of {LOSS_TYPES}"),
            (self.importance_sampling_level in IMPORTANCE_LEVELS,
             f"importance_sampling_level must be one of {IMPORTANCE_LEVELS}"),
            (self.max_completion_length >= 1, "max_completion_length must be >= 1"),
            (self.temperature > 0, "temperature must be > 0 (greedy rollouts are scored at temperature 1.0)"),
            (0 < self.top_p <= 1, "top_p must be in (0, 1]"),
            (self.top_k >= 0, "top_k must be >= 0 (0 disables it)"),
            (self.num_generations >= 2, "num_generations must be >= 2 (GRPO groups need two episodes)"),
            (self.per_device_train_batch_size >= 1, "per_device_train_batch_size must be >= 1"),
            (self.gradient_accumulation_steps >= 1, "gradient_accumulation_steps must be >= 1"),
            (self.steps_per_generation is None or self.steps_per_generation >= 1, "steps_per_generation must be >= 1"),
            (self.num_iterations >= 1, "num_iterations must be >= 1"),
            (self.vllm_mode in VLLM_MODES, f"vllm_mode must be one of {VLLM_MODES} (server mode is not supported: "
                                           "SPADE's episode runner needs the engine in this process)"),
            (0 < self.vllm_gpu_memory_utilization <= 1, "vllm_gpu_memory_utilization must be in (0, 1]"),
            (self.vllm_tensor_parallel_size >= 1, "vllm_tensor_parallel_size must be >= 1"),
            (self.device in DEVICES, f"device must be one of {DEVICES}"),
            (not (self.use_vllm and self.device == "cpu"), "use_vllm needs device 'cuda' or 'auto' (vLLM runs on GPU)"),
            (not (self.bf16 and self.device == "cpu"), "bf16=True needs a CUDA device; use bf16=None (auto) on CPU"),
            (self.logging_steps >= 1, "logging_steps must be >= 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise TrainingConfigError(f"TRLTrainerConfig: {message}")
        owned = sorted(set(self.grpo_overrides) & _OWNED_GRPO_FIELDS)
        if owned:
            raise TrainingConfigError(
                f"TRLTrainerConfig: grpo_overrides repeats {owned}, which are TRLTrainerConfig fields; set them there"
            )

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> TRLTrainerConfig:
        """Build from a plain mapping (YAML/JSON); unknown keys raise with the list of known ones."""
        reject_unknown_settings(cls, data, "trl-trainer")
        values = dict(data)
        overrides = values.get("grpo_overrides")
        if overrides is not None and not isinstance(overrides, Mapping):
            raise TrainingConfigError(f"grpo_overrides must be a mapping of GRPOConfig fields, got {overrides!r}")
        if overrides is not None:
            values["grpo_overrides"] = dict(overrides)
        values["lora"] = LoraSettings.from_value(values.get("lora"))
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def generation_steps(self) -> int:
        """``steps_per_generation``, or the fewest micro-batches of ``per_device_train_batch_size`` that hold whole
        groups of ``num_generations`` (on any number of processes) and whole optimiser steps."""
        if self.steps_per_generation is not None:
            return self.steps_per_generation
        per_group = self.num_generations // math.gcd(self.per_device_train_batch_size, self.num_generations)
        return math.lcm(per_group, self.gradient_accumulation_steps)

    def grpo_kwargs(self, *, output_dir: str, use_cuda: bool) -> dict[str, Any]:
        """Keyword arguments of ``trl.GRPOConfig`` for this config on this machine."""
        bf16 = use_cuda if self.bf16 is None else self.bf16
        kwargs: dict[str, Any] = {
            "output_dir": output_dir, "report_to": [], "save_strategy": "no", "logging_steps": self.logging_steps,
            "disable_tqdm": True, "use_cpu": not use_cuda, "bf16": bf16, "fp16": False, "seed": self.seed,
            "learning_rate": self.learning_rate, "adam_beta1": self.adam_beta1, "adam_beta2": self.adam_beta2,
            "adam_epsilon": self.adam_epsilon, "weight_decay": self.weight_decay,
            "lr_scheduler_type": self.lr_scheduler_type, "warmup_steps": self.warmup_steps,
            "max_grad_norm": self.max_grad_norm if self.max_grad_norm is not None else 0.0,
            "beta": self.beta, "epsilon": self.epsilon, "epsilon_high": self.epsilon_high, "loss_type": self.loss_type,
            "importance_sampling_level": self.importance_sampling_level,
            "max_completion_length": self.max_completion_length, "temperature": self.temperature,
            "top_p": self.top_p, "top_k": self.top_k, "num_generations": self.num_generations,
            "per_device_train_batch_size": self.per_device_train_batch_size,
            "gradient_accumulation_steps": self.gradient_accumulation_steps,
            "steps_per_generation": self.generation_steps(), "num_iterations": self.num_iterations,
            "max_steps": self.max_steps, "gradient_checkpointing": self.gradient_checkpointing,
            "disable_dropout": True,  # the policy-gradient ratio needs the trainer's forward to match the sampler's
            "mask_truncated_completions": False,
            "scale_rewards": "none",  # TRL's own advantages are replaced by SPADE's anyway (see SpadeGRPOTrainer)
            "use_vllm": self.use_vllm,
        }
        if self.use_vllm:
            kwargs.update({
                "vllm_mode": self.vllm_mode, "vllm_gpu_memory_utilization": self.vllm_gpu_memory_utilization,
                "vllm_tensor_parallel_size": self.vllm_tensor_parallel_size,
                "vllm_max_model_length": self.vllm_max_model_length,
                # The sampler's logprobs are the old policy of the clipped ratio; TRL's extra truncated IS
                # correction against a recomputed old policy would correct twice.
                "vllm_importance_sampling_correction": False,
            })
        kwargs.update(self.grpo_overrides)
        return kwargs


__all__ = ["LOSS_TYPES", "TRLTrainerConfig"]


def from_shared(shared: SharedTrainSettings) -> dict[str, Any]:
    """The self-play ``train`` knobs under TRL's names (``TrainerBackendSpec.shared_settings``).

    The loop calls ``update()`` with its own groups; TRL still checks its ``train()``-only batch shape, so
    ``num_generations`` and ``steps_per_generation`` are set to values that pass it."""
    return shared.common() | {
        "lora": shared.lora(), "beta": shared.kl_coef, "per_device_train_batch_size": shared.micro_batch_size,
        "max_completion_length": shared.max_completion_tokens,
        "generator_max_batch_size": shared.generator_max_batch_size,
        "generator_kv_cache_mb": shared.generator_kv_cache_mb,
        "generator_decode_threads": shared.generator_decode_threads, "output_dir": str(Path(shared.run_dir) / "trl"),
        "num_generations": 2, "steps_per_generation": 2,
    } | shared.checkpointing()
