"""TRL's colocated vLLM engine as SPADE's generator (only with ``use_vllm``; vLLM is imported nowhere else)."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

import torch

from spade_core.training.errors import TrainingConfigError


class VLLMUnavailableError(TrainingConfigError):
    """``use_vllm`` was requested where TRL's colocated vLLM cannot run (no CUDA GPU or no ``vllm`` package)."""


def check_vllm_runtime() -> None:
    """Raise :class:`VLLMUnavailableError` unless TRL's colocated vLLM can run here (CUDA GPU and ``vllm``)."""
    if not torch.cuda.is_available():
        raise VLLMUnavailableError(
            "use_vllm=True needs a CUDA GPU and none is visible; set use_vllm=False (the backend then samples with "
            "an HFGenerator sharing the trained model, which also works on CPU)"
        )
    if importlib.util.find_spec("vllm") is None:
        raise VLLMUnavailableError(
            "use_vllm=True needs the `vllm` package, which is not installed: pip install 'spade-rl[gpu]', or set "
            "use_vllm=False"
        )


class TRLColocatedVLLM:
    """A SPADE ``ModelBackend`` on the vLLM engine TRL colocates with training (``trainer.vllm_generation.llm``).

    Exact prompt/completion ids and the sampler's logprob of each sampled token, one completion per prompt;
    :meth:`sync_weights` pushes the trainer's current weights with TRL's own ``sync_weights`` (its argument is
    ignored: the trainer's module is the source)."""

    name = "trl-vllm"

    def __init__(self, trainer: Any, tokenizer: Any) -> None:
        self._trainer = trainer
        self.llm = trainer.vllm_generation.llm
        self.tokenizer = tokenizer

    def generate(self, prompts: Sequence[Sequence[int]], params: Any) -> list[Any]:
        from spade_core.models.vllm_backend import engine_generate

        return engine_generate(self.llm, prompts, params) if prompts else []

    def chat(self, conversations: Sequence[Sequence[dict[str, str]]], params: Any) -> list[Any]:
        from spade_core.models.vllm_backend import chat_token_ids

        return self.generate(chat_token_ids(self.tokenizer, conversations), params)

    def sync_weights(self, state_dict: dict[str, Any]) -> None:
        self._trainer.vllm_generation.sync_weights()

