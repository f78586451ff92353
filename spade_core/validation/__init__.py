"""The validation pipeline: the gate between what the designer writes and what the agent trains on."""

from spade_core.validation.config import ProbeThresholds, ValidationConfig
from spade_core.validation.pipeline import validate_many, validate_source
from spade_core.validation.report import StageResult, ValidationReport

__all__ = ["ProbeThresholds", "StageResult", "ValidationConfig", "ValidationReport", "validate_many", "validate_source"]
