"""Ablation plans: several self-play runs that share a base config and differ in a few knobs (``configs/
ablations.yaml``), and the held-out comparison recipe for them.

A plan file has ``base`` (a self-play config mapping), ``runs`` (name -> the knobs that run changes) and ``eval``
(``baseline``: the run every other one is compared with; ``suites``: the held-out suites of ``spade eval``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from spade_core.selfplay.config import SelfPlayConfig
from spade_core.typed_config import ConfigError, apply_overrides, from_dict, merge_mappings, to_dict

NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")


@dataclass(frozen=True)
class EvalPlan:
    baseline: str
    suites: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class AblationPlan:
    """The runs of one comparison: each run's config is ``base`` merged with the run's own knobs."""

    base: dict[str, Any]
    runs: dict[str, dict[str, Any]]
    eval: EvalPlan

    def config(self, name: str, *, root: str | Path, overrides: list[str] | None = None) -> SelfPlayConfig:
        """The run's full, validated config, writing to ``root/name`` (``overrides``: ``a.b=v``, after the plan)."""
        if name not in self.runs:
            raise ConfigError(f"no run {name!r} in the plan (runs: {', '.join(self.runs)})")
        data = merge_mappings(merge_mappings(to_dict(SelfPlayConfig()), self.base), self.runs[name])
        data = apply_overrides(data, list(overrides or []))
        data["run_dir"] = str(Path(root) / name)
        return from_dict(SelfPlayConfig, data, where=f"ablations.{name}")

    def select(self, only: list[str] | None) -> list[str]:
        if not only:
            return list(self.runs)
        unknown = [n for n in only if n not in self.runs]
        if unknown:
            raise ConfigError(f"--only: no run {unknown[0]!r} in the plan (runs: {', '.join(self.runs)})")
        return [n for n in self.runs if n in only]

    def eval_commands(self, root: str | Path, finished: dict[str, Path]) -> list[str]:
        """The held-out evaluation of every finished run's final policy, then each compared with the baseline."""
        root = Path(root)
        suites = " ".join(f"--suite {s}" for s in self.eval.suites)
        lines = [f"spade eval --model hf:{model} {suites} --out {root / name / 'eval'}"
                 for name, model in finished.items()]
        lines += [f"spade eval --compare {root / self.eval.baseline / 'eval'} {root / name / 'eval'}"
                  for name in finished if name != self.eval.baseline]
        return lines


def load_plan(path: str | Path) -> AblationPlan:
    """Read and check a plan file: every run's config must build (unknown keys and wrong types are named)."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read the ablation plan {path}: {exc}") from exc
    if not isinstance(data, dict) or set(data) - {"base", "runs", "eval"}:
        raise ConfigError(f"{path}: the plan holds 'base', 'runs' and 'eval' only")
    runs = data.get("runs") or {}
    if not isinstance(runs, dict) or not runs:
        raise ConfigError(f"{path}: 'runs' must map run names to the knobs each run changes")
    for name, knobs in runs.items():
        if not isinstance(name, str) or not name or set(name) - NAME_CHARS:
            raise ConfigError(f"{path}: run name {name!r} must use lowercase letters, digits, '_' or '-'")
        if knobs is not None and not isinstance(knobs, dict):
            raise ConfigError(f"{path}: run {name!r} must be a mapping of knobs, got {knobs!r}")
    evaluation = from_dict(EvalPlan, data.get("eval") or {"baseline": next(iter(runs))}, where="eval")
    if evaluation.baseline not in runs:
        raise ConfigError(f"{path}: eval.baseline {evaluation.baseline!r} is not one of the runs")
    base = data.get("base") or {}
    if not isinstance(base, dict):
        raise ConfigError(f"{path}: 'base' must be a self-play config mapping")
    plan = AblationPlan(base, {name: dict(knobs or {}) for name, knobs in runs.items()}, evaluation)
    for name in plan.runs:
        plan.config(name, root="runs")  # raises on the first bad key or value
    return plan
