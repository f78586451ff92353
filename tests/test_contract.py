"""SpadeEnv: the checked gymnasium boundary around inner environments."""

from __future__ import annotations

import gymnasium as gym
import pytest
from fixture_envs import broken_envs
from fixture_envs.counter_env import ENV_SPEC as COUNTER_SPEC
from fixture_envs.counter_env import Counter
from gymnasium.utils.env_checker import check_env
from hypothesis import given
from hypothesis import strategies as st

from spade_core.contract import EnvManifest, LocalInnerEnv, SpadeEnv
from spade_core.errors import ContractError, EpisodeStateError, ManifestError


def counter_env(**knobs) -> SpadeEnv:
    manifest = EnvManifest.from_dict(COUNTER_SPEC)
    return SpadeEnv(manifest, lambda k: LocalInnerEnv(Counter, k), knobs=knobs)


def broken_env(cls: type, **spec_overrides) -> SpadeEnv:
    spec = {"name": "Broken", "domain": "games", "description": "d", "reward_range": [0, 1], "max_turns": 5,
            **spec_overrides}
    return SpadeEnv(EnvManifest.from_dict(spec), lambda k: LocalInnerEnv(cls, k))


def test_check_env_passes_on_counter() -> None:
    check_env(counter_env())


def test_step_before_reset_raises() -> None:
    with pytest.raises(EpisodeStateError, match="before reset"):
        counter_env().step("1")


def test_step_after_termination_raises_and_reset_recovers() -> None:
    env = counter_env(span=2)
    env.reset(seed=0)
    terminated = False
    while not terminated:
        _, _, terminated, truncated, _ = env.step(env.reference_action())
        assert not truncated
    with pytest.raises(EpisodeStateError, match="after the episode ended"):
        env.step("1")
    env.reset(seed=1)
    env.step("1")


def test_max_turns_truncates() -> None:
    env = counter_env(span=50)
    env.reset(seed=0)
    results = [env.step("nope") for _ in range(6)]
    assert [r[3] for r in results] == [False] * 5 + [True]
    assert all(r[4]["format_error"] == "not a number" for r in results)
    with pytest.raises(EpisodeStateError):
        env.step("1")


def test_hint_option_and_knob_validation() -> None:
    env = counter_env()
    _, info = env.reset(seed=3, options={"hint": True})
    assert info["hint"] in {"The target is odd.", "The target is even."}
    with pytest.raises(ManifestError, match="span"):
        counter_env(span=500)
    with pytest.raises(ManifestError, match="not a difficulty knob"):
        counter_env(speed=1)


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        (broken_envs.ObsNotStr, "observation must be str"),
        (broken_envs.RewardOutOfRange, "outside the manifest's reward_range"),
        (broken_envs.RewardNaN, "finite number"),
        (broken_envs.FlagNotBool, "terminated must be a bool"),
        (broken_envs.InfoNotJson, "JSON data"),
        (broken_envs.WrongArity, "must return \\(observation, reward"),
        (broken_envs.ObsTooLong, "max_obs_chars"),
    ],
)
def test_contract_breach_in_step_ends_episode_with_typed_error(cls: type, message: str) -> None:
    env = broken_env(cls)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("a")
    assert truncated and not terminated
    assert isinstance(info["sandbox_error"], ContractError)
    assert pytest.approx(0.0) == reward
    assert obs == "start"
    assert env.last_error is info["sandbox_error"]
    import re

    assert re.search(message, str(info["sandbox_error"]))
    with pytest.raises(EpisodeStateError):
        env.step("a")


def test_reset_contract_breach_raises() -> None:
    with pytest.raises(ContractError, match="reset\\(\\) must return"):
        broken_env(broken_envs.ResetNotTuple).reset(seed=0)


def test_single_turn_must_terminate() -> None:
    env = broken_env(broken_envs.SingleTurnNeverEnds, max_turns=1)
    env.reset(seed=0)
    _, _, terminated, truncated, info = env.step("a")
    assert truncated and not terminated
    assert "single-turn" in str(info["sandbox_error"])


def test_multiplayer_requires_player_id() -> None:
    with pytest.raises(ContractError, match="player_id"):
        broken_env(broken_envs.NoPlayerId, players=2).reset(seed=0)


@given(action=st.one_of(st.integers(), st.none(), st.binary(max_size=10), st.integers(8193, 20000).map(lambda n: "7" * n)))
def test_malformed_action_types_give_format_error(action: object) -> None:
    env = counter_env()
    obs0, _ = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(action)  # type: ignore[arg-type]
    assert info["format_error"] and info["action_is_valid"] is False
    assert obs == obs0 and reward == 0.0 and not terminated


@given(seed=st.integers(0, 2**32 - 1), actions=st.lists(st.sampled_from(["1", "2", "3", "x", "", "4"]), max_size=8))
def test_same_seed_same_actions_same_trace(seed: int, actions: list[str]) -> None:
    def trace() -> list:
        env = counter_env()
        out = [env.reset(seed=seed)]
        for action in actions:
            if env.done:
                break
            out.append(env.step(action))
        return out

    assert trace() == trace()


def test_freetext_space_admits_any_text() -> None:
    env = counter_env()
    assert env.observation_space.contains("Hello, world? ünïcode\n")
    assert not env.observation_space.contains(5)
    sample = env.action_space.sample()
    assert isinstance(sample, str) and len(sample) <= env.manifest.max_action_chars


def test_spawn_gives_independent_instance_with_same_task() -> None:
    env = counter_env(span=9)
    twin = env.spawn()
    assert twin is not env and twin.knobs == env.knobs
    assert env.reset(seed=4) == twin.reset(seed=4)
    env.step("1")
    assert twin.turn == 0


def test_unseeded_resets_continue_the_seeded_sequence() -> None:
    a, b = counter_env(span=50), counter_env(span=50)
    a.reset(seed=11)
    b.reset(seed=11)
    assert [a.reset()[0] for _ in range(3)] == [b.reset()[0] for _ in range(3)]
    assert a.episode_seed == b.episode_seed


def test_gym_wrappers_compose() -> None:
    env = gym.wrappers.RecordEpisodeStatistics(counter_env(span=2))
    env.reset(seed=0)
    done = False
    while not done:
        _, _, term, trunc, info = env.step(env.unwrapped.reference_action())
        done = term or trunc
    assert info["episode"]["l"] >= 1
