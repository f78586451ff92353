"""Every knob of the validation pipeline, in one place."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ProbeThresholds:
    """Calibration probe verdicts: hinted success at or below ``impossible_below`` → impossible;
    unhinted success at or above ``trivial_above`` → trivial."""

    impossible_below: float = 0.0
    trivial_above: float = 1.0
    episodes: int = 8


@dataclass(frozen=True)
class ValidationConfig:
    """Seeds, thresholds and per-stage time budgets (seconds) of the pipeline."""

    seeds: tuple[int, ...] = tuple(range(10))
    reference_min_success: float = 0.9
    baseline_max_success: float = 0.1
    baseline_episodes: int = 10
    max_source_chars: int = 200_000
    call_timeout_s: float = 2.0
    stage_timeout_s: dict[str, float] = field(default_factory=lambda: {
        "instantiate": 10.0, "contract": 10.0, "determinism": 15.0, "start_state": 10.0, "baselines": 30.0,
        "reference": 30.0, "verifier": 20.0, "reward_range": 1.0, "hint": 20.0, "grounding": 5.0, "novelty": 10.0,
        "calibration": 60.0,
    })
    grounding_min_overlap: int = 2
    near_duplicate_similarity: float = 0.97
    probe: ProbeThresholds = field(default_factory=ProbeThresholds)

    def budget(self, stage: str) -> float:
        return self.stage_timeout_s.get(stage, 10.0)
