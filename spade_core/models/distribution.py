"""The sampling distribution as tensors: what the sampler draws from and what trainers score tokens under.

One rule for every role, backend and trainer (:class:`~spade_core.models.base.TokenDistribution` describes it):
divide the logits by the temperature, keep the ``top_k`` highest (ties with the k-th kept), then the nucleus of
``top_p`` (a token stays while the mass ranked strictly above it is below ``top_p``; the first always stays),
renormalise. It is vLLM's ``processed_logprobs`` (top-k before top-p, same tie and boundary rules). Greedy decoding
records the untempered, untruncated logprob.

:func:`processed_logprobs` gives the whole distribution (``-inf`` outside the kept set: sampling from it can never
pick such a token). :func:`token_logprobs` scores given tokens for a trainer, differentiably; a token outside the
kept set (possible only once the policy has moved away from the sampler) gets :data:`LOGPROB_FLOOR` instead of
``-inf``, so importance ratios, KL terms and metrics stay finite and such a token carries no gradient.
"""

from __future__ import annotations

import math

import torch

from spade_core.models.base import TokenDistribution

LOGPROB_FLOOR = math.log(torch.finfo(torch.float32).tiny)  # about -87.3: "never sampled", yet finite
KEPT_CHUNK_POSITIONS = 64  # positions whose top-k / top-p sets are computed at once


def kept_tokens(scores: torch.Tensor, distribution: TokenDistribution) -> torch.Tensor | None:
    """Boolean ``[..., V]`` mask of the tokens ``distribution`` may sample from tempered ``scores`` (``None``:
    every token). Not differentiable (a set, not a value).

    Positions are taken :data:`KEPT_CHUNK_POSITIONS` at a time: the nucleus needs a sorted copy of the vocabulary
    and its int64 order per position, about 10x the scores' own size, which for a trainer scoring a few hundred
    designer tokens at once would otherwise be a gigabyte."""
    top_k, top_p = distribution.top_k, distribution.top_p
    vocab = scores.shape[-1]
    if (not top_k or top_k >= vocab) and top_p >= 1.0:
        return None
    with torch.no_grad():
        flat = scores.detach().reshape(-1, vocab)
        keep = torch.empty(flat.shape, dtype=torch.bool, device=flat.device)
        for start in range(0, flat.shape[0], KEPT_CHUNK_POSITIONS):
            end = start + KEPT_CHUNK_POSITIONS
            keep[start:end] = _kept(flat[start:end], top_k, top_p)
    return keep.view(scores.shape)


def _kept(scores: torch.Tensor, top_k: int, top_p: float) -> torch.Tensor:
    """:func:`kept_tokens` of ``[N, V]`` scores (no gradient)."""
    vocab = scores.shape[-1]
    keep = torch.ones_like(scores, dtype=torch.bool)
    if top_k and top_k < vocab:
        kth = torch.topk(scores, top_k, dim=-1).values[..., -1:]
        keep = scores >= kth
    if top_p < 1.0:
        masked = scores.masked_fill(~keep, float("-inf"))
        sorted_scores, order = torch.sort(masked, descending=True, dim=-1)
        probs = torch.softmax(sorted_scores, -1)
        drop = (probs.cumsum(-1) - probs) >= top_p  # the mass ranked above this token already reaches top_p
        drop[..., 0] = False
        keep = keep & ~torch.zeros_like(drop).scatter(-1, order, drop)
    return keep


def processed_logprobs(logits: torch.Tensor, distribution: TokenDistribution) -> torch.Tensor:
    """Log-probabilities ``[..., V]`` (fp32) of the distribution a token is drawn from; ``-inf`` outside it."""
    scoring = distribution.scoring
    scores = logits.float() / scoring.temperature
    keep = kept_tokens(scores, scoring)
    if keep is not None:
        scores = scores.masked_fill(~keep, float("-inf"))
    return torch.log_softmax(scores, -1)


def token_logprobs(logits: torch.Tensor, targets: torch.Tensor, distribution: TokenDistribution) -> torch.Tensor:
    """``log p(target)`` per position under ``distribution`` (fp32, differentiable), floored at :data:`LOGPROB_FLOOR`.

    ``logits`` is ``[..., V]`` and ``targets`` ``[...]``. Without truncation this is a gather minus a logsumexp (no
    ``[..., V]`` log-softmax is kept for backward)."""
    scoring = distribution.scoring
    scores = logits.float() / scoring.temperature
    keep = kept_tokens(scores, scoring)
    index = targets[..., None]
    if keep is None:
        return scores.gather(-1, index)[..., 0] - torch.logsumexp(scores, dim=-1)
    scores = scores.masked_fill_(~keep, float("-inf"))  # in place: a division's backward does not need its output
    picked = scores.gather(-1, index)[..., 0] - torch.logsumexp(scores, dim=-1)
    inside = keep.gather(-1, index)[..., 0]
    return torch.where(inside, picked, torch.full_like(picked, LOGPROB_FLOOR))


def sample_tokens(logits: torch.Tensor, distribution: TokenDistribution,
                  generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """One token per row of ``logits`` ``[B, V]`` and its logprob under the distribution it was drawn from
    (greedy: the arg-max and its untempered logprob)."""
    logp = processed_logprobs(logits, distribution)
    if distribution.greedy:
        tokens = logits.argmax(-1)
    else:
        tokens = torch.multinomial(logp.exp(), 1, generator=generator)[:, 0]
    return tokens, logp.gather(-1, tokens[:, None])[:, 0]
