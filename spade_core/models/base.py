"""The model backend interface shared by every backend (hf, openai, vllm) and by the trainer's generator.

Token-in/token-out is the ground truth (trajectories need exact ids and sampler logprobs); ``chat`` is the
convenience that applies the tokenizer's chat template first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class SamplingParams:
    """How to sample one completion per prompt."""

    max_new_tokens: int = 256
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    stop: tuple[str, ...] = ()
    seed: int | None = None


@dataclass
class Generation:
    """One completion: exact token ids and the sampler's per-token logprobs (empty if the backend has none)."""

    prompt_ids: list[int]
    completion_ids: list[int]
    text: str
    logprobs: list[float] = field(default_factory=list)
    finish_reason: str = "stop"  # "stop" | "length" | "error"
    error: str | None = None
    usage_tokens: int | None = None  # the server's completion token count (``usage``) where ids are absent

    @property
    def num_tokens(self) -> int:
        """Completion tokens: the sampled ids, else the server's count, else 0."""
        return len(self.completion_ids) if self.completion_ids else int(self.usage_tokens or 0)


@runtime_checkable
class ModelBackend(Protocol):
    """A text generator for the designer and agent roles."""

    name: str
    tokenizer: Any

    def generate(self, prompts: Sequence[Sequence[int]], params: SamplingParams) -> list[Generation]:
        """One completion per prompt (token ids in, token ids out), batched."""

    def chat(self, conversations: Sequence[Sequence[dict[str, str]]], params: SamplingParams) -> list[Generation]:
        """Apply the chat template to each conversation, then :meth:`generate`."""

    def sync_weights(self, state_dict: dict[str, Any]) -> None:
        """Load new policy weights (after a trainer update); a no-op where the backend shares the trainer's model."""
