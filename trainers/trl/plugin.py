"""Registers the TRL trainer backend with SPADE's plugin system (entry point ``trl_trainer``)."""

from __future__ import annotations

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import TrainerBackendSpec


@hookimpl
def spade_trainer_backends() -> list[TrainerBackendSpec]:
    return [
        TrainerBackendSpec(
            name="trl",
            factory="spade_trainers.trl.backend:build_trl_trainer",
            shared_settings="spade_trainers.trl.config:from_shared",
            settings_class="spade_trainers.trl.config:TRLTrainerConfig",
            description="TRL 1.16 GRPOTrainer: SPADE per-role advantages, env_mask from loss_mask, sampler logprobs "
            "as the old policy; HF generation on CPU, colocated vLLM on GPU (needs trl; vllm for GPU).",
        )
    ]
