"""Model backends: one interface for generating text and tokens for the designer and agent roles."""

from spade_core.models.base import Generation, ModelBackend, SamplingParams

__all__ = ["Generation", "ModelBackend", "SamplingParams"]
