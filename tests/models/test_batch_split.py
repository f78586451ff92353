"""Splitting a generation batch over engines: round-robin shares that merge back in order, one seed per share."""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from spade_core.models.base import SamplingParams
from spade_core.models.batch_split import merge_round_robin, share_params, split_round_robin, with_batch_seed
from spade_core.models.errors import GenerationError


@given(items=st.lists(st.integers(), max_size=40), shares=st.integers(min_value=1, max_value=9))
def test_a_split_batch_merges_back_in_order(items: list[int], shares: int) -> None:
    parts = split_round_robin(items, shares)
    assert len(parts) == shares and sorted(map(len, parts), reverse=True)[0] - min(map(len, parts)) <= 1
    assert merge_round_robin(parts, len(items)) == items


def test_a_share_of_the_wrong_size_is_an_error() -> None:
    with pytest.raises(GenerationError, match="engine 1 returned 0 completions for 1 prompts"):
        merge_round_robin([[1], []], 2)


@given(seed=st.integers(min_value=0, max_value=2**62))
def test_every_share_samples_with_a_seed_of_its_own(seed: int) -> None:
    params = SamplingParams(seed=seed, temperature=0.7)
    shares = [share_params(params, index) for index in range(8)]
    assert shares[0] == params and len({p.seed for p in shares}) == 8
    assert all(p == replace(params, seed=p.seed) for p in shares)  # only the seed differs
    assert shares == [share_params(params, index) for index in range(8)]  # reproducible


def test_an_unseeded_batch_draws_its_seed_from_torch() -> None:
    torch.manual_seed(5)
    first = with_batch_seed(SamplingParams()).seed
    torch.manual_seed(5)
    assert first is not None and with_batch_seed(SamplingParams()).seed == first
    assert with_batch_seed(SamplingParams(seed=3)).seed == 3
