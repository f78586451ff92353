"""The cheaper defences of the hint-only arm (``RegretCoefficients.hint_only_*``): which environments play it, on how
many seeds, and a rate kept from an earlier iteration, each against the full arm on hand-made rollouts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.rollout.trajectory import Trajectory, Turn
from spade_core.training.errors import TrainingConfigError
from spade_core.training.regret import (
    GATE_HINT_ONLY,
    HintOnlyMemory,
    HintOnlyPlan,
    RegretConfig,
    estimate_regret,
    hint_only_wanted,
    regret_from_trajectories,
)

FULL = RegretConfig(k=8)
MARGIN = HintOnlyPlan(margin=0.0)
QUARTER = HintOnlyPlan(fraction=0.25)
outcomes = st.lists(st.integers(0, 1), min_size=8, max_size=8)


def played(seed: int, arm: str, success: int) -> Trajectory:
    turn = Turn(0, 0, 1, "a", float(success))
    return Trajectory(env_id="e", role="agent", group_id=f"e|{arm}", episode_id=f"{seed}-{arm}", token_ids=[1],
                      loss_mask=[1], logprobs=[0.0], prompt_length=0, turns=[turn], success=bool(success),
                      hinted=arm != "unhinted", hint_only=arm == "hint_only", seed=seed)


@given(outcomes, outcomes, outcomes)
def test_skipping_the_arm_where_the_hint_does_not_help_changes_no_reward(h: list[int], u: list[int],
                                                                         o: list[int]) -> None:
    """Margin 0: an environment whose hinted success does not exceed its unhinted success skips the hint-only arm,
    and its pure-regret reward is what the full arm would have paid."""
    paired = estimate_regret(h, u, FULL)
    full = estimate_regret(h, u, FULL, hint_only=o)
    if hint_only_wanted(paired, FULL, MARGIN):
        assert estimate_regret(h, u, FULL, hint_only=o).reward == full.reward
    else:
        assert paired.reward == full.reward


def test_an_earlier_gate_or_an_objective_without_hints_never_asks_for_the_arm() -> None:
    assert not hint_only_wanted(estimate_regret([1] * 8, [1] * 8, FULL), FULL, MARGIN)  # trivial
    assert not hint_only_wanted(estimate_regret([0] * 8, [0] * 8, FULL), FULL, MARGIN)  # no hinted success
    learn = RegretConfig(k=8, objective="learnability")
    assert not hint_only_wanted(estimate_regret([1] * 8, [0] * 8, learn), learn, MARGIN)
    # no margin: always, when it can matter
    assert hint_only_wanted(estimate_regret([1] * 8, [0] * 8, FULL), FULL, HintOnlyPlan())


def test_a_fraction_of_the_seeds_gates_against_the_same_seeds() -> None:
    """Two of eight seeds play the hint alone; it wins on both while the task alone won neither of them."""
    h, u = [1, 1, 1, 1, 1, 1, 0, 1], [0, 0, 1, 1, 0, 0, 0, 1]
    trajectories = [played(s, arm, x) for s in range(8) for arm, x in (("hinted", h[s]), ("unhinted", u[s]))]
    trajectories += [played(s, "hint_only", 1) for s in (4, 5)]
    estimate = regret_from_trajectories(trajectories, FULL, plan=QUARTER)
    assert QUARTER.seeds(8) == 2 and estimate.hint_only_episodes == 2 and estimate.gate == GATE_HINT_ONLY
    losing = trajectories[:-2] + [played(s, "hint_only", 0) for s in (4, 5)]
    assert regret_from_trajectories(losing, FULL, plan=QUARTER).reward > 0


def test_a_kept_rate_gates_while_it_is_fresh() -> None:
    memory = HintOnlyMemory(HintOnlyPlan(reuse=2))
    memory.remember("whisper", 3, 1.0)
    assert memory.recall("whisper", 5) == 1.0 and memory.recall("whisper", 6) is None
    assert memory.recall("relay", 5) is None
    h, u = [1] * 8, [0, 1, 0, 0, 0, 0, 0, 0]
    assert estimate_regret(h, u, FULL, reused_hint_only=1.0).gate == GATE_HINT_ONLY
    assert estimate_regret(h, u, FULL, reused_hint_only=0.0).reward > 0


@pytest.mark.parametrize("knobs", [{"margin": 1.5}, {"fraction": 0.0}, {"fraction": 1.2}, {"reuse": -1}])
def test_out_of_range_knobs_are_refused(knobs: dict) -> None:
    with pytest.raises(TrainingConfigError, match=next(iter(knobs))):
        HintOnlyPlan(**knobs)
