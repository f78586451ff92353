"""The errors a pack raises: a pack that cannot be read at all (its index or layout is broken)."""

from __future__ import annotations

from spade_registry.errors import SpadeError


class PackError(SpadeError):
    """A pack cannot be read or written (missing, unsafe or malformed); the message names the file and field."""


class PackFormatError(PackError, ValueError):
    """A pack file is malformed: ``file`` and ``field`` say where, ``problem`` what."""

    def __init__(self, file: str, field: str, problem: str) -> None:
        self.file = file
        self.field = field
        self.problem = problem
        super().__init__(f"{file}: field {field!r}: {problem}")


class PackRefusedError(PackError):
    """The pack as a whole is unsafe to read (a path leaving it, a link, a size or member count over its limit)."""
