"""The validation pipeline: the gate between what the designer writes and what the agent trains on."""

from spade_core.validation.config import GroundingThresholds, NoveltyThresholds, ProbeThresholds, ValidationConfig
from spade_core.validation.pipeline import validate_many, validate_source
from spade_core.validation.report import StageResult, ValidationReport, Verdict
from spade_core.validation.stage_list import STAGE_NAMES, STAGES, Stage

__all__ = [
    "STAGES", "STAGE_NAMES", "GroundingThresholds", "NoveltyThresholds", "ProbeThresholds", "Stage", "StageResult",
    "ValidationConfig", "ValidationReport", "Verdict", "validate_many", "validate_source",
]
