"""The hint-only arm in the real loop: the runner shows the hint without the task (one home: ``with_hint``), and the
pool's health check retires an environment whose hint alone solves it, with the reason kept in the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from spade_core.gym_bridge import open_store, sync_seed_environments
from spade_core.rollout.errors import RolloutConfigError
from spade_core.rollout.specs import HINT_PLACEMENTS, EpisodeSpec, with_hint
from spade_core.rollout.trajectory import Trajectory, Turn
from spade_core.selfplay.pool_health import RETIRED_KEY, Health, PoolHealth, PoolHealthConfig, judge
from spade_registry.records import Status, Trust


@pytest.mark.parametrize("placement", HINT_PLACEMENTS)
def test_the_hint_only_form_withholds_the_observation_whatever_the_placement(placement: str) -> None:
    assert with_hint("Guess the secret digit.", "Hint: it is 7", placement, hint_only=True) == "Hint: it is 7"
    assert "Guess the secret digit." in with_hint("Guess the secret digit.", "Hint: it is 7", placement)


def test_a_hint_only_episode_must_be_a_hinted_one() -> None:
    assert EpisodeSpec("e", 1, hinted=True, hint_only=True).resolved_group_id() == "e|1|hint_only"
    with pytest.raises(RolloutConfigError, match="needs hinted=True"):
        EpisodeSpec("e", 1, hint_only=True)


def played(env_id: str, arm: str, success: bool) -> Trajectory:
    return Trajectory(env_id=env_id, role="agent", group_id=f"{env_id}|{arm}", episode_id="e", token_ids=[1],
                      loss_mask=[1], logprobs=[0.0], prompt_length=0, turns=[Turn(0, 0, 1, "x", float(success))],
                      success=success, hinted=arm != "unhinted", hint_only=arm == "hint_only")


def test_judge_names_a_hint_that_solves_the_task_alone() -> None:
    config = PoolHealthConfig(min_episodes=6)
    leaky = Health(hinted=6, hinted_successes=6, unhinted=6, unhinted_successes=1, hint_only=6, hint_only_successes=5)
    verdict, reason = judge(leaky, config)
    assert verdict == "hint_only" and "5 of 6" in reason and "the task alone in 1 of 6" in reason
    edge = Health(hinted=6, hinted_successes=4, unhinted=6, unhinted_successes=2, hint_only=6, hint_only_successes=1)
    assert judge(edge, config) is None  # the hint helps only with the task: kept
    unplayed = Health(hinted=6, hinted_successes=4, unhinted=6, unhinted_successes=2)
    assert judge(unplayed, config) is None  # no hint-only arm played (the undefended objective): no verdict from it


def test_pool_health_retires_a_hint_only_environment_and_keeps_the_reason(tmp_path: Path) -> None:
    store = open_store(tmp_path / "registry.sqlite3")
    sync_seed_environments(store)
    seed = next(r for r in store.query(trust=Trust.BUNDLED, status=Status.ACCEPTED) if r.name == "SecretNumberClues")
    env_id = store.add(code=seed.code.replace('"name": "SecretNumberClues"', '"name": "DesignedLeak"'),
                       manifest={**seed.manifest, "name": "DesignedLeak"}, status=Status.ACCEPTED,
                       trust=Trust.DESIGNER)[0].env_id
    trajectories = [played(env_id, arm, success) for _ in range(6)
                    for arm, success in (("hinted", True), ("unhinted", False), ("hint_only", True))]
    retired = PoolHealth(store, PoolHealthConfig(min_episodes=6, keep_at_least=1)).review(trajectories, iteration=3)
    assert [(r.env_id, r.verdict) for r in retired] == [(env_id, "hint_only")]
    record = store.get(env_id)
    assert record.status is Status.RETIRED
    kept = record.stats[RETIRED_KEY]
    assert kept["verdict"] == "hint_only" and "hint alone" in kept["reason"] and kept["hint_only_successes"] == 6
