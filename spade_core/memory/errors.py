"""Typed errors for the environment memory."""

from __future__ import annotations

from spade_core.errors import SpadeError


class MemoryArchiveError(SpadeError):
    """Base class of environment-memory problems."""


class EmbedderUnavailableError(MemoryArchiveError):
    """The embedding model cannot be loaded (package missing or broken); the message says how to install it."""


class EmbeddingError(MemoryArchiveError, ValueError):
    """A vector has the wrong shape or dimension for this memory (e.g. the store holds another model's vectors)."""
