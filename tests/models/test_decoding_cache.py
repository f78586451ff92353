"""GrowingKVCache: dropping finished rows keeps exactly the chosen rows' keys and values."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core.models.decoding import GrowingKVCache

ROWS, HEADS, DIM = 5, 2, 4


@settings(max_examples=40, deadline=None)
@given(picked=st.lists(st.integers(0, ROWS - 1), min_size=1, max_size=ROWS), length=st.integers(1, 9),
       then=st.integers(0, 3))
def test_selecting_rows_equals_indexing_and_later_writes_land_in_the_selected_rows(picked: list[int], length: int,
                                                                                   then: int) -> None:
    generator = torch.Generator().manual_seed(length)
    cache = GrowingKVCache(capacity=length + then)
    keys = torch.randn(ROWS, HEADS, length, DIM, generator=generator)
    values = torch.randn(ROWS, HEADS, length, DIM, generator=generator)
    cache.update(keys, values, 0)
    cache.batch_select_indices(torch.tensor(picked))
    layer = cache.layers[0]
    assert torch.equal(layer.keys, keys[picked]) and torch.equal(layer.values, values[picked])
    more_keys = torch.randn(len(picked), HEADS, then, DIM, generator=generator)
    more_values = torch.randn(len(picked), HEADS, then, DIM, generator=generator)
    out_keys, out_values = cache.update(more_keys, more_values, 0)
    assert torch.equal(out_keys, torch.cat([keys[picked], more_keys], 2))
    assert torch.equal(out_values, torch.cat([values[picked], more_values], 2))
