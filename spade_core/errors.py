"""Typed errors for SPADE.

Every error says what was wrong, where, and how to fix it. Catch :class:`SpadeError` to handle any of them.
"""

from __future__ import annotations

from spade_registry.errors import (
    ForeignStoreError,
    InvalidIdError,
    ManifestError,
    RecordNotFoundError,
    ReservedNameError,
    SpadeError,
    StoreCorruptError,
    StoreError,
)

__all__ = [
    "ContractError",
    "EnvCodeError",
    "EnvLoadError",
    "EpisodeStateError",
    "ForeignStoreError",
    "InvalidIdError",
    "ManifestError",
    "PluginError",
    "RecordNotFoundError",
    "ReservedNameError",
    "SandboxCrashed",
    "SandboxError",
    "SandboxMemoryError",
    "SandboxPolicyError",
    "SandboxTimeout",
    "SpadeError",
    "StageListError",
    "StoreCorruptError",
    "StoreError",
]


class ContractError(SpadeError):
    """An environment returned a value that breaks the SPADE environment contract (docs/design.md §2)."""


class EpisodeStateError(SpadeError, RuntimeError):
    """``step`` was called before ``reset`` or after the episode ended; call ``reset`` first."""


class EnvLoadError(SpadeError):
    """Environment code could not be loaded (bad module, missing class, import failure)."""


class PluginError(SpadeError):
    """A plugin failed to load or its hook raised; the message names the plugin."""


class StageListError(PluginError):
    """The validation stage list cannot be built from what plugins add (``spade_validation_stages``): a stage without
    a budget, with an unknown or circular need, reading what no stage it needs exports, or reusing a name."""


class SandboxError(SpadeError):
    """Environment code failed while running contained; ``cause`` says how.

    Causes: ``timeout`` (a call ran past its wall-clock limit), ``memory`` (address-space limit),
    ``crashed`` (the worker died), ``policy`` (the static policy rejected the code or an operation),
    ``exception`` (the environment code itself raised).
    """

    cause = "error"

    def __init__(self, message: str, *, env_id: str | None = None) -> None:
        self.env_id = env_id
        where = f"{env_id}: " if env_id else ""
        super().__init__(f"{where}[{self.cause}] {message}")


class SandboxTimeout(SandboxError):
    """A call into environment code ran past its wall-clock or CPU limit."""

    cause = "timeout"


class SandboxMemoryError(SandboxError):
    """Environment code exceeded its memory limit."""

    cause = "memory"


class SandboxCrashed(SandboxError):
    """The worker process running the environment died (killed, segfault, exit)."""

    cause = "crashed"


class SandboxPolicyError(SandboxError):
    """The static policy refused the code (forbidden name, import or attribute); the message names the line."""

    cause = "policy"


class EnvCodeError(SandboxError):
    """Environment code raised an exception; the message carries its type, text and line."""

    cause = "exception"
