"""The trainer's output head in chunks (``head_logprobs``): the logprobs and gradients of one whole pass."""

from __future__ import annotations

import pytest
import torch

from spade_core.models.base import TokenDistribution
from spade_trainers.reference.loss import head_logprobs


@pytest.mark.parametrize("distributions", [
    (TokenDistribution(1.0, 0, 1.0),) * 3,
    (TokenDistribution(0.8, 0, 0.95), TokenDistribution(1.0, 0, 1.0), TokenDistribution(0.6, 7, 0.9)),
])
@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_chunked_head_gives_the_whole_pass_values_and_gradients(distributions, chunk: int) -> None:
    generator = torch.Generator().manual_seed(chunk)
    head = torch.nn.Linear(16, 50, bias=False)
    hidden_whole = torch.randn(40, 16, generator=generator, requires_grad=True)
    hidden_chunked = hidden_whole.detach().clone().requires_grad_(True)
    targets = torch.randint(0, 50, (40,), generator=generator)
    rows = torch.randint(0, 3, (40,), generator=generator)
    weights = torch.randn(40, generator=generator)

    whole = head_logprobs(head, hidden_whole, targets, rows, distributions, chunk=10_000)
    (whole * weights).sum().backward()
    head_grad, head.weight.grad = head.weight.grad.clone(), None
    chunked = head_logprobs(head, hidden_chunked, targets, rows, distributions, chunk=chunk)
    (chunked * weights).sum().backward()

    torch.testing.assert_close(chunked, whole)
    torch.testing.assert_close(hidden_chunked.grad, hidden_whole.grad)
    torch.testing.assert_close(head.weight.grad, head_grad)


def test_without_gradient_the_chunks_keep_no_graph() -> None:
    head = torch.nn.Linear(8, 20, bias=False)
    hidden = torch.randn(30, 8)
    with torch.no_grad():
        out = head_logprobs(head, hidden, torch.zeros(30, dtype=torch.long), torch.zeros(30, dtype=torch.long),
                            (TokenDistribution(1.0, 0, 1.0),), chunk=4)
    assert out.shape == (30,) and out.grad_fn is None
