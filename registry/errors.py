"""The errors the registry store raises, and the base class of every SPADE error.

They live in the registry package, the lowest layer (``spade_core`` builds on it and never the other way round);
:mod:`spade_core.errors` imports them, so ``except spade_core.errors.SpadeError`` catches these too.
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


class StoreError(SpadeError):
    """Base class for registry store problems."""


class ReservedNameError(StoreError):
    """A designer environment's name collides with a bundled (trusted) environment's name."""


class BadRecordError(StoreError):
    """One stored record is outside the store's schema (written by an older store or by hand); the others are not."""

    def __init__(self, rid: object, reason: str) -> None:
        self.rid = rid
        self.reason = reason
        super().__init__(f"record #{rid} cannot be read: {reason}; it is left out (remove it with raw SQL or "
                         "re-create the store)")


class StoreCorruptError(StoreError):
    """The store file exists but is not a readable SQLite database."""


class ForeignStoreError(StoreError):
    """The store file is a SQLite database that SPADE did not create."""


class RecordNotFoundError(StoreError, KeyError):
    """No record with the requested id exists in the store."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else "record not found"


class InvalidIdError(SpadeError, ValueError):
    """An environment name or id does not follow the id grammar (`registry/ids.py`): ``<namespace>/<Name>-v<N>`` with
    a namespace of ``NAMESPACES`` (``spade`` for seeds and designed environments, ``spade-pack`` for imported ones)."""
