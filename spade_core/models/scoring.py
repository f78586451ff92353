"""Logprobs of given tokens without a whole ``[batch, length, vocabulary]`` logits tensor.

A causal LM's ``forward`` returns logits for every position: a 4k-token designer sequence times a 49k (SmolLM2) or
152k (Qwen) vocabulary is 0.8-2.5 GB of fp32 per row, and a log-softmax doubles it. Scoring instead runs the
decoder stack once and the output head over :data:`SCORE_CHUNK_POSITIONS` positions at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

SCORE_CHUNK_POSITIONS = 1024  # positions whose vocabulary logits exist at once


def decoder_and_head(model: Any) -> tuple[Any, Any] | None:
    """``(decoder stack, output head)`` of a transformers causal LM (LoRA-wrapped or not), or None if unknown."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    get_decoder = getattr(base, "get_decoder", None)
    head = base.get_output_embeddings() if hasattr(base, "get_output_embeddings") else None
    if get_decoder is None or head is None:
        return None
    decoder = get_decoder()
    return (decoder, head) if decoder is not None and decoder is not base else None


def next_token_logprobs(model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                        pick: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor],
                        *, chunk: int = SCORE_CHUNK_POSITIONS) -> torch.Tensor:
    """``[B, T-1]`` logprobs of ``input_ids[:, 1:]``: ``pick(logits [N, V], targets [N], rows [N])`` scores the
    positions of one chunk (rows name each position's batch row). Call it under ``no_grad``; padded positions
    are scored too (callers cut each row to its length). Models without a known decoder and head, and sharded
    (FSDP) models, whose root gathers the embeddings and head only when it runs as a whole, run whole."""
    targets = input_ids[:, 1:]
    rows = torch.arange(targets.shape[0], device=targets.device)[:, None].expand_as(targets).reshape(-1)
    flat_targets = targets.reshape(-1)
    parts = None if _sharded(model) else decoder_and_head(model)
    if parts is None:
        logits = model(input_ids=input_ids, attention_mask=attention_mask).logits[:, :-1]
        return pick(logits.reshape(-1, logits.shape[-1]), flat_targets, rows).view(targets.shape)
    decoder, head = parts
    hidden = decoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state[:, :-1]
    hidden = hidden.reshape(-1, hidden.shape[-1])
    out = torch.empty(flat_targets.shape, dtype=torch.float32, device=flat_targets.device)
    for start in range(0, hidden.shape[0], chunk):
        end = start + chunk
        out[start:end] = pick(head(hidden[start:end]), flat_targets[start:end], rows[start:end])
    return out.view(targets.shape)


def _sharded(model: Any) -> bool:
    if not torch.distributed.is_available():
        return False
    from torch.distributed.fsdp import FSDPModule

    return isinstance(model, FSDPModule)
