"""Registers the reference trainer backend with SPADE's plugin system (entry point ``reference_trainer``)."""

from __future__ import annotations

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import TrainerBackendSpec


@hookimpl
def spade_trainer_backends() -> list[TrainerBackendSpec]:
    return [
        TrainerBackendSpec(
            name="reference",
            factory="spade_trainers.reference.backend:build_reference_trainer",
            shared_settings="spade_trainers.reference.config:from_shared",
            settings_class="spade_trainers.reference.config:ReferenceTrainerConfig",
            description="Pure PyTorch + transformers: clipped masked policy gradient (Dr.GRPO/DAPO), AdamW, "
            "optional KL and LoRA; CPU fp32 or GPU bf16 autocast.",
        )
    ]
