"""What a run directory says about the environments it made: the iteration that accepted each one and its regret
at every iteration that played it (read from ``metrics.jsonl``, for ``spade export --run``)."""

from __future__ import annotations

from pathlib import Path

from spade_core.packs.errors import PackError
from spade_core.packs.export import RunHistory
from spade_core.selfplay.metrics import read_metrics


def run_history(run_dir: str | Path) -> RunHistory:
    """The :class:`RunHistory` of ``run_dir``; a directory without metrics has none to give."""
    history = read_metrics(run_dir)
    if not history:
        raise PackError(f"{run_dir} has no finished iteration in metrics.jsonl; is it a `spade selfplay` run directory?")
    accepted: dict[str, int] = {}
    regret: dict[str, list[dict[str, float | int | None]]] = {}
    for metrics in history:
        for env_id in metrics.designer.accepted_ids:
            accepted.setdefault(env_id, metrics.iteration)
        for env_id, estimate in metrics.regret.per_env.items():
            regret.setdefault(env_id, []).append({"iteration": metrics.iteration, "regret": estimate.regret,
                                                  "p_hint": estimate.p_hint, "p_nohint": estimate.p_nohint})
    return RunHistory(run=Path(run_dir).resolve().name, accepted_in=accepted, regret=regret)
