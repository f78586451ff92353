"""Low-rank adapters (``peft``) for the trainer backends: wrapping, the merged weights a separate sampling engine
needs, and adapter checkpoints. One definition, used by the reference and the TRL backends; the settings
(:class:`~spade_core.training.settings.LoraSettings`) live in the torch-free :mod:`spade_core.training.settings`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import torch

from spade_core.training.checkpoint import load_model_weights, read_safetensors
from spade_core.training.errors import CheckpointError
from spade_core.training.settings import LoraSettings


def wrap_lora(model: Any, lora: LoraSettings) -> Any:
    """``model`` (its base in ``lora.base_dtype``) wrapped with trainable adapters (a ``peft`` model)."""
    from peft import LoraConfig, get_peft_model

    target = lora.target_modules if isinstance(lora.target_modules, str) else list(lora.target_modules)
    peft_config = LoraConfig(r=lora.r, lora_alpha=lora.alpha, lora_dropout=0.0, target_modules=target,
                             task_type="CAUSAL_LM")
    return get_peft_model(model.to(dtype=lora.torch_base_dtype), peft_config)


def merged_weights(model: Any) -> Iterator[tuple[str, torch.Tensor]]:
    """The weights of a ``peft`` model with its adapters merged in, under the base model's own names (what a
    separate sampling engine loads), one tensor at a time.

    Computed beside the model, never in it: merging into the frozen base and unmerging again would leave rounding
    error in the base at every push (in a bf16 base, of the order of the adapters' own updates). Merged weights are
    fp32; the engine casts them to its own dtype."""
    from peft.tuners.lora import LoraLayer

    base = model.get_base_model()
    adapted = {f"{name}.base_layer.weight": module for name, module in base.named_modules()
               if isinstance(module, LoraLayer)}
    with torch.no_grad():
        for key, value in base.state_dict().items():
            if "lora_" in key:
                continue
            module = adapted.get(key)
            if module is not None:
                merged = value.float()
                for adapter in module.active_adapters:
                    if adapter in module.lora_A:
                        merged = merged + module.get_delta_weight(adapter).float()
                value = merged
            yield key.replace(".base_layer", ""), value.detach()


def load_adapter_weights(model: Any, folder: Path) -> None:
    """Load adapter weights saved by ``save_pretrained`` of a ``peft`` model into ``model``."""
    from peft import set_peft_model_state_dict

    result = set_peft_model_state_dict(model, read_safetensors(folder))
    unexpected = list(getattr(result, "unexpected_keys", []) or [])
    if unexpected:
        raise CheckpointError(f"{folder}: adapter weights do not fit this LoRA model: {unexpected[:3]}")


def require_same_lora(state: Mapping[str, Any], *, lora: bool, source: Path) -> None:
    """Raise :class:`CheckpointError` unless the checkpoint at ``source`` (its JSON ``state``) was saved with the same
    LoRA setting as this trainer's: adapters and whole weights do not load into each other."""
    saved = bool(state.get("lora"))
    if saved != lora:
        raise CheckpointError(f"{source}: saved with lora={saved}, but this trainer has lora={lora}; build the "
                              "trainer with the same LoRA setting")


def load_trained_weights(model: Any, folder: Path, *, lora: bool) -> None:
    """Load what a trainer saved of ``model`` into it: the adapters (``lora``) or the whole model."""
    if lora:
        load_adapter_weights(model, folder)
    else:
        load_model_weights(model, folder)
