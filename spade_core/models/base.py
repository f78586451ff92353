"""The model backend interface shared by every backend (hf, openai, vllm) and by the trainer's generator.

Token-in/token-out is the ground truth (trajectories need exact ids and sampler logprobs); ``chat`` is the
convenience that applies the tokenizer's chat template first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from spade_core.models.errors import GenerationError

MAX_BATCH_SIZE = 32
"""Default for how many sequences a local generator runs in one forward pass (larger requests are chunked): the
self-play ``model.max_batch_size`` and every generator and trainer that builds one take this value by default."""

DEFAULT_KV_CACHE_MB = 1024
"""Default byte budget (MiB) of the keys and values a local generator keeps between calls (``model.kv_cache_mb`` in
the self-play config; 0 turns keeping off). SmolLM2-135M keeps ~46 KB per token in fp32, so 1 GiB holds ~23k tokens:
a round of 16 episodes at ~1.4k tokens each, on top of the model and the batch being decoded."""

DEFAULT_DECODE_THREADS = 1
"""Intra-op CPU threads a local generator decodes with (one token per row per forward; 0: torch's own setting).
A decode step of a small model is hundreds of small ops, each a barrier across threads; on a shared CPU a barrier
waits for whichever thread is descheduled, so more threads make a step slower (SmolLM2-135M, 16 rows over
500-2,300-token contexts, 2 cores at load average ~8: 4.4 s a step on 2 threads, 1.0 s on 1). Prefill forwards (many
tokens per op) keep torch's setting."""


@dataclass(frozen=True)
class TokenDistribution:
    """The distribution each token is drawn from, which its recorded logprob is taken under and a trainer scores it
    under again (one rule for every role, backend and trainer; the tensor code is :mod:`spade_core.models.distribution`).

    From the model's logits: divide by ``temperature``; keep the ``top_k`` highest (0: all; ties with the k-th are
    kept); of those, keep the nucleus of ``top_p`` (a token stays while the mass ranked strictly above it, under the
    tempered top-k distribution, is below ``top_p``; the most likely token always stays); renormalise. This is
    vLLM's ``processed_logprobs``. Greedy decoding (``temperature == 0``) takes the arg-max and records its
    untempered, untruncated logprob, so it is scored as ``TokenDistribution()`` (:attr:`scoring`).
    """

    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0

    def __post_init__(self) -> None:
        if not self.temperature >= 0:
            raise GenerationError(f"temperature must be >= 0 (0 means greedy), got {self.temperature}")
        if not 0.0 < self.top_p <= 1.0:
            raise GenerationError(f"top_p must be in (0, 1], got {self.top_p}")
        if isinstance(self.top_k, bool) or not isinstance(self.top_k, int) or self.top_k < 0:
            raise GenerationError(f"top_k must be an integer >= 0 (0 disables it), got {self.top_k!r}")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    @property
    def scoring(self) -> TokenDistribution:
        """What a recorded logprob is taken under: this distribution, or for greedy decoding the plain model's."""
        return TokenDistribution() if self.greedy else self

    @property
    def truncates(self) -> bool:
        """True when some tokens can never be sampled (top-k or top-p active, not greedy)."""
        return not self.greedy and (self.top_k > 0 or self.top_p < 1.0)


@dataclass(frozen=True)
class SamplingParams:
    """How to sample one completion per prompt."""

    max_new_tokens: int = 256
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    stop: tuple[str, ...] = ()
    seed: int | None = None

    @property
    def distribution(self) -> TokenDistribution:
        """The token distribution these parameters sample from (raises :class:`GenerationError` if invalid)."""
        return TokenDistribution(self.temperature, self.top_k, self.top_p)


@dataclass
class Generation:
    """One completion: exact token ids and the sampler's per-token logprobs (empty if the backend has none)."""

    prompt_ids: list[int]
    completion_ids: list[int]
    text: str
    logprobs: list[float] = field(default_factory=list)
    finish_reason: str = "stop"  # "stop" | "length" | "error"
    error: str | None = None
    # the distribution ``logprobs`` were taken under, set by backends that sample with SPADE's rule (hf, vllm);
    # None: unknown (e.g. a remote server), so the generation cannot be trained on
    distribution: TokenDistribution | None = None
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
