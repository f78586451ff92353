"""Typed errors for document corpora; each says what is wrong, where, and how to fix it."""

from __future__ import annotations

from spade_core.errors import SpadeError


class CorpusError(SpadeError):
    """Base class of every corpus problem."""


class CorpusNotFoundError(CorpusError, FileNotFoundError):
    """The corpus file, package or dataset is not there (SPADE never downloads one)."""


class CorpusFormatError(CorpusError, ValueError):
    """The corpus content is malformed: a bad JSON line, a missing field, a value of the wrong type."""


class CorpusConfigError(CorpusError, ValueError):
    """The corpus was asked for something impossible: unknown fields, weights that exclude every document."""


class DocumentNotFoundError(CorpusError, KeyError):
    """No document with the requested id exists in the corpus."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else "document not found"
