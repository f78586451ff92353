"""The one sampling rule (temperature, top-k, top-p, renormalise) shared by the sampler and the trainers, checked
against a plain-Python statement of it on random logits."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from spade_core.models.base import SamplingParams, TokenDistribution
from spade_core.models.distribution import LOGPROB_FLOOR, processed_logprobs, sample_tokens, token_logprobs
from spade_core.models.errors import GenerationError

VOCAB = 40


def kept_by_definition(scores: list[float], top_k: int, top_p: float) -> set[int]:
    """Top-k (ties with the k-th kept), then the nucleus: keep while the mass ranked above is below top_p."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    kept = order if not top_k or top_k >= len(order) else [i for i in order if scores[i] >= scores[order[top_k - 1]]]
    peak = max(scores[i] for i in kept)
    weights = {i: math.exp(scores[i] - peak) for i in kept}
    total = sum(weights.values())
    out, mass = set(), 0.0
    for i in kept:
        if out and mass >= top_p:
            break
        out.add(i)
        mass += weights[i] / total
    return out


distributions = st.builds(TokenDistribution, temperature=st.floats(0.2, 2.0), top_k=st.integers(0, VOCAB + 5),
                          top_p=st.floats(0.05, 1.0))


@given(distribution=distributions, seed=st.integers(0, 2**16))
def test_the_rule_matches_its_definition(distribution: TokenDistribution, seed: int) -> None:
    logits = torch.randn(1, VOCAB, generator=torch.Generator().manual_seed(seed)) * 3
    logp = processed_logprobs(logits, distribution)[0]
    kept = {i for i in range(VOCAB) if math.isfinite(float(logp[i]))}
    scores = (logits[0] / distribution.temperature).tolist()
    expected = kept_by_definition(scores, distribution.top_k, distribution.top_p)
    assert kept == expected
    assert float(logp.exp().sum()) == pytest.approx(1.0, abs=1e-5)
    targets = torch.arange(VOCAB)
    scored = token_logprobs(logits.expand(VOCAB, -1), targets, distribution)
    for i in range(VOCAB):
        assert float(scored[i]) == pytest.approx(float(logp[i]) if i in kept else LOGPROB_FLOOR, abs=1e-5)


@given(distribution=distributions, seed=st.integers(0, 2**16))
def test_the_sampler_draws_only_kept_tokens_and_records_their_logprob(distribution, seed) -> None:
    logits = torch.randn(64, VOCAB, generator=torch.Generator().manual_seed(seed)) * 3
    tokens, recorded = sample_tokens(logits, distribution, torch.Generator().manual_seed(seed))
    assert torch.isfinite(recorded).all()
    assert torch.allclose(recorded, token_logprobs(logits, tokens, distribution), atol=1e-6)


def test_greedy_records_the_untempered_logprob_and_scores_it_so() -> None:
    logits = torch.tensor([[2.0, 1.0, 0.5]])
    greedy = TokenDistribution(0.0, 3, 0.5)
    tokens, recorded = sample_tokens(logits, greedy)
    assert tokens.tolist() == [0]
    assert float(recorded[0]) == pytest.approx(float(torch.log_softmax(logits, -1)[0, 0]))
    assert greedy.scoring == TokenDistribution() and not greedy.truncates


def test_scoring_is_differentiable_and_masked_tokens_carry_no_gradient() -> None:
    logits = torch.randn(2, VOCAB, requires_grad=True)
    distribution = TokenDistribution(0.7, 3, 0.9)
    inside, outside = int(torch.argmax(logits[0])), int(torch.argmin(logits[1]))
    scored = token_logprobs(logits, torch.tensor([inside, outside]), distribution)
    scored.sum().backward()
    assert float(scored[1]) == pytest.approx(LOGPROB_FLOOR) and float(scored[0]) > LOGPROB_FLOOR
    assert torch.isfinite(logits.grad).all() and logits.grad[1].abs().sum() == 0  # row 1's target is outside
    assert logits.grad[0].abs().sum() > 0


@pytest.mark.parametrize("bad", [{"temperature": -1.0}, {"top_p": 0.0}, {"top_p": 1.5}, {"top_k": -2}])
def test_invalid_settings_say_what_is_wrong(bad) -> None:
    with pytest.raises(GenerationError, match=next(iter(bad))):
        _ = SamplingParams(**bad).distribution


@given(st.sampled_from([TokenDistribution(0.7, 5, 1.0), TokenDistribution(1.0, 0, 0.9),
                        TokenDistribution(1.3, 20, 0.8)]), st.integers(1, 300), st.integers(0, 2**16))
def test_kept_sets_taken_in_chunks_equal_one_pass(distribution: TokenDistribution, positions: int, seed: int) -> None:
    import spade_core.models.distribution as module

    scores = torch.randn(positions, 40, generator=torch.Generator().manual_seed(seed)) * 3
    chunked = module.kept_tokens(scores, distribution)
    whole = module._kept(scores, distribution.top_k, distribution.top_p)
    assert chunked is not None and torch.equal(chunked, whole)
    assert torch.equal(module.kept_tokens(scores.view(1, positions, 40), distribution)[0], whole)
