"""SandboxedInnerEnv behaves like the in-process handle, and failures are typed, contained and recoverable."""

from __future__ import annotations

import os
import signal

import pytest
from sandbox_support import ENVS, env_source, load_in_process

from spade_core.contract.env import SpadeEnv
from spade_core.contract.inner import LocalInnerEnv
from spade_core.errors import (
    ContractError,
    EnvCodeError,
    EnvLoadError,
    SandboxCrashed,
    SandboxPolicyError,
    SandboxTimeout,
)
from spade_core.sandbox import (
    SandboxedInnerEnv,
    call_many,
    load_env_module,
    sandboxed_handle_factory,
    step_many,
)
from spade_registry.manifest import EnvManifest

GUESS = env_source("guess_env")
FLAKY = env_source("flaky_env")


def _guess_local():
    module = load_in_process(ENVS / "guess_env.py")
    return module.GuessNumber, EnvManifest.from_dict(module.ENV_SPEC)


def _actions(turn: int, reference: str) -> str:
    return ["500", "x", reference, reference, "  3 ", reference][turn % 6]


def test_raw_traces_identical_to_in_process(pool) -> None:
    cls, _ = _guess_local()
    for seed in range(8):
        local = LocalInnerEnv(cls, {"high": 200})
        remote = SandboxedInnerEnv(GUESS, env_id="guess", knobs={"high": 200}, pool=pool)
        try:
            assert remote.reset(seed, {"a": (1, 2)}) == local.reset(seed, {"a": (1, 2)})
            for turn in range(12):
                assert remote.privileged_hint() == local.privileged_hint()
                reference = local.reference_action()
                assert remote.reference_action() == reference
                got, want = remote.step(_actions(turn, reference)), local.step(_actions(turn, reference))
                assert got == want and type(got) is tuple and type(got[4].get("guesses", ())) is tuple
                if want[2]:
                    break
        finally:
            remote.close()


def test_spade_env_traces_identical(pool) -> None:
    cls, manifest = _guess_local()
    local_env = SpadeEnv(manifest, lambda knobs: LocalInnerEnv(cls, knobs), knobs={"high": 64})
    remote_env = SpadeEnv(manifest, sandboxed_handle_factory(GUESS, env_id="spade/Guess-v0", pool=pool), knobs={"high": 64})
    try:
        for seed in (3, 4, 5):
            assert remote_env.reset(seed=seed, options={"hint": True}) == local_env.reset(seed=seed, options={"hint": True})
            done = False
            while not done:
                action = local_env.reference_action()
                got, want = remote_env.step(action), local_env.step(action)
                assert got == want
                done = want[2] or want[3]
    finally:
        remote_env.close()
        local_env.close()


def test_only_trusted_environments_expose_their_instance(pool) -> None:
    cls, manifest = _guess_local()
    local_env = SpadeEnv(manifest, lambda knobs: LocalInnerEnv(cls, knobs), knobs={"high": 64})
    remote_env = SpadeEnv(manifest, sandboxed_handle_factory(GUESS, env_id="spade/Guess-v0", pool=pool))
    try:
        assert isinstance(local_env.trusted_instance(), cls)
        with pytest.raises(ContractError, match="runs in the sandbox"):
            remote_env.trusted_instance()
    finally:
        remote_env.close()
        local_env.close()


def test_load_env_module_returns_raw_spec(pool) -> None:
    result = load_env_module(GUESS, env_id="guess", pool=pool)
    assert result.ok and result.class_name == "GuessNumber"
    assert result.spec["difficulty"] == {"high": {"min": 10, "max": 1000, "default": 100}}
    tupled = load_env_module(GUESS.replace('"reward_range": [0.0, 1.0]', '"reward_range": (0.0, 1.0)'), pool=pool)
    assert tupled.spec["reward_range"] == (0.0, 1.0)


def test_load_errors_are_typed_and_actionable(pool) -> None:
    bad = load_env_module("ENV_SPEC = {}\n\nimport os\n", pool=pool)
    assert isinstance(bad.error, SandboxPolicyError) and "line 3" in str(bad.error) and "allowed modules" in str(bad.error)
    syntax = load_env_module("ENV_SPEC = {}\ndef broken(:\n", pool=pool)
    assert isinstance(syntax.error, EnvCodeError) and "line 2" in str(syntax.error)
    empty = load_env_module("ENV_SPEC = {}\n", pool=pool)
    assert isinstance(empty.error, EnvLoadError) and "no environment class" in str(empty.error)
    raising = load_env_module("ENV_SPEC = {}\nx = 1 / 0\n", pool=pool)
    assert isinstance(raising.error, EnvCodeError) and "ZeroDivisionError" in str(raising.error)
    with pytest.raises(SandboxPolicyError, match="line 1"):
        SandboxedInnerEnv("import subprocess\n", pool=pool)


def test_env_exception_keeps_the_instance_like_in_process(pool) -> None:
    handle = SandboxedInnerEnv(FLAKY, env_id="flaky", pool=pool)
    try:
        handle.reset(1, {})
        handle.step("a")
        with pytest.raises(EnvCodeError, match="KeyError"):
            handle.step("raise")
        assert handle.step("b")[4] == {"count": 2}
    finally:
        handle.close()


def test_non_json_values_reach_the_contract_check(pool) -> None:
    manifest = EnvManifest.from_dict(load_env_module(FLAKY, pool=pool).spec)
    env = SpadeEnv(manifest, sandboxed_handle_factory(FLAKY, pool=pool))
    try:
        env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.step("set")
        assert truncated and isinstance(info["sandbox_error"], ContractError) and "is a set" in str(info["sandbox_error"])
    finally:
        env.close()


def test_timeout_then_reset_and_neighbours_unaffected(pool) -> None:
    victim = SandboxedInnerEnv(FLAKY, env_id="victim", pool=pool)
    neighbour = SandboxedInnerEnv(FLAKY, env_id="neighbour", pool=pool)
    try:
        victim.reset(1, {})
        neighbour.reset(2, {})
        neighbour.step("x")
        with pytest.raises(SandboxTimeout):
            victim.step("hang")
        with pytest.raises(SandboxTimeout, match="reset"):
            victim.step("again")
        assert victim.reset(1, {})[0].startswith("start")
        assert neighbour.step("y")[4] == {"count": 2}
    finally:
        victim.close()
        neighbour.close()


def test_hard_hang_kills_worker_and_neighbours_are_replayed(pool) -> None:
    victim = SandboxedInnerEnv(FLAKY, env_id="victim", pool=pool)
    neighbour = SandboxedInnerEnv(FLAKY, env_id="neighbour", pool=pool)
    try:
        victim.reset(1, {})
        first = neighbour.reset(2, {})
        neighbour.step("x")
        assert victim.worker_pid == neighbour.worker_pid
        old_pid = neighbour.worker_pid
        replays = pool.replays
        with pytest.raises(SandboxTimeout, match="killed"):
            victim.step("hang-hard")
        assert neighbour.step("y") == (f"{first[0].split()[1]}:2:y", 0.0, False, False, {"count": 2})
        assert pool.replays == replays + 1 and neighbour.worker_pid != old_pid
        assert victim.reset(1, {})[0].startswith("start ")
    finally:
        victim.close()
        neighbour.close()


def test_sigkill_mid_episode(pool) -> None:
    cls, manifest = _guess_local()
    env = SpadeEnv(manifest, sandboxed_handle_factory(GUESS, env_id="spade/Guess-v0", pool=pool), knobs={"high": 500})
    other = SandboxedInnerEnv(GUESS, env_id="other", knobs={"high": 500}, pool=pool)
    local_other = LocalInnerEnv(cls, {"high": 500})
    try:
        env.reset(seed=11)
        assert other.reset(5, {}) == local_other.reset(5, {})
        assert other.step("250") == local_other.step("250")
        env.step("1")
        pid = env._handle.worker_pid
        assert pid is not None and pid == other.worker_pid
        os.kill(pid, signal.SIGKILL)
        obs, reward, terminated, truncated, info = env.step("2")
        assert truncated and not terminated and isinstance(info["sandbox_error"], SandboxCrashed)
        assert "SIGKILL" in str(info["sandbox_error"])
        obs, info = env.reset(seed=11)
        assert obs.startswith("I picked a number.")
        assert env.step(env.reference_action())[1] >= 0.0
        for action in ("125", "60", "400"):
            assert other.step(action) == local_other.step(action)
        assert other.worker_pid != pid
    finally:
        env.close()
        other.close()


def test_call_many_matches_single_calls(pool) -> None:
    sources = [GUESS, FLAKY]
    handles = [SandboxedInnerEnv(sources[i % 2], env_id=f"b{i}", pool=pool) for i in range(64)]
    singles = [SandboxedInnerEnv(sources[i % 2], env_id=f"s{i}", pool=pool) for i in range(64)]
    try:
        resets = call_many([(h, "reset", (i, {})) for i, h in enumerate(handles)])
        assert resets == [s.reset(i, {}) for i, s in enumerate(singles)]
        for turn in range(3):
            actions = [str(40 + turn * 7 + i) for i in range(64)]
            batched = step_many(handles, actions)
            assert batched == [s.step(a) for s, a in zip(singles, actions)]
        mixed = step_many(handles[:4], ["1", "raise", "3", "raise"])
        assert isinstance(mixed[1], EnvCodeError) and isinstance(mixed[3], EnvCodeError)
        assert isinstance(mixed[0], tuple) and isinstance(mixed[2], tuple)
    finally:
        for h in handles + singles:
            h.close()


def test_call_many_survives_a_worker_dying(pool) -> None:
    handles = [SandboxedInnerEnv(FLAKY, env_id=f"d{i}", pool=pool) for i in range(6)]
    try:
        for i, h in enumerate(handles):
            h.reset(i, {})
        results = step_many(handles, ["a", "b", "hang-hard", "c", "d", "e"])
        assert isinstance(results[2], SandboxTimeout)
        for i in (0, 1, 3, 4, 5):
            assert results[i][4] == {"count": 1}, results[i]
        assert handles[0].step("z")[4] == {"count": 2}
    finally:
        for h in handles:
            h.close()


def test_episode_budget_is_per_episode(pool) -> None:
    handle = SandboxedInnerEnv(FLAKY, env_id="budget", pool=pool)
    try:
        for _ in range(3):
            handle.reset(0, {})
            for _ in range(20):
                handle.step("a")
    finally:
        handle.close()
