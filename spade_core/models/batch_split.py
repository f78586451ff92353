"""One generation batch split over several engines (data-parallel ranks, Ray generator actors) and put back together.

Prompts go round-robin (so long and short ones spread evenly) and completions come back in prompt order. Each share
samples with a seed of its own derived from the batch's seed, so engines never repeat each other's samples: a GRPO
group's identical prompts on two engines would otherwise get identical completions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import torch

from spade_core.models.base import SamplingParams
from spade_core.models.errors import GenerationError
from spade_core.seeding import share_seed


def with_batch_seed(params: SamplingParams) -> SamplingParams:
    """``params`` with a seed: its own, or one drawn from torch's RNG (as an engine does for an unseeded batch)."""
    if params.seed is not None:
        return params
    return replace(params, seed=int(torch.randint(0, 2**62, (1,)).item()))


def share_params(params: SamplingParams, index: int) -> SamplingParams:
    """``params`` for share ``index`` of a batch: share 0 keeps the batch's seed, the others derive their own."""
    if index == 0 or params.seed is None:
        return params
    return replace(params, seed=share_seed(params.seed, index))


def split_round_robin(items: Sequence[Any], shares: int) -> list[list[Any]]:
    """``items`` dealt round-robin into ``shares`` lists (share ``i`` gets items ``i, i + shares, ...``)."""
    return [list(items[index::shares]) for index in range(shares)]


def merge_round_robin(shares: Sequence[Sequence[Any]], total: int) -> list[Any]:
    """The inverse of :func:`split_round_robin`: ``total`` results back in the order of the items."""
    out: list[Any] = [None] * total
    for index, share in enumerate(shares):
        positions = range(index, total, len(shares))
        if len(share) != len(positions):
            raise GenerationError(f"engine {index} returned {len(share)} completions for {len(positions)} prompts")
        for position, result in zip(positions, share):
            out[position] = result
    return out
