"""Hermetic episodes: whatever channel an environment keeps state in, its 300th episode plays like its first.

Every path that plays episodes is covered: validation's instance factory, ``gymnasium.make`` of a stored designer
record, and the rollout runner's environment pool (one instance reused for every episode of a run). The red-team
environments (:mod:`hermetic_envs`) say which episode they believe each one is and change their rules past
:data:`~hermetic_envs.THRESHOLD`; a legitimate environment plays the same on a reused instance as on fresh ones.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from hermetic_envs import CARRIERS, PREVIOUS_ANSWER, REFUSED, THRESHOLD
from sandbox_support import ENVS, env_source, load_in_process

import spade_core
from spade_core.contract.env import SpadeEnv
from spade_core.contract.inner import LocalInnerEnv, find_env_class
from spade_core.errors import SandboxPolicyError
from spade_core.rollout import EpisodeSpec
from spade_core.rollout.env_pool import LocalEnvPool, make_with_gymnasium
from spade_core.sandbox import SandboxedInnerEnv, TimeBudget, sandboxed_handle_factory
from spade_core.validation.episodes import EnvFactory, constant_policy, play, reference_policy
from spade_core.validation.pipeline import sandbox_handles
from spade_registry.manifest import EnvManifest
from spade_registry.records import Status, Trust
from spade_registry.store import RegistryStore

EPISODES = 300
SEED = 11
KNOBS = {"width": 7}
GAMES = Path(__file__).resolve().parents[2] / "plugins" / "domains" / "games" / "seeds"


def manifest_of(source: str) -> dict[str, Any]:
    """The literal ``ENV_SPEC`` of a module, read without running it."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ENV_SPEC" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("no ENV_SPEC")


def episode(env: gym.Env, action: str = "x") -> tuple[Any, ...]:
    obs, _ = env.reset(seed=SEED)
    after, reward, terminated, truncated, info = env.step(action)
    return obs, after, reward, terminated, truncated, info["success"]


def assert_every_episode_is_the_first(episodes: list[tuple[Any, ...]]) -> None:
    assert len(episodes) == EPISODES > THRESHOLD
    first = episodes[0]
    assert first[0] == "episode 1: guess a digit below 7" and first[2] == 0.0, first
    different = [i for i, e in enumerate(episodes) if e != first]
    assert not different, f"episode {different[0] + 1} differs from the first: {episodes[different[0]]} vs {first}"


@pytest.mark.parametrize("channel", sorted(CARRIERS))
def test_validation_instances_carry_nothing_between_episodes(channel: str) -> None:
    source = CARRIERS[channel]
    manifest = EnvManifest.from_dict(manifest_of(source))
    envs = EnvFactory(manifest, sandbox_handles(source, f"candidate:{channel}", budget=TimeBudget(60.0)),
                      f"candidate:{channel}")
    try:
        env = envs(KNOBS)
        played = [play(env, SEED, constant_policy) for _ in range(EPISODES)]
        assert all(p.error is None for p in played)
        assert [p.trace() for p in played] == [played[0].trace()] * EPISODES
        assert not played[-1].success and played[-1].rewards == [0.0]
    finally:
        envs.close_all()


@pytest.fixture(scope="module")
def registered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Every red-team environment stored as an accepted designer record and registered with gymnasium."""
    store_path = tmp_path_factory.mktemp("hermetic") / "store.sqlite3"
    ids: dict[str, str] = {}
    with RegistryStore(store_path) as store:
        for channel, source in CARRIERS.items():
            record, _ = store.add(code=source, manifest=manifest_of(source), status=Status.ACCEPTED,
                                  trust=Trust.DESIGNER)
            assert record.env_id is not None
            ids[channel] = record.env_id
    assert sorted(spade_core.register_store(store_path, sync_seeds=False)) == sorted(ids.values())
    return ids


@pytest.mark.parametrize("channel", sorted(CARRIERS))
def test_gym_make_carries_nothing_between_episodes(channel: str, registered: dict[str, str]) -> None:
    env = gym.make(registered[channel], **KNOBS)
    other = gym.make(registered[channel], **KNOBS)
    try:
        episodes = [episode(env) for _ in range(EPISODES)]
        assert_every_episode_is_the_first(episodes)
        assert episode(other) == episodes[0]  # and a second instance's first episode is the same too
    finally:
        env.close()
        other.close()


@pytest.mark.parametrize("channel", sorted(CARRIERS))
def test_rollout_env_pool_carries_nothing_between_episodes(channel: str, registered: dict[str, str]) -> None:
    pool = LocalEnvPool(make_with_gymnasium)
    spec = EpisodeSpec(registered[channel], seed=SEED, env_kwargs=KNOBS)
    episodes = []
    try:
        for _ in range(EPISODES):
            env = pool.acquire(spec)
            (started,) = pool.reset_many([(env, spec.seed, None)])
            (stepped,) = pool.step_many([(env, "x")])
            assert not isinstance(started, BaseException) and not isinstance(stepped, BaseException)
            obs, reward, terminated, truncated, info = stepped
            episodes.append((started[0], obs, reward, terminated, truncated, info["success"]))
            pool.release(spec, env, broken=False)
        assert len(pool.all) == 1  # one instance played every episode, as in a rollout run
        assert_every_episode_is_the_first(episodes)
    finally:
        pool.close()


@pytest.mark.parametrize("channel", sorted(REFUSED))
def test_writes_to_functions_and_allowed_modules_are_refused(channel: str, pool) -> None:
    handle = SandboxedInnerEnv(REFUSED[channel], env_id=channel, pool=pool)
    try:
        with pytest.raises(SandboxPolicyError) as info:
            handle.reset(0, {})
        assert "cannot assign" in str(info.value) or "read-only" in str(info.value), info.value
    finally:
        handle.close()


def _previous_answer_replayed(make: Any) -> tuple[Any, Any]:
    """Solve seed 1 on one instance, then answer seed 2 with seed 1's answer: on that instance and on a fresh one."""
    used = make()
    used.reset(1, {})
    answer = used.reference_action()
    assert used.step(answer)[1] == 1.0  # solved
    used.reset(2, {})
    assert used.reference_action() != answer  # the two seeds have different secrets
    fresh = make()
    fresh.reset(2, {})
    try:
        return used.step(answer), fresh.step(answer)
    finally:
        used.close()
        fresh.close()


def test_the_previous_episodes_answer_is_not_accepted_again(pool) -> None:
    reused, fresh = _previous_answer_replayed(lambda: SandboxedInnerEnv(PREVIOUS_ANSWER, env_id="last", pool=pool))
    assert reused == fresh and reused[1] == 0.0


def test_in_process_instances_are_rebuilt_for_each_episode_too() -> None:
    namespace: dict[str, Any] = {"__name__": "hermetic_in_process"}
    exec(compile(PREVIOUS_ANSWER, "<keeps-last-answer>", "exec"), namespace)  # test-owned code, trusted here
    cls = find_env_class(namespace, module_name="hermetic_in_process", where="test")
    reused, fresh = _previous_answer_replayed(lambda: LocalInnerEnv(cls, {}))
    assert reused == fresh and reused[1] == 0.0
    carrier: dict[str, Any] = {"__name__": "hermetic_attribute"}
    exec(compile(CARRIERS["InstanceAttribute"], "<instance-attribute>", "exec"), carrier)  # test-owned code
    manifest = EnvManifest.from_dict(carrier["ENV_SPEC"])
    klass = find_env_class(carrier, module_name="hermetic_attribute", where="test")
    env = SpadeEnv(manifest, lambda knobs: LocalInnerEnv(klass, knobs), knobs=KNOBS)
    assert_every_episode_is_the_first([episode(env) for _ in range(EPISODES)])


def _reference_traces(env: SpadeEnv, seeds: range) -> list[list[Any]]:
    return [play(env, seed, reference_policy, record_hints=True).trace() for seed in seeds]


@pytest.mark.parametrize(("path", "knobs"), [(ENVS / "guess_env.py", {"high": 200}),
                                             (GAMES / "nim_vs_bot.py", {"heaps": 4, "misere": 1}),
                                             (GAMES / "mastermind.py", {"colours": 5})])
def test_a_legitimate_environment_plays_the_same_on_a_reused_instance(path: Path, knobs: dict[str, Any],
                                                                      pool) -> None:
    source = path.read_text() if path.parent == GAMES else env_source(path.stem)
    module = load_in_process(path)
    manifest = EnvManifest.from_dict(module.ENV_SPEC)
    cls = find_env_class(vars(module), module_name=module.__name__, where=path.name)
    seeds = range(12)
    reused = SpadeEnv(manifest, sandboxed_handle_factory(source, env_id=path.stem, pool=pool), knobs=knobs)
    try:
        sandboxed = _reference_traces(reused, seeds)
    finally:
        reused.close()
    fresh_each = []
    for seed in seeds:
        local = SpadeEnv(manifest, lambda k: LocalInnerEnv(cls, k), knobs=knobs)
        fresh_each += _reference_traces(local, range(seed, seed + 1))
    assert sandboxed == fresh_each
    assert all(trace for trace in sandboxed)
