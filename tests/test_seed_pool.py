"""Quality gates over every accepted bundled environment in the registry (a new seed env is covered automatically).

Single-player: the reference solver succeeds on >= 90% of 20 seeds; random strings and a constant action succeed on
< 10%; the privileged hint never contains the final answer, and playing the hint verbatim never succeeds.
Two-player zero-sum: the reference solver playing every seat finishes the game (terminated, no truncation, no
format errors) on >= 90% of seeds, and a random-string seat facing the reference solver succeeds on < 10%.
"""

from __future__ import annotations

import re

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core.contract import SpadeEnv
from spade_core.errors import EpisodeStateError
from spade_core.gym_bridge import open_store
from spade_registry.records import Status, Trust

SEEDS = range(20)


def bundled_ids() -> list[str]:
    store = open_store()
    return sorted(r.env_id for r in store.query(status=Status.ACCEPTED, trust=Trust.BUNDLED) if r.env_id)


POOL = bundled_ids()
SINGLE_PLAYER = [r.env_id for r in open_store().query(status=Status.ACCEPTED, trust=Trust.BUNDLED)
                 if r.env_id and r.players == 1]


def make(env_id: str) -> SpadeEnv:
    env = gym.make(env_id).unwrapped
    assert isinstance(env, SpadeEnv)
    return env


def play(env: SpadeEnv, seed: int, policy, seat_policies: dict[int, object] | None = None) -> tuple[dict, list[str]]:
    """Run one episode; ``policy(env, obs, rng)`` picks actions (per seat if ``seat_policies``)."""
    rng = np.random.default_rng(seed)
    env.action_space.seed(seed)
    obs, info = env.reset(seed=seed)
    actions = []
    while True:
        chooser = (seat_policies or {}).get(info.get("player_id", 0), policy)
        action = chooser(env, obs, rng)
        actions.append(action)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            info["terminated"], info["truncated"] = terminated, truncated
            return info, actions


def reference(env: SpadeEnv, obs: str, rng) -> str:
    return env.reference_action()


def random_text(env: SpadeEnv, obs: str, rng) -> str:
    return env.action_space.sample()


def constant(env: SpadeEnv, obs: str, rng) -> str:
    return "0"


def test_pool_is_not_empty() -> None:
    assert len(POOL) >= 2


@pytest.mark.parametrize("env_id", POOL)
def test_check_env(env_id: str) -> None:
    check_env(make(env_id), skip_render_check=True)


@pytest.mark.parametrize("env_id", POOL)
def test_reference_solves_and_baselines_fail(env_id: str) -> None:
    env = make(env_id)
    if env.manifest.players == 1:
        ref = [play(env, s, reference)[0].get("success", False) for s in SEEDS]
        assert np.mean(ref) >= 0.9, f"{env_id}: reference solved {sum(ref)}/20"
        rand = [play(env, s, random_text)[0].get("success", False) for s in SEEDS]
        assert np.mean(rand) < 0.1, f"{env_id}: random text solved {sum(rand)}/20"
        const = [play(env, s, constant)[0].get("success", False) for s in SEEDS]
        assert np.mean(const) < 0.1, f"{env_id}: constant action solved {sum(const)}/20"
    else:
        finished = []
        for s in SEEDS:
            info, _ = play(env, s, reference)
            finished.append(info["terminated"] and not info["truncated"] and info.get("sandbox_error") is None)
        assert np.mean(finished) >= 0.9, f"{env_id}: self-play by the reference finished {sum(finished)}/20"
        random_wins = []
        for s in SEEDS:
            seat = s % env.manifest.players
            seats = {p: reference for p in range(env.manifest.players)}
            seats[seat] = random_text
            info, _ = play(env, s, reference, seats)
            rewards = info.get("rewards") or [0.0] * env.manifest.players
            random_wins.append(rewards[seat] > 0)
        assert np.mean(random_wins) < 0.1, f"{env_id}: a random seat won {sum(random_wins)}/20"


def _normalise(text: str) -> str:
    return re.sub(r"[\s`'\"$\\{}]+", "", text.lower())


def _key_numbers(text: str) -> set[str]:
    return {n for n in re.findall(r"-?\d+(?:\.\d+)?", text) if len(n.lstrip("-").replace(".", "")) >= 2}


@pytest.mark.parametrize("env_id", SINGLE_PLAYER)
def test_hint_does_not_give_the_answer_away(env_id: str) -> None:
    """Two-player games have no single answer (their hints are rules and threats), so this covers one-seat envs."""
    env = make(env_id)
    for seed in range(5):
        env.reset(seed=seed)
        hint = env.privileged_hint()
        info, actions = play(env, seed, reference)
        if not info.get("success"):
            continue
        answer = actions[-1]
        if len(_normalise(answer)) >= 4:
            assert _normalise(answer) not in _normalise(hint), f"{env_id} seed {seed}: hint {hint!r} holds {answer!r}"
        numbers = _key_numbers(answer)
        hint_numbers = _key_numbers(hint)
        assert not (numbers and numbers <= hint_numbers), f"{env_id} seed {seed}: hint {hint!r} holds {answer!r}"

    def copy_hint(env: SpadeEnv, obs: str, rng) -> str:
        return env.privileged_hint()

    copied = [play(env, s, copy_hint)[0].get("success", False) for s in SEEDS]
    assert np.mean(copied) < 0.1, f"{env_id}: playing the hint verbatim solved {sum(copied)}/20"


_ACTIONS = st.lists(
    st.one_of(st.just(None), st.text(max_size=40), st.sampled_from(["0", "1", "5", "H", "\\boxed{3}", "{}", "\ud800"])),
    min_size=1, max_size=12,
)


@pytest.mark.parametrize("env_id", POOL)
@settings(max_examples=15)
@given(seed=st.integers(0, 2**31 - 1), actions=_ACTIONS)
def test_contract_properties(env_id: str, seed: int, actions: list[str | None]) -> None:
    """Same seed + actions => same trace; rewards in range; observations are bounded str; step after end raises.

    ``None`` in the action list means "play the reference action", so traces reach real game states.
    """

    def trace() -> list:
        env = make(env_id)
        low, high = env.manifest.reward_range
        obs, info = env.reset(seed=seed)
        out: list = [obs]
        for action in actions:
            chosen = env.reference_action() if action is None else action
            obs, reward, terminated, truncated, info = env.step(chosen)
            assert isinstance(obs, str) and len(obs) <= env.manifest.max_obs_chars
            assert low <= reward <= high
            out.append((obs, reward, terminated, truncated, info.get("success")))
            if terminated or truncated:
                with pytest.raises(EpisodeStateError):
                    env.step(chosen)
                break
        return out

    assert trace() == trace()
