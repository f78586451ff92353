"""The reference trainer's context store: a prompt's keys and values are computed once, a shared prefix is reused
exactly, and a context that is not reused is freed before the next one is computed (one context in memory, not
two: a designer prompt's keys and values are ~0.2 GB on SmolLM2)."""

from __future__ import annotations

import weakref

import pytest
import torch
from transformers import AutoModelForCausalLM

from spade_core.models.scoring import decoder_and_head
from spade_trainers.reference.backend import MIN_CONTEXT_TOKENS, _ContextStore


@pytest.fixture(scope="module")
def decoder(tiny_model_dir):
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir, dtype=torch.float32).eval()
    return decoder_and_head(model)[0]


def ids(seed: int, length: int) -> torch.Tensor:
    return torch.randint(10, 200, (1, length), generator=torch.Generator().manual_seed(seed))


def stored_keys(context) -> torch.Tensor:
    """The tensor the store holds under a returned context (the context's layers are views of it)."""
    keys = context.layers[0].keys
    return keys._base if keys._base is not None else keys


def test_a_context_not_reused_is_freed_before_the_next_is_computed(decoder) -> None:
    store = _ContextStore()
    first = store.context("policy", decoder, ids(0, 3 * MIN_CONTEXT_TOKENS))
    old = weakref.ref(stored_keys(first))
    del first
    alive_when_computing: list[bool] = []

    def watched(**kwargs):
        alive_when_computing.append(old() is not None)
        return decoder(**kwargs)

    store.context("policy", watched, ids(1, 3 * MIN_CONTEXT_TOKENS))  # no common prefix: nothing to reuse
    assert alive_when_computing == [False]


def test_a_shared_prefix_is_reused_and_the_context_is_exact(decoder) -> None:
    prefix = ids(2, 2 * MIN_CONTEXT_TOKENS)
    second = torch.cat([prefix, ids(3, MIN_CONTEXT_TOKENS)], dim=1)
    store = _ContextStore()
    store.context("policy", decoder, torch.cat([prefix, ids(4, 10)], dim=1))
    computed: list[int] = []

    def counted(**kwargs):
        computed.append(kwargs["input_ids"].shape[1])
        return decoder(**kwargs)

    reused = store.context("policy", counted, second)
    fresh = _ContextStore().context("policy", decoder, second)
    assert computed == [MIN_CONTEXT_TOKENS]  # only the part after the shared prefix ran
    for a, b in zip(reused.layers, fresh.layers):
        assert torch.allclose(a.keys, b.keys, atol=1e-5) and torch.allclose(a.values, b.values, atol=1e-5)
