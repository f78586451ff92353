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
    assert report.failed_stage == "reference", report.message
    assert "is refused by the game" in report.message and "turn 1" in report.message
