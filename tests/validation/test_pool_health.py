"""Self-play's paired rollouts retire pool environments that turn out trivial, impossible or hint-copying; the
reason stays in the store."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.gym_bridge import open_store, sync_seed_environments
from spade_core.rollout.trajectory import Trajectory, Turn
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.pool_health import (
    HEALTH_KEY,
    RETIRED_KEY,
    Health,
    PoolHealth,
    PoolHealthConfig,
    copied_hint,
    judge,
)
from spade_registry.records import Status, Trust


def traj(env_id: str, *, hinted: bool, success: bool, action: str = "\\boxed{1}", hint: str | None = None,
         seat: int = 0) -> Trajectory:
    turn = Turn(0, 0, 1, action, 1.0 if success else 0.0, hint=hint if hinted else None)
    return Trajectory(env_id=env_id, role="agent", group_id=f"{env_id}|{int(hinted)}", episode_id="e", token_ids=[1],
                      loss_mask=[1], logprobs=[0.0], prompt_length=0, turns=[turn], success=success, hinted=hinted,
                      seat=seat)


DESIGNED = ("ArithmeticChain", "TicTacToe", "SecretNumberClues", "Mastermind")


@pytest.fixture
def store(tmp_path: Path):
    """The bundled seeds, plus designer-written copies of four of them (``spade/Designed<Name>-v0``)."""
    store = open_store(tmp_path / "registry.sqlite3")
    sync_seed_environments(store)
    for name in DESIGNED:
        seed = store.query(trust=Trust.BUNDLED, status=Status.ACCEPTED)
        record = next(r for r in seed if r.name == name)
        manifest = {**record.manifest, "name": f"Designed{name}"}
        store.add(code=record.code.replace(f'"name": "{name}"', f'"name": "Designed{name}"'), manifest=manifest,
                  status=Status.ACCEPTED, trust=Trust.DESIGNER)
    return store


def paired(env_id: str, k: int, *, p_hint: float, p_nohint: float, copy: bool = False) -> list[Trajectory]:
    out = []
    for i in range(k):
        won = i < round(p_hint * k)
        action = "\\boxed{840}" if copy else "\\boxed{1}"
        out.append(traj(env_id, hinted=True, success=won, action=action, hint="The number is 840." if copy else "x"))
        out.append(traj(env_id, hinted=False, success=i < round(p_nohint * k)))
    return out


def test_trivial_impossible_and_hint_copying_environments_are_retired_with_reasons(store) -> None:
    health = PoolHealth(store, PoolHealthConfig(min_episodes=6, keep_at_least=1))
    envs = ["spade/DesignedArithmeticChain-v0", "spade/DesignedTicTacToe-v0", "spade/DesignedSecretNumberClues-v0", "spade/DesignedMastermind-v0"]
    batch = (paired(envs[0], 3, p_hint=1.0, p_nohint=1.0) + paired(envs[1], 3, p_hint=0.0, p_nohint=0.0)
             + paired(envs[2], 3, p_hint=1.0, p_nohint=0.0, copy=True) + paired(envs[3], 3, p_hint=0.7, p_nohint=0.3))
    assert health.review(batch, iteration=0) == []  # 3 + 3 episodes each: not enough yet
    retired = {r.env_id: r for r in health.review(batch, iteration=1)}
    assert {e: r.verdict for e, r in retired.items()} == {
        envs[0]: "trivial", envs[1]: "impossible", envs[2]: "hint_copying"}
    for env_id, retirement in retired.items():
        record = store.get(env_id)
        assert record.status is Status.RETIRED
        kept = record.stats[RETIRED_KEY]
        assert kept["verdict"] == retirement.verdict and kept["reason"] and kept["iteration"] == 1
    assert "6 of 6 hinted successes copied the hint" in retired[envs[2]].reason
    assert store.get(envs[3]).status is Status.ACCEPTED
    assert store.get(envs[3]).stats[HEALTH_KEY]["hinted"] == 6


def test_the_pool_never_shrinks_below_its_floor(store) -> None:
    accepted = store.count(status=Status.ACCEPTED)
    health = PoolHealth(store, PoolHealthConfig(min_episodes=1, keep_at_least=accepted))
    assert health.review(paired("spade/DesignedArithmeticChain-v0", 2, p_hint=1.0, p_nohint=1.0), iteration=0) == []
    assert store.get("spade/DesignedArithmeticChain-v0").status is Status.ACCEPTED


def test_second_seats_and_failed_episodes_are_not_counted(store) -> None:
    health = PoolHealth(store, PoolHealthConfig(min_episodes=1, keep_at_least=1))
    batch = [traj("spade/DesignedTicTacToe-v0", hinted=h, success=True, seat=1) for h in (True, False)]
    assert health.review(batch, iteration=0) == []
    assert HEALTH_KEY not in store.get("spade/DesignedTicTacToe-v0").stats


@given(hinted=st.integers(0, 20), hs=st.integers(0, 20), unhinted=st.integers(0, 20), us=st.integers(0, 20))
def test_judge_needs_enough_episodes_and_is_consistent(hinted: int, hs: int, unhinted: int, us: int) -> None:
    config = PoolHealthConfig(min_episodes=6)
    health = Health(hinted=hinted, hinted_successes=min(hs, hinted), unhinted=unhinted,
                    unhinted_successes=min(us, unhinted))
    verdict = judge(health, config)
    if hinted < 6 or unhinted < 6:
        assert verdict is None
    elif verdict is not None and verdict[0] == "trivial":
        assert health.p_nohint >= config.trivial_above
    elif verdict is not None and verdict[0] == "impossible":
        assert health.hinted_successes == 0


@pytest.mark.parametrize(("action", "hint", "copied"), [
    ("\\boxed{840}", "The number is 840.", True),
    ("move 3", "Try this: move 3 now.", True),
    ("\\boxed{5}", "There are 18 marbles in all.", False),
    ("A", "Think about it twice.", False),
    ("", "anything", False),
])
def test_copied_hint(action: str, hint: str, copied: bool) -> None:
    assert copied_hint(action, hint) is copied


def test_the_knobs_live_in_the_selfplay_config() -> None:
    assert isinstance(SelfPlayConfig().pool, PoolHealthConfig)


def test_bundled_seeds_are_never_retired(store) -> None:
    """A weak agent failing a reviewed seed even with the hint says nothing about the seed: it stays accepted."""
    health = PoolHealth(store, PoolHealthConfig(min_episodes=1, keep_at_least=1))
    seed = next(r.env_id for r in store.query(trust=Trust.BUNDLED, status=Status.ACCEPTED) if r.name == "TicTacToe")
    assert health.review(paired(seed, 4, p_hint=0.0, p_nohint=0.0), iteration=0) == []
    assert store.get(seed).status is Status.ACCEPTED and store.get(seed).stats[HEALTH_KEY]["hinted"] == 4
