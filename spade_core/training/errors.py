"""Typed errors of the training layer (advantages, regret, trainer backends, checkpoints)."""

from __future__ import annotations

from spade_core.errors import SpadeError


class TrainingError(SpadeError):
    """Base class of training errors."""


class TrainingConfigError(TrainingError, ValueError):
    """A training, advantage or regret setting is invalid; the message names the field and what it accepts."""


class TrainingInputError(TrainingError, ValueError):
    """``update()`` got inputs it cannot use (lengths differ, non-finite advantages, empty batch, ...)."""


class CheckpointError(TrainingError):
    """A checkpoint is missing, incomplete or does not fit the trainer (other model, other LoRA setting, ...)."""


class UnknownTrainerBackendError(TrainingError, LookupError):
    """No trainer-backend plugin has the requested name; the message lists the names that exist."""
