"""Errors of the model backends: loading, serving, generating, weight sync (one place, imported everywhere)."""

from __future__ import annotations

from spade_core.errors import SpadeError


class ModelSpecError(SpadeError, ValueError):
    """A model spec (``--model``, ``model.spec``, ``designer.model``) names no backend that can be loaded; the
    message says what is wrong and lists the accepted forms (:mod:`spade_core.models.spec`)."""


class ModelLoadError(SpadeError):
    """A model or tokenizer could not be found, converted or loaded; the message says which file and how to fix it."""


class BackendError(SpadeError):
    """A model backend failed in a way that is not specific to one request."""


class BackendUnavailableError(BackendError):
    """A backend cannot run here: its package, hardware or server is missing; the message says how to get it."""


class GenerationError(SpadeError):
    """A generation request cannot be served (bad sampling parameters, missing chat template, ...)."""


class WeightSyncError(SpadeError):
    """``sync_weights`` got a state dict that does not fit the generator's model."""
