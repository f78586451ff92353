"""Typed errors of the evaluation harness (``spade eval``); each message says what to do next."""

from __future__ import annotations

from spade_core.errors import SpadeError
from spade_core.models.errors import ModelSpecError

__all__ = ["BenchmarkDataError", "BenchmarkUnavailableError", "EvaluationError", "ModelSpecError", "RunDirError",
           "SuiteNotFoundError"]


class EvaluationError(SpadeError):
    """Base class of evaluation errors (bad suite name, missing benchmark package, unreadable run)."""


class SuiteNotFoundError(EvaluationError, KeyError):
    """No installed plugin provides a suite of that name; the message lists the known ones."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else "suite not found"


class BenchmarkUnavailableError(EvaluationError):
    """A suite needs a package that is not installed (e.g. ``bfcl-eval``); the message gives the install command."""


class BenchmarkDataError(EvaluationError, ValueError):
    """A benchmark file or entry is malformed (a JSONL line without a question, ground truth that does not parse)."""


class RunDirError(EvaluationError):
    """An evaluation run directory is missing or does not hold the files ``spade eval`` writes."""

