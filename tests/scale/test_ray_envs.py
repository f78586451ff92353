"""Environments on Ray env actors: the same episodes as in-process, batched per actor, and a killed actor is a
recorded environment failure of its episodes (never a hang)."""

from __future__ import annotations

import os
import signal
import time

import pytest
from scale_helpers import env_id_named, scripted_act

pytest.importorskip("ray", reason="the scale-out tests need Ray: pip install 'spade-rl[ray]'")

import spade_core  # noqa: F401 - registers the bundled spade/* environments
from spade_core.rollout import EpisodeRunner, EpisodeSpec, RolloutConfig, ScriptedPolicy
from spade_core.rollout.env_pool import LocalEnvPool, make_with_gymnasium
from spade_core.rollout.trajectory import FAILURE_ENV
from spade_core.scale.errors import EnvActorLostError, RemoteEnvError
from spade_core.scale.ray_rollout import RayRolloutWorkers


@pytest.fixture(scope="module")
def workers(ray_runtime, sandboxed_store):
    store, _ = sandboxed_store
    pool = RayRolloutWorkers(2, store=store, call_timeout_s=30.0)
    yield pool
    pool.shutdown()


def _specs(sandboxed_id: str) -> list[EpisodeSpec]:
    arith, ttt = env_id_named("ArithmeticChain"), env_id_named("TicTacToe")
    specs = [EpisodeSpec(arith, seed, hinted=hinted) for seed in (1, 2) for hinted in (False, True)]
    specs += [EpisodeSpec(ttt, 3, hinted=True), EpisodeSpec(ttt, 4)]
    specs += [EpisodeSpec(sandboxed_id, seed, hinted=seed == 5, env_kwargs={"span": 100}) for seed in (5, 6)]
    return specs


def _summary(trajectories) -> list[tuple]:
    return [(t.episode_id, t.seat, t.token_ids, t.loss_mask, t.reward, t.success, t.finish, t.failure,
             [(turn.action, turn.reward, turn.hint, turn.format_error) for turn in t.turns]) for t in trajectories]


def test_actor_envs_give_the_same_episodes_as_local_envs(workers, sandboxed_store, tokenizer) -> None:
    _, sandboxed_id = sandboxed_store
    specs = _specs(sandboxed_id)
    # raw gymnasium calls: same observations, rewards and infos for the same seeds (and hints for hinted resets)
    ray_pool, local_pool = workers.env_pool(), LocalEnvPool(make_with_gymnasium)
    try:
        remote = [ray_pool.acquire(s) for s in specs]
        local = [local_pool.acquire(s) for s in specs]
        calls = [(s.seed, {"hint": True} if s.hinted else None) for s in specs]
        assert ray_pool.reset_many([(e, *c) for e, c in zip(remote, calls)]) == \
            local_pool.reset_many([(e, *c) for e, c in zip(local, calls)])
        actions = [scripted_act("") for _ in specs]
        assert ray_pool.step_many(list(zip(remote, actions))) == local_pool.step_many(list(zip(local, actions)))
        assert {e.slot for e in remote} == {0, 1}  # spread over both actors
        assert remote[0].manifest == local[0].unwrapped.manifest
    finally:
        ray_pool.close()
        local_pool.close()
    workers.take_stats()
    # whole episodes through the runner: token-identical trajectories, multi-turn, two seats, hints refreshed
    config = RolloutConfig(max_concurrent_episodes=16, seed=7)
    policy = ScriptedPolicy(tokenizer, scripted_act)
    here = EpisodeRunner(policy, config).run(specs, seed=11)
    there = workers.runner(policy, config).run(specs, seed=11)
    assert _summary(there.trajectories) == _summary(here.trajectories)
    assert there.stats.env_failures == here.stats.env_failures == 0
    # later turns' hints came from the actor's prefetch (the runner asks privileged_hint() before each turn)
    assert any(t.hinted and len(t.turns) > 1 and all(turn.hint for turn in t.turns) for t in there.trajectories)
    assert len({t.seat for t in there.trajectories}) == 2
    # one message per actor per round, not one per environment
    actors = workers.take_stats()["actors"]
    assert sum(a.get("steps", 0) for a in actors) == there.stats.turns
    assert all(a.get("envs", 0) > 0 and a["pid"] != os.getpid() for a in actors)


def test_remote_errors_are_typed_per_episode(workers) -> None:
    pool = workers.env_pool()
    try:
        bad = pool.acquire(EpisodeSpec("spade/NoSuchEnvironment-v0", 0))
        good = pool.acquire(EpisodeSpec(env_id_named("ArithmeticChain"), 0))
        missing, ok = pool.reset_many([(bad, 0, None), (good, 0, None)])
        assert isinstance(missing, RemoteEnvError) and "NoSuchEnvironment" in str(missing)
        assert isinstance(ok, tuple) and ok[0].startswith("Compute")
    finally:
        pool.close()


class KillingPolicy(ScriptedPolicy):
    """The scripted policy, which SIGKILLs one env actor's process right after its first reply."""

    def __init__(self, tokenizer, pid: int) -> None:
        super().__init__(tokenizer, scripted_act)
        self.pid = pid

    def generate(self, prompts, params):
        out = super().generate(prompts, params)
        if self.calls == 1:
            os.kill(self.pid, signal.SIGKILL)
        return out


def test_killed_actor_mid_episode_is_a_recorded_env_failure(workers, sandboxed_store, tokenizer) -> None:
    _, sandboxed_id = sandboxed_store
    specs = [EpisodeSpec(sandboxed_id, seed, env_kwargs={"span": 100}) for seed in range(4)]  # 12-turn episodes
    victim = workers.group.slots[0].location["pid"]
    config = RolloutConfig(max_concurrent_episodes=8, seed=0)
    started = time.monotonic()
    result = workers.runner(KillingPolicy(tokenizer, victim), config).run(specs, seed=1)
    assert time.monotonic() - started < 60
    failed = [t for t in result.trajectories if t.failure is not None]
    # placement alternates actors, so exactly the two episodes on actor 0 fail; the others play on
    assert len(failed) == 2 == result.stats.env_failures
    assert all(t.failure == FAILURE_ENV and "env actor 0" in t.error and len(t.turns) == 1 for t in failed), \
        [t.error for t in failed]
    assert all(EnvActorLostError.__name__ in t.error for t in failed), [t.error for t in failed]
    assert all(t.finish == "truncated" and len(t.turns) == 12 for t in result.trajectories if t.failure is None)
    stats = workers.take_stats()["actors"]
    assert stats[0].get("failures", 0) + stats[0].get("errors", 0) >= 2
    # the next run gets a working actor again (Ray restarted it, or the group replaced it)
    again = workers.runner(ScriptedPolicy(tokenizer, scripted_act), config).run(specs, seed=1)
    assert again.stats.env_failures == 0 and len(again.trajectories) == 4
    assert workers.group.slots[0].location["pid"] != victim
