"""Typed errors of the episode runner."""

from __future__ import annotations

from spade_core.errors import SpadeError


class RolloutError(SpadeError):
    """Base class of episode-runner errors (bad configuration or input; an episode's own failure is recorded)."""


class RolloutConfigError(RolloutError, ValueError):
    """A rollout setting is out of range; the message names the field and the accepted values."""


class ChatTemplateError(RolloutError):
    """The tokenizer's chat template cannot extend a conversation token-exactly (see the message for the fix)."""


class TrajectoryFormatError(RolloutError, ValueError):
    """A trajectory (or its JSON form) is inconsistent: lengths differ, spans overlap, fields are missing."""
