"""Scoring completions with the trained model: logprobs of a completion's kept tokens under the sampling
distribution each micro-batch was drawn from (temperature, top-k/top-p)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from spade_core.models.base import TokenDistribution
from spade_core.models.distribution import processed_logprobs, token_logprobs
from spade_core.training.errors import TrainingInputError


def truncated_logprobs(model: Any, input_ids: torch.Tensor, attention_mask: torch.Tensor, logits_to_keep: int,
                       distribution: TokenDistribution, *, batch_size: int, compute_entropy: bool,
                       autocast: Any) -> tuple[torch.Tensor, torch.Tensor | None, None]:
    """Logprobs (and entropies) of the last ``logits_to_keep`` tokens of each row under ``distribution``, in
    TRL's ``_get_per_token_logps_and_entropies`` layout; vocabulary logits only for those positions."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    decoder, head = base.get_decoder(), base.get_output_embeddings()
    logps, entropies = [], []
    for start in range(0, input_ids.size(0), batch_size):
        ids, mask = input_ids[start:start + batch_size], attention_mask[start:start + batch_size]
        with autocast():
            hidden = decoder(input_ids=ids, attention_mask=mask).last_hidden_state
            logits = head(hidden[:, -logits_to_keep - 1:-1])
        targets = ids[:, -logits_to_keep:]
        valid = mask[:, -logits_to_keep:].to(torch.float32)
        logps.append(token_logprobs(logits, targets, distribution) * valid)
        if compute_entropy:
            with torch.no_grad():
                logp = processed_logprobs(logits, distribution)
                entropy = -(logp.exp() * logp.masked_fill(torch.isinf(logp), 0.0)).sum(-1)
            entropies.append(entropy * valid)
    return torch.cat(logps), (torch.cat(entropies) if compute_entropy else None), None


class Scoring:
    """Which distribution TRL's loss scores completions under: each trajectory's own (its ``TokenDistribution``).

    A temperature only: TRL's fused LM head, whose temperature ``GRPOTrainer`` fixes when it is built
    (``add_fused_lm_head(temperature=...)`` closes over it); the designer samples at 0.8 while the agent samples at
    1.0, so this rewrites that closure cell (TRL is pinned to 1.16.x; when the cell cannot be found, only the
    configured temperature is accepted). With top-k or top-p: :func:`truncated_logprobs`, through the trainer's
    ``spade_distribution``.
    """

    def __init__(self, trainer: Any, models: Sequence[Any], initial: TokenDistribution) -> None:
        self.trainer = trainer
        self.distribution = initial
        self.current = initial.temperature
        trainer.spade_distribution = initial if initial.truncates else None
        self.cells: list[Any] | None = []
        for model in models:
            base = model.get_base_model() if hasattr(model, "get_base_model") else model
            cell = None
            for attr in ("forward", "_original_forward"):
                func = getattr(getattr(base, attr, None), "__func__", None)
                code = getattr(func, "__code__", None)
                if code is not None and "temperature" in code.co_freevars and func.__closure__:
                    cell = func.__closure__[code.co_freevars.index("temperature")]
                    break
            if cell is None:
                self.cells = None
                return
            self.cells.append(cell)

    def set(self, distribution: TokenDistribution) -> None:
        distribution = distribution.scoring
        self.distribution = distribution
        self.trainer.spade_distribution = distribution if distribution.truncates else None
        if distribution.truncates:
            return
        self._set_temperature(distribution.temperature)

    def _set_temperature(self, temperature: float) -> None:
        if temperature == self.current:
            return
        if self.cells is None:
            raise TrainingInputError(
                f"trajectories sampled at temperature {temperature}, but this TRL build scores logprobs only at "
                f"{self.current} (its fused LM head fixes the temperature); set TRLTrainerConfig.temperature to the "
                "rollout temperature"
            )
        for cell in self.cells:
            cell.cell_contents = temperature
        self.current = temperature


# --------------------------------------------------------------------------------------------------------------
# The backend
