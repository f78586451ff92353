"""Novelty by behaviour: the ``behaviour`` stage fingerprints what the candidate does (off the driver, it plays the
candidate), the ``novelty`` stage compares that with every stored environment's fingerprint (on the driver, it
reads the memory). See :mod:`spade_core.memory.fingerprint` for what a fingerprint holds.
"""

from __future__ import annotations

import numpy as np

from spade_core.memory.behaviour import ScoreFn
from spade_core.memory.fingerprint import Similarity, describe, fingerprint
from spade_core.validation.candidate import Candidate
from spade_core.validation.config import NoveltyThresholds
from spade_core.validation.report import StageResult, Verdict


def score(thresholds: NoveltyThresholds) -> ScoreFn:
    """How close two fingerprints are, as one number in units of "at or above 1.0 is a near-duplicate": the larger
    of (mean of observed text and code shape) / ``combined``, when the dynamics agree text / ``text``, and the lower
    of dynamics and code shape / ``code_and_dynamics``."""

    def rank(text: np.ndarray, dynamics: np.ndarray, shape: np.ndarray) -> np.ndarray:
        mixed = (text + shape) / 2.0 / thresholds.combined
        same_behaviour = np.where(dynamics >= thresholds.dynamics, text / thresholds.text, 0.0)
        same_code = np.minimum(dynamics, shape) / thresholds.code_and_dynamics
        return np.maximum(np.maximum(mixed, same_behaviour), same_code)

    return rank


def why_duplicate(sim: Similarity, thresholds: NoveltyThresholds) -> str | None:
    """Which rule makes ``sim`` a near-duplicate, in words; None if it is not one."""
    if (sim.text + sim.shape) / 2.0 >= thresholds.combined:
        return (f"its observed text and code shape together (mean {(sim.text + sim.shape) / 2:.2f}) reach the "
                f"{thresholds.combined:.2f} threshold")
    if sim.dynamics >= thresholds.code_and_dynamics and sim.shape >= thresholds.code_and_dynamics:
        return (f"it has the same dynamics ({sim.dynamics:.2f}) and code shape ({sim.shape:.2f}), both >= "
                f"{thresholds.code_and_dynamics:.2f}, whatever its wording (text {sim.text:.2f})")
    if sim.dynamics >= thresholds.dynamics and sim.text >= thresholds.text:
        return (f"it behaves the same: observed text {sim.text:.2f} >= {thresholds.text:.2f} with dynamics "
                f"{sim.dynamics:.2f} >= {thresholds.dynamics:.2f}")
    return None


def check_behaviour(c: Candidate) -> StageResult:
    """Play the fixed probes on the candidate and keep its fingerprint (``c.fingerprint``)."""
    fp, record = fingerprint(c.source, c.new_env)
    c.fingerprint = fp
    details = describe(record)
    return StageResult("behaviour", Verdict.PASSED, f"fingerprinted {record.episodes} probe episodes "
                       f"({record.errors} ended in an error)", details=details)


def _own_record(c: Candidate) -> set[int]:
    """The stored record that is this candidate itself: an installed seed's own record (same content hash), which
    novelty does not compare it with; empty for any other candidate."""
    if c.installed_seed is None or c.store is None:
        return set()
    record = c.store.find_by_hash(c.content_hash)
    return set() if record is None else {record.rid}


def check_novelty(c: Candidate) -> StageResult:
    if c.memory is None:
        return StageResult("novelty", Verdict.SKIPPED, "no environment memory given, so the candidate was not "
                           "compared with stored environments (pass memory=..., or run `spade validate` with a store)")
    if c.fingerprint is None:
        return StageResult("novelty", Verdict.SKIPPED, "no behavioural fingerprint (the behaviour stage did not run)")
    thresholds = c.config.novelty
    own = _own_record(c)
    matches = [m for m in c.memory.nearest(c.fingerprint, 1 + len(own), score=score(thresholds)) if m.rid not in own]
    if not matches:
        return StageResult("novelty", Verdict.PASSED, "no stored environment to compare with")
    best = matches[0]
    reason = why_duplicate(best.similarity, thresholds)
    details = {"nearest": best.ref, "text": best.similarity.text, "dynamics": best.similarity.dynamics,
               "shape": best.similarity.shape}
    if reason is not None:
        c.duplicate_of = best.ref
        return StageResult(
            "novelty", Verdict.FAILED,
            f"near-duplicate of {best.ref}: {reason} ({best.similarity.describe()})",
            ["the same environment with renamed identifiers, changed constants or reworded comments"],
            ["write an environment that does something else: a different task, different rules or feedback"],
            details={**details, "duplicate_of": best.ref})
    return StageResult("novelty", Verdict.PASSED,
                       f"nearest stored environment {best.ref}: {best.similarity.describe()}", details=details)
