"""Advantage estimators: GRPO, Dr.GRPO and SPIRAL's EMA baseline, always per role."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.models.base import TokenDistribution
from spade_core.rollout import single_turn_trajectory
from spade_core.training import (
    AdvantageConfig,
    AdvantageEstimator,
    EMABaseline,
    TrainingConfigError,
    dr_grpo_advantages,
    grpo_advantages,
)


def traj(role: str, group: str, reward: float, seat: int = 0, env_id: str = "env", failed: bool = False):
    t = single_turn_trajectory([1, 2], [3], [-0.5], distribution=TokenDistribution(), role=role, group_id=group,
                               episode_id=f"{role}-{group}-{reward}", env_id=env_id, reward=reward)
    t.seat = seat
    if failed:
        t.failure, t.error = "env_error", "boom"
    return t


def test_dr_grpo_is_group_mean_centring() -> None:
    assert dr_grpo_advantages([1.0, 0.0, 0.0, 1.0], ["a", "a", "b", "b"]) == [0.5, -0.5, -0.5, 0.5]
    assert dr_grpo_advantages([3.0], ["solo"]) == [0.0]


def test_grpo_divides_by_the_group_std() -> None:
    adv = grpo_advantages([1.0, 0.0, 1.0, 0.0], ["g"] * 4, eps=0.0)
    assert adv == [1.0, -1.0, 1.0, -1.0]
    assert grpo_advantages([2.0, 2.0], ["g", "g"]) == [0.0, 0.0]  # no spread, no signal


@pytest.mark.parametrize("estimator", ["grpo", "dr_grpo", "ema"])
def test_roles_never_share_statistics(estimator: str) -> None:
    """Same group id, wildly different reward scales: each role is normalised on its own."""
    batch = [traj("designer", "g", 1.0), traj("designer", "g", 0.0), traj("agent", "g", 10.0), traj("agent", "g", 20.0)]
    adv = AdvantageEstimator(AdvantageConfig(estimator=estimator)).compute(batch)
    designer_alone = AdvantageEstimator(AdvantageConfig(estimator=estimator)).compute(batch[:2])
    agent_alone = AdvantageEstimator(AdvantageConfig(estimator=estimator)).compute(batch[2:])
    assert adv == designer_alone + agent_alone
    if estimator == "dr_grpo":
        assert adv == [0.5, -0.5, -5.0, 5.0]


def test_seats_are_separate_groups() -> None:
    batch = [traj("agent", "game", 1.0, seat=0), traj("agent", "game", -1.0, seat=1),
             traj("agent", "game", 0.0, seat=0), traj("agent", "game", 0.0, seat=1)]
    assert AdvantageEstimator().compute(batch) == [0.5, -0.5, -0.5, 0.5]


def test_failed_trajectories_get_zero_and_stay_out_of_the_statistics() -> None:
    batch = [traj("agent", "g", 1.0), traj("agent", "g", 0.0), traj("agent", "g", 100.0, failed=True)]
    assert AdvantageEstimator().compute(batch) == [0.5, -0.5, 0.0]


def test_ema_baseline_reads_before_it_updates() -> None:
    ema = EMABaseline(decay=0.95)
    assert ema.advantages([1.0], [("agent",)]) == [1.0]  # baseline starts at 0
    assert ema.values[("agent",)] == pytest.approx(0.05)
    assert ema.advantages([1.0, 0.0], [("agent",), ("designer",)]) == [pytest.approx(0.95), 0.0]
    assert ema.values[("agent",)] == pytest.approx(0.95 * 0.05 + 0.05)
    assert ema.values[("designer",)] == 0.0


def test_ema_key_is_per_role_env_and_seat_and_its_state_round_trips() -> None:
    est = AdvantageEstimator(AdvantageConfig(estimator="ema"))
    est.compute([traj("agent", "g", 1.0, seat=0, env_id="A"), traj("agent", "g", 1.0, seat=1, env_id="A"),
                 traj("designer", "x", 0.5, env_id="A")])
    assert set(est.baseline.values) == {("agent", "A", 0), ("agent", "A", 1), ("designer", "A", 0)}
    other = AdvantageEstimator(AdvantageConfig(estimator="ema"))
    other.load_state_dict(est.state_dict())
    batch = [traj("agent", "g", 0.0, seat=0, env_id="A")]
    assert other.compute(batch) == est.compute(batch)


def test_config_refuses_cross_role_baselines_and_unknown_estimators() -> None:
    with pytest.raises(TrainingConfigError, match="role"):
        AdvantageConfig(estimator="ema", ema_key=("env_id",))
    with pytest.raises(TrainingConfigError, match="estimator"):
        AdvantageConfig(estimator="ppo")


@given(st.lists(st.tuples(st.sampled_from(["agent", "designer"]), st.sampled_from("abc"),
                          st.floats(-5, 5, allow_nan=False)), min_size=1, max_size=30))
def test_group_advantages_sum_to_zero_within_each_role_and_group(rows) -> None:
    batch = [traj(role, group, reward) for role, group, reward in rows]
    adv = AdvantageEstimator().compute(batch)
    sums: dict[tuple[str, str], float] = {}
    for (role, group, _), a in zip(rows, adv):
        sums[(role, group)] = sums.get((role, group), 0.0) + a
    assert all(abs(v) < 1e-9 for v in sums.values())
