"""Policy refusals inside a sandbox worker: the exception a guard raises and the per-call record of refusals.

A refusal raises :class:`PolicyViolation`, a ``BaseException`` so ``except Exception`` in environment code does not
swallow it, and is also recorded in :data:`VIOLATIONS`, so even code that catches it with a bare ``except:`` has the
call reported as a policy error. Both the guards (:mod:`.guards`) and the stand-in modules (:mod:`.allowlist`)
refuse through :func:`violation`.
"""

from __future__ import annotations

MAX_RECORDED = 16
"""Refusals kept per call (the first one is what the error reports)."""

VIOLATIONS: list[str] = []
"""Policy refusals seen during the current call (cleared by the worker before each call)."""


class PolicyViolation(BaseException):
    """A runtime guard refused an operation (forbidden attribute, import, write, or output size)."""


def violation(message: str) -> PolicyViolation:
    """Record a refusal for the current call and return the exception to raise."""
    if len(VIOLATIONS) < MAX_RECORDED:
        VIOLATIONS.append(message)
    return PolicyViolation(message)
