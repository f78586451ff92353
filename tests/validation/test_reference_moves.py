"""The reference stage on games: the reference plays every seat and never makes a move the game refuses."""

from __future__ import annotations

from pathlib import Path

from spade_core.validation import validate_source

NIM = (Path(__file__).parent / "gate" / "good" / "nim_duel.py").read_text()
STRATEGY = "if nim_sum and target < self.heaps[h]:"


def test_a_reference_that_plays_a_refused_move_fails_at_reference() -> None:
    assert STRATEGY in NIM and validate_source(NIM).accepted
    # the strategy's bound dropped: where the nim-sum is not zero it takes a negative count from the first heap
    report = validate_source(NIM.replace(STRATEGY, "if nim_sum:"))
    failures = {r.stage: r for r in report.failures}
    assert "reference" in failures, report.message  # baselines may fail too: a seat that forfeits loses to anything
    observed = failures["reference"].observed
    assert "is refused by the game" in observed and "turn 1" in observed
