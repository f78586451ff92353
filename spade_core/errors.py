"""Typed errors for SPADE.

Every error says what was wrong, where, and how to fix it. Catch :class:`SpadeError` to handle any of them.
"""

from __future__ import annotations


class SpadeError(Exception):
    """Base class of every error SPADE raises on purpose."""


class ManifestError(SpadeError, ValueError):
    """An environment's ``ENV_SPEC`` manifest is missing, malformed or out of range."""

    def __init__(self, field: str, problem: str, *, source: str = "ENV_SPEC") -> None:
        self.field = field
        self.problem = problem
        self.source = source
        super().__init__(f"{source}: field {field!r}: {problem}")


class ContractError(SpadeError):
    """An environment returned a value that breaks the SPADE environment contract (docs/design.md §2)."""


class EpisodeStateError(SpadeError, RuntimeError):
    """``step`` was called before ``reset`` or after the episode ended; call ``reset`` first."""


class EnvLoadError(SpadeError):
    """Environment code could not be loaded (bad module, missing class, import failure)."""


class StoreError(SpadeError):
    """Base class for registry store problems."""


class ReservedNameError(StoreError):
    """A designer environment's name collides with a bundled (trusted) environment's name."""


class StoreCorruptError(StoreError):
    """The store file exists but is not a readable SQLite database."""


class ForeignStoreError(StoreError):
    """The store file is a SQLite database that SPADE did not create."""


class RecordNotFoundError(StoreError, KeyError):
    """No record with the requested id exists in the store."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else "record not found"


class InvalidIdError(SpadeError, ValueError):
    """An environment name or id does not follow the ``spade/<Name>-v<N>`` format."""


class PluginError(SpadeError):
    """A plugin failed to load or its hook raised; the message names the plugin."""


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
