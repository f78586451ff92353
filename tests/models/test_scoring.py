"""Chunked scoring (``spade_core.models.scoring``) gives the logprobs of a whole-logits forward, chunk by chunk."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM

from spade_core.models.scoring import decoder_and_head, next_token_logprobs


def whole(model: torch.nn.Module, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    logits = model(input_ids=ids, attention_mask=mask).logits[:, :-1]
    return torch.log_softmax(logits.float(), -1).gather(-1, ids[:, 1:, None])[..., 0]


def untempered(logits: torch.Tensor, targets: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(logits.float(), -1).gather(-1, targets[:, None])[:, 0]


@pytest.mark.parametrize("chunk", [1, 5, 64, 10_000])
def test_chunked_scores_equal_a_whole_forward_with_padding(tiny_model_dir: Path, chunk: int) -> None:
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    assert decoder_and_head(model) is not None
    ids = torch.randint(3, model.config.vocab_size, (3, 17), generator=torch.Generator().manual_seed(chunk))
    mask = torch.ones_like(ids)
    mask[1, 11:] = 0  # a right-padded row
    mask[2, 4:] = 0
    with torch.no_grad():
        expected = whole(model, ids, mask)
        got = next_token_logprobs(model, ids, mask, untempered, chunk=chunk)
    assert got.shape == expected.shape == (3, 16)
    for row, length in enumerate((17, 11, 4)):
        torch.testing.assert_close(got[row, :length - 1], expected[row, :length - 1], atol=1e-5, rtol=1e-5)


def test_each_chunk_sees_its_positions_rows(tiny_model_dir: Path) -> None:
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    ids = torch.randint(3, model.config.vocab_size, (4, 6), generator=torch.Generator().manual_seed(0))

    def row_number(logits: torch.Tensor, targets: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        return rows.float()

    with torch.no_grad():
        got = next_token_logprobs(model, ids, torch.ones_like(ids), row_number, chunk=7)
    assert torch.equal(got, torch.arange(4.0)[:, None].expand(4, 5))


def test_a_model_without_a_known_decoder_is_scored_whole(tiny_model_dir: Path) -> None:
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()

    class Opaque(torch.nn.Module):  # only forward(): no get_decoder / get_output_embeddings
        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, **kwargs: torch.Tensor) -> object:
            return self.inner(**kwargs)

    ids = torch.randint(3, model.config.vocab_size, (2, 9), generator=torch.Generator().manual_seed(1))
    mask = torch.ones_like(ids)
    assert decoder_and_head(Opaque()) is None
    with torch.no_grad():
        torch.testing.assert_close(next_token_logprobs(Opaque(), ids, mask, untempered, chunk=2),
                                   whole(model, ids, mask))
