"""The designer's reward cannot be hacked by a hint that carries the answer: one test per gate, on hand-made
rollouts (the hint-only arm; the learnability gate with claw-back)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.rollout.trajectory import Trajectory, Turn
from spade_core.training.errors import TrainingConfigError, TrainingInputError
from spade_core.training.learnability import LearnabilityConfig, LearnabilityLedger
from spade_core.training.regret import RegretConfig, estimate_regret, paired_specs, regret_from_trajectories

DEFENDED = RegretConfig(k=8)
UNDEFENDED = RegretConfig(k=8, objective="regret")


def played(seed: int, arm: str, success: bool, *, failure: str | None = None) -> Trajectory:
    turn = Turn(0, 0, 1, "a", float(success))
    return Trajectory(env_id="e", role="agent", group_id=f"e|{arm}", episode_id=f"{seed}-{arm}", token_ids=[1],
                      loss_mask=[1], logprobs=[0.0], prompt_length=0, turns=[turn], success=success,
                      hinted=arm != "unhinted", hint_only=arm == "hint_only", seed=seed, failure=failure)


def rollouts(hinted: list[int], unhinted: list[int], hint_only: list[int]) -> list[Trajectory]:
    out = []
    for seed, (h, u, o) in enumerate(zip(hinted, unhinted, hint_only)):
        out += [played(seed, "hinted", bool(h)), played(seed, "unhinted", bool(u)), played(seed, "hint_only", bool(o))]
    return out


# -- the hint-only arm ---------------------------------------------------------------------------------------------
def test_a_hint_that_solves_the_task_alone_earns_nothing() -> None:
    """Hint-only success 1: the highest regret there is (7/8 hinted, 1/8 unhinted) and no reward."""
    trajectories = rollouts([1] * 7 + [0], [1] + [0] * 7, [1] * 8)
    undefended = regret_from_trajectories(trajectories, UNDEFENDED)
    defended = regret_from_trajectories(trajectories, DEFENDED)
    assert undefended.gate == "scored" and undefended.reward == pytest.approx(0.6)  # (8 - 2) / 10: paid in full
    assert defended.regret == undefended.regret  # the same estimate ...
    assert (defended.gate, defended.reward) == ("hint_only", 0.0)  # ... and nothing paid
    assert defended.rates == {"hinted": 7 / 8, "unhinted": 1 / 8, "hint_only": 1.0}


def test_a_hint_that_helps_only_with_the_task_is_paid_as_regret() -> None:
    """The edge: the hint alone does no better than the task alone, so the defended reward is the regret."""
    trajectories = rollouts([1, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 1, 0])
    defended = regret_from_trajectories(trajectories, DEFENDED)
    assert defended.gate == "scored" and defended.reward == regret_from_trajectories(trajectories, UNDEFENDED).reward
    assert defended.reward > 0 and defended.hint_only_episodes == 8 and defended.hint_only_successes == 1


@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=16))
def test_the_defended_reward_never_exceeds_the_undefended_one(rows) -> None:
    h, u, o = ([float(r[i]) for r in rows] for i in range(3))
    defended = estimate_regret(h, u, DEFENDED, hint_only=o)
    undefended = estimate_regret(h, u, UNDEFENDED, hint_only=o)
    assert defended.reward <= undefended.reward
    assert defended.regret == undefended.regret
    if sum(o) > sum(u) and 0 < sum(h) and sum(u) < len(u):
        assert (defended.gate, defended.reward) == ("hint_only", 0.0)


def test_the_hint_only_arm_is_played_when_the_objective_reads_it() -> None:
    arms = [(s.seed, s.hinted, s.hint_only) for s in paired_specs("e", [3], hint_only=DEFENDED.hint_only_arm)]
    assert arms == [(3, True, False), (3, False, False), (3, True, True)]
    assert len(paired_specs("e", [3], hint_only=UNDEFENDED.hint_only_arm)) == 2


def test_a_seed_missing_its_hint_only_episode_or_with_a_failed_one_is_handled() -> None:
    trajectories = rollouts([1, 1], [0, 0], [1, 1])
    with pytest.raises(TrainingInputError, match="no hint_only episode"):
        regret_from_trajectories(trajectories[:-1], DEFENDED)
    broken = trajectories[:-1] + [played(1, "hint_only", False, failure="env_error")]
    estimate = regret_from_trajectories(broken, DEFENDED)
    assert (estimate.pairs, estimate.failed_pairs) == (1, 1)
    with pytest.raises(TrainingInputError, match="one per seed"):
        estimate_regret([1, 1], [0, 0], DEFENDED, hint_only=[1])


# -- the learnability gate with claw-back --------------------------------------------------------------------------
def test_an_environment_that_never_becomes_learnable_is_retired_and_its_reward_clawed_back() -> None:
    """Unhinted success stays at chance over six plays: the rewards paid (0.8 a proposal) are clawed back."""
    ledger = LearnabilityLedger(LearnabilityConfig(min_plays=6, window=2, min_rise=0.15))
    paid = []
    for iteration, rate in enumerate([1 / 12, 0.0, 1 / 12, 2 / 12, 0.0, 1 / 12]):
        for _ in range(2):  # proposed twice an iteration, paid the regret of a hint that gives the answer
            paid.append(ledger.reward("whisper", 0.8)[0])
        ledger.record_play("whisper", iteration, rate)
    assert paid == [0.8] * 12 and "whisper" in ledger.retired()
    assert ledger.retired()["whisper"].clawed_back == pytest.approx(9.6)
    assert ledger.reward("whisper", 0.8) == (pytest.approx(-0.8), True)  # every later proposal pays it back


def test_an_environment_the_agent_learns_keeps_its_reward() -> None:
    ledger = LearnabilityLedger(LearnabilityConfig(min_plays=6, window=2, min_rise=0.15))
    for iteration, rate in enumerate([1 / 12, 0.0, 2 / 12, 0.3, 0.5, 0.7, 0.9]):
        assert ledger.reward("relay", 0.2) == (0.2, False)
        ledger.record_play("relay", iteration, rate)
    assert ledger.learnable("relay") and not ledger.retired()


def test_a_penalised_environment_is_not_refunded_and_the_ledger_checks_its_input() -> None:
    ledger = LearnabilityLedger(LearnabilityConfig(min_plays=2, window=1, min_rise=0.5))
    ledger.reward("guess", -0.5)
    ledger.record_play("guess", 0, 0.1)
    ledger.record_play("guess", 1, 0.1)
    assert ledger.reward("guess", 0.3) == (0.0, True)
    with pytest.raises(TrainingConfigError, match="in \\[0, 1\\]"):
        ledger.record_play("guess", 2, 1.5)
    with pytest.raises(TrainingConfigError, match="min_plays >= 2"):
        LearnabilityConfig(min_plays=3, window=2)
