"""The check after every weight push: does the generator now score tokens as the trainer does?

A trainer that samples through a separate engine (vLLM) pushes its weights after each update. A push that silently
misses tensors (a renamed parameter, a fused projection that was not reloaded, a partial update of embeddings and
norms only) leaves the engine sampling from a policy the trainer does not have, and every importance ratio after
that is wrong while the run looks healthy. So after each push the trainer scores a probe batch of sequences with
both and compares:

- ``new``: the trainer's logprobs after the update (what the engine must now match);
- ``old``: the trainer's logprobs before the update (what a stale engine would still match);
- ``engine``: the engine's logprobs after the push.

The push is broken when the engine is farther from ``new`` than ``tolerance`` (mean absolute difference over
probe tokens), or when the update moved the policy measurably and the engine is still closer to ``old`` than to
``new``. Both mean a loud :class:`WeightSyncMismatchError`, never a warning.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from spade_core.errors import SpadeError
from spade_core.training.settings import DEFAULT_TOLERANCE


class WeightSyncMismatchError(SpadeError):
    """After a weight push the generator's logprobs do not match the trainer's; sampling would be off-policy."""


@dataclass(frozen=True)
class LogprobAgreement:
    """How well the generator agrees with the trainer on the probe batch after a push."""

    sequences: int
    tokens: int
    mean_abs_diff: float  # engine vs trainer after the update
    max_abs_diff: float
    update_shift: float  # trainer after vs before the update (how far the update moved the policy)
    stale_diff: float  # engine vs trainer before the update (small when the engine kept the old weights)
    tolerance: float

    @property
    def stale(self) -> bool:
        """The update moved the policy measurably, and the engine still agrees better with the old one."""
        return self.update_shift > 2 * self.tolerance and self.stale_diff <= self.mean_abs_diff

    @property
    def ok(self) -> bool:
        return self.mean_abs_diff <= self.tolerance and not self.stale

    def metrics(self) -> dict[str, float]:
        """Scalars for the per-update metrics (prefixed ``sync_``)."""
        values = asdict(self)
        values.pop("tolerance")
        return {f"sync_{k}": float(v) for k, v in values.items()} | {"sync_ok": float(self.ok)}


def compare_logprobs(engine: Sequence[Sequence[float]], new: Sequence[Sequence[float]],
                     old: Sequence[Sequence[float]] | None = None, *, tolerance: float = DEFAULT_TOLERANCE) -> LogprobAgreement:
    """Compare per-token logprobs of the same probe sequences (each list aligned with ``tokens[1:]``)."""
    if len(engine) != len(new) or (old is not None and len(old) != len(new)):
        raise WeightSyncMismatchError(
            f"probe scores disagree in count: engine {len(engine)}, trainer {len(new)}"
            + (f", trainer before the update {len(old)}" if old is not None else "")
        )
    total = worst = shift = stale = 0.0
    tokens = 0
    for i, (e_row, n_row) in enumerate(zip(engine, new)):
        o_row = old[i] if old is not None else n_row
        if not len(e_row) == len(n_row) == len(o_row):
            raise WeightSyncMismatchError(
                f"probe sequence {i}: the engine scored {len(e_row)} tokens, the trainer {len(n_row)}; both must "
                "score every token after the first"
            )
        for e, n, o in zip(e_row, n_row, o_row):
            diff = abs(e - n)
            total += diff
            worst = max(worst, diff)
            shift += abs(n - o)
            stale += abs(e - o)
            tokens += 1
    count = max(tokens, 1)
    return LogprobAgreement(
        sequences=len(new), tokens=tokens, mean_abs_diff=total / count, max_abs_diff=worst,
        update_shift=shift / count if old is not None else 0.0, stale_diff=stale / count if old is not None else 0.0,
        tolerance=tolerance,
    )


def require_agreement(agreement: LogprobAgreement, *, engine: str) -> LogprobAgreement:
    """Raise :class:`WeightSyncMismatchError` unless the push is verified."""
    if agreement.ok:
        return agreement
    if agreement.stale:
        cause = (f"the update moved the policy by {agreement.update_shift:.4f} nats/token, yet {engine} still "
                 f"scores like the old weights ({agreement.stale_diff:.4f} from them, "
                 f"{agreement.mean_abs_diff:.4f} from the new ones)")
    else:
        cause = (f"{engine} differs from the trainer by {agreement.mean_abs_diff:.4f} nats/token on average "
                 f"(max {agreement.max_abs_diff:.4f}) over {agreement.tokens} probe tokens; tolerance "
                 f"{agreement.tolerance}")
    raise WeightSyncMismatchError(
        f"weight push not verified: {cause}. Some weights did not reach the engine (check the parameter names it "
        "loads, fused or tied weights, LoRA merging) or its dtype differs from the trainer's; the run stops rather "
        "than train on off-policy samples"
    )


def probe_sequences(trajectories: Sequence[Any], count: int) -> list[list[int]]:
    """The ``count`` shortest token sequences among ``trajectories`` (cheap to score, still the trained policy's)."""
    ranked = sorted(trajectories, key=lambda t: len(t.token_ids))
    return [list(t.token_ids) for t in ranked[:count]]


def policy_weights(model: Any, *, lora: bool) -> Iterator[tuple[str, Any]]:
    """What a push sends: each weight of the trained ``model`` under the base model's own names, one at a time.

    LoRA adapters are merged in (beside the model, ``spade_core.training.lora.merged_weights``); a sharded weight is
    gathered whole (a collective: all ranks iterate together)."""
    if lora:
        from spade_core.training.lora import merged_weights

        yield from merged_weights(model)
        return
    from spade_core.training.sharding import full_tensor

    for name, value in model.state_dict().items():
        yield name, full_tensor(value.detach())


def chunk_weights(items: Iterable[tuple[str, Any]], max_mb: float) -> Iterator[dict[str, Any]]:
    """``(name, tensor)`` pairs grouped into state dicts of about ``max_mb`` each (a push, piece by piece).

    Pairs are drawn lazily, so a trainer that computes each tensor on demand (merged adapters, gathered shards)
    holds at most one piece at a time."""
    limit = max_mb * 2**20
    chunk: dict[str, Any] = {}
    size = 0
    for name, value in items:
        chunk[name] = value
        size += value.numel() * value.element_size()
        if size >= limit:
            yield chunk
            chunk, size = {}, 0
    if chunk:
        yield chunk


def push_and_verify(generator: Any, pieces: Iterable[Mapping[str, Any]], *,
                    probe: Sequence[Sequence[int]], before: Sequence[Sequence[float]],
                    trainer_scores: Callable[[Sequence[Sequence[int]]], list[list[float]]],
                    tolerance: float) -> tuple[dict[str, float], LogprobAgreement | None]:
    """Push the weights to ``generator`` piece by piece (partial state dicts, e.g. from :func:`chunk_weights`), then
    verify them on ``probe`` (scored by the trainer ``before`` the update).

    Returns the ``sync_*`` metrics and the agreement (``None`` without a probe); raises
    :class:`WeightSyncMismatchError` when the push does not verify."""
    started = time.perf_counter()
    for piece in pieces:
        generator.sync_weights(dict(piece))
    agreement = None
    metrics: dict[str, float] = {}
    if probe:
        new = trainer_scores(probe)
        name = getattr(generator, "name", "the generator")
        # a pool of engines (e.g. Ray generator actors) is verified engine by engine; the worst one is reported
        engines = generator.score_each(probe) if hasattr(generator, "score_each") else [generator.score(probe)]
        agreements = [compare_logprobs(scores, new, before, tolerance=tolerance) for scores in engines]
        for index, each in enumerate(agreements):
            require_agreement(each, engine=name if len(agreements) == 1 else f"{name} engine {index}")
        agreement = max(agreements, key=lambda a: a.mean_abs_diff)
        metrics = agreement.metrics() | ({"sync_engines": float(len(agreements))} if len(agreements) > 1 else {})
    metrics["sync_seconds"] = time.perf_counter() - started
    return metrics, agreement
