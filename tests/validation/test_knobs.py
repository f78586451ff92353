"""The determinism stage on difficulty knobs: a difficulty knob accepted and ignored is rejected, one that changes the
task on some seeds only is not."""

from __future__ import annotations

from pathlib import Path

from spade_core.contract.env import SpadeEnv
from spade_core.mutation.oracle import manifest_of
from spade_core.validation import validate_source
from spade_core.validation.config import ValidationConfig
from spade_core.validation.episodes import play, reference_policy
from spade_core.validation.pipeline import sandbox_handles
from spade_core.validation.stage_list import stage_named

SHAPES = Path(__file__).parent / "standard_shapes"
NIM = (SHAPES / "nim_resign_forfeit.py").read_text()
KEPT = "self.stones_max = stones"


def _failures(source: str) -> dict[str, str]:
    return {r.stage: r.observed for r in validate_source(source).failures}


def test_a_knob_accepted_and_ignored_is_rejected_at_determinism() -> None:
    assert KEPT in NIM
    failures = _failures(NIM.replace(KEPT, "self.stones_max = 25"))
    assert "determinism" in failures and "'stones'" in failures["determinism"] and "same reference and probe episodes" in failures["determinism"]
    assert "difficulty knob" in stage_named("determinism").rule


RARE = NIM.replace("self.seed_offset = rng.randint(0, 2)",
                   "self.seed_offset = rng.randint(0, 2)\n        if rng.random() < 0.5:\n"
                   "            self.stones = rng.randint(9, 9 + (self.stones_max - 9) // 4)\n"
                   "            while self.stones % 4 == 0:\n                self.stones = self.stones + 1\n"
                   "        else:\n            self.stones = 11 + 2 * rng.randint(0, 1)")
"""Nim whose pile knob matters only on the seeds (fewer than half) that draw a pile from its range."""


def _differing_seeds(source: str, seeds: list[int]) -> list[int]:
    manifest = manifest_of(source)
    handles = sandbox_handles(source, "knob-check")
    differ = []
    for seed in seeds:
        traces = []
        for value in (9, 40):
            env = SpadeEnv(manifest, handles, knobs={"stones": value})
            try:
                traces.append(play(env, seed, reference_policy).trace())
            finally:
                env.close()
        if traces[0] != traces[1]:
            differ.append(seed)
    return differ


def test_a_knob_that_matters_on_some_seeds_only_passes() -> None:
    seeds = list(ValidationConfig().seeds[: ValidationConfig().knob_seeds])
    differ = _differing_seeds(RARE, seeds)
    assert 0 < len(differ) < len(seeds), differ  # the knob changes some of the judged seeds, not all
    assert "determinism" not in _failures(RARE)


LIMITER = (SHAPES / "api_rate_limiter_class.py").read_text()
LENGTH = "n = 8 if i < 2 else self.calls"


def test_a_knob_that_sets_only_how_long_the_hidden_call_sequences_are_passes() -> None:
    """A class task whose knob lengthens the hidden tests' call sequences: the reference passes both, the first
    observation is the same, generic wrong programs fail both; single changes of the reference fare differently."""
    assert LENGTH in LIMITER
    assert "determinism" not in _failures(LIMITER)
    ignored = _failures(LIMITER.replace(LENGTH, "n = 8 if i < 2 else 12"))
    assert "determinism" in ignored and "'calls'" in ignored["determinism"], ignored
