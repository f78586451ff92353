"""The episode runner: many Gymnasium environments at once, one batched ``generate`` call per round.

Each round collects the pending turn of every running episode (across environments and seats), sends all their
prompts to the generator in one call, then steps each environment with its action. Finished episodes free their
slot for the next queued one (up to ``max_concurrent_episodes`` run at a time). Every seat of a multi-player game is
played by the same policy and gets its own :class:`Trajectory` (per-seat rewards from ``info["rewards"]``).

A run may be given a :class:`~spade_core.deadlines.Deadline`. It is checked before every round (a turn boundary):
once it has passed, no queued episode starts (``RolloutStats.not_started`` counts them, and they leave no trajectory)
and every running episode ends with finish ``time_limit`` (:data:`FINISH_TIME_LIMIT`: recorded as played so far,
never trained on, left out of the regret estimate).

Failures stay local: an environment error (``info["sandbox_error"]``, an exception from ``reset``/``step``) or a
generation error ends *that* episode with ``failure`` recorded; the other episodes go on. A ``generate`` call that
raises is retried one prompt at a time so that only the failing prompts fail.

Where environments live is pluggable: each run gets an :class:`EnvPool` (by default :class:`LocalEnvPool`, in this
process) and resets/steps all episodes of a round through it in one ``reset_many``/``step_many`` call, so a pool that
hosts environments elsewhere (Ray actors, :mod:`spade_core.scale`) pays one round trip per host and round.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from dataclasses import replace

import gymnasium as gym

from spade_core import seeding
from spade_core.contract.env import HINT_OPTION
from spade_core.deadlines import NO_DEADLINE, Deadline
from spade_core.models.base import Generation, ModelBackend
from spade_core.rollout.chat import ChatFormatter
from spade_core.rollout.env_pool import EnvMaker, EnvPool, EnvPoolFactory, LocalEnvPool, make_with_gymnasium
from spade_core.rollout.episode import LiveEpisode
from spade_core.rollout.errors import RolloutConfigError
from spade_core.rollout.specs import EpisodeSpec, RolloutConfig
from spade_core.rollout.stats import RolloutResult, RolloutStats
from spade_core.rollout.trajectory import (
    FAILURE_ENV,
    FAILURE_GENERATION,
    FINISH_TIME_LIMIT,
    ROLES,
    Trajectory,
)


class EpisodeRunner:
    """Plays :class:`EpisodeSpec` s with one policy and returns one trajectory per episode and seat."""

    def __init__(self, generator: ModelBackend, config: RolloutConfig | None = None, *,
                 make_env: EnvMaker = make_with_gymnasium, env_pool: EnvPoolFactory | None = None) -> None:
        """``env_pool`` hosts each run's environments (default: ``LocalEnvPool(make_env)``, in this process)."""
        self.generator = generator
        self.config = config or RolloutConfig()
        self.formatter = ChatFormatter(generator.tokenizer)
        self.make_env = make_env
        self.env_pool = env_pool or (lambda: LocalEnvPool(self.make_env))
        self._runs = 0

    def run(self, specs: Sequence[EpisodeSpec], *, seed: int | None = None,
            deadline: Deadline = NO_DEADLINE) -> RolloutResult:
        """Play every spec to the end, or until ``deadline``; trajectories come back in spec order (seats ascending).

        Sampling seeds derive from ``seed`` (else from ``config.seed`` and the number of earlier runs), so the same
        specs, weights and seed give the same trajectories. Past ``deadline`` (checked before each round) no turn
        or episode starts: running episodes end as ``time_limit``, queued ones are counted in ``not_started``.
        """
        for spec in specs:
            if spec.role not in ROLES:
                raise RolloutConfigError(f"EpisodeSpec.role must be one of {ROLES}, got {spec.role!r}")
        run_index = self._runs
        self._runs += 1
        # keys and values a local generator kept from earlier calls would be reused by this run's prompts: equal to
        # float rounding, not bitwise, so a run starts from none (the same specs, weights and seed give the same
        # trajectories, logprobs included); within the run every turn still prefills only its new tokens
        forget = getattr(self.generator, "forget_prefix", None)
        if callable(forget):
            forget()
        base_seed = seed if seed is not None else (
            None if self.config.seed is None else seeding.runner_call_seed(self.config.seed, run_index))
        stats = RolloutStats()
        started = time.perf_counter()
        pool = self.env_pool()
        queue = deque(enumerate(specs))
        active: list[LiveEpisode] = []
        finished: dict[int, list[Trajectory]] = {}
        round_index = 0
        try:
            while queue or active:
                if deadline.expired():
                    stats.not_started += len(queue)
                    queue.clear()
                    for episode in active:
                        episode.stop_at_deadline()
                starting = []
                while queue and len(active) + len(starting) < self.config.max_concurrent_episodes:
                    index, spec = queue.popleft()
                    starting.append(LiveEpisode(index, spec, self, run_index))
                active.extend(starting)
                self._start(starting, pool, stats)
                requests = []
                for episode in active:
                    if not episode.done:
                        prompt = episode.prepare_turn(stats)
                        if prompt is not None:
                            requests.append((episode, prompt))
                if requests:
                    generations = self._generate([p for _, p in requests], round_index, base_seed, stats)
                    round_index += 1
                    actions = [(episode, episode.record(generation, stats))
                               for (episode, _), generation in zip(requests, generations)]
                    self._step([(e, a) for e, a in actions if a is not None], pool, stats)
                still = []
                for episode in active:
                    if episode.done:
                        finished[episode.index] = episode.trajectories()
                        if episode.env is not None:
                            pool.release(episode.spec, episode.env, broken=episode.failure == FAILURE_ENV)
                    else:
                        still.append(episode)
                active = still
        finally:
            for episode in active:
                if episode.env is not None:
                    pool.release(episode.spec, episode.env, broken=True)
            pool.close()
        trajectories = [t for i in sorted(finished) for t in finished[i]]
        stats.episodes = len(finished)
        stats.trajectories = len(trajectories)
        stats.env_failures = sum(1 for i in finished if finished[i] and finished[i][0].failure == FAILURE_ENV)
        stats.generation_failures = sum(
            1 for i in finished if finished[i] and finished[i][0].failure == FAILURE_GENERATION
        )
        stats.time_limited = sum(1 for i in finished if finished[i] and finished[i][0].finish == FINISH_TIME_LIMIT)
        stats.wall_seconds = time.perf_counter() - started
        return RolloutResult(trajectories, stats)

    # -- environments ------------------------------------------------------------------------------------------
    @staticmethod
    def _start(episodes: list[LiveEpisode], pool: EnvPool, stats: RolloutStats) -> None:
        """Acquire and reset the environments of newly admitted episodes, all resets in one pool call."""
        if not episodes:
            return
        t0 = time.perf_counter()
        ready = []
        for episode in episodes:
            try:
                episode.env = pool.acquire(episode.spec)
            except Exception as exc:  # a broken environment ends only this episode
                episode.fail_env("reset", exc)
                continue
            ready.append(episode)
        results = pool.reset_many([(e.env, e.spec.seed, {HINT_OPTION: True} if e.spec.hinted else None) for e in ready])
        stats.env_seconds += time.perf_counter() - t0
        for episode, result in zip(ready, results, strict=True):
            episode.begin(result)

    @staticmethod
    def _step(actions: list[tuple[LiveEpisode, str]], pool: EnvPool, stats: RolloutStats) -> None:
        """Step every episode that acted this round, in one pool call."""
        if not actions:
            return
        t0 = time.perf_counter()
        results = pool.step_many([(episode.env, action) for episode, action in actions])
        stats.env_seconds += time.perf_counter() - t0
        for (episode, _), result in zip(actions, results, strict=True):
            episode.after_step(result)

    # -- generation --------------------------------------------------------------------------------------------
    def _generate(self, prompts: list[list[int]], round_index: int, base_seed: int | None,
                  stats: RolloutStats) -> list[Generation]:
        round_seed = None if base_seed is None else seeding.round_seed(base_seed, round_index)
        params = replace(self.config.sampling, seed=round_seed)
        stats.prompts += len(prompts)
        stats.max_batch = max(stats.max_batch, len(prompts))
        stats.prompt_tokens += sum(len(p) for p in prompts)
        t0 = time.perf_counter()
        try:
            stats.generate_calls += 1
            generations = list(self.generator.generate(prompts, params))
            if len(generations) != len(prompts):
                raise RuntimeError(f"the backend returned {len(generations)} generations for {len(prompts)} prompts")
        except Exception as exc:  # isolate the failing prompts instead of losing the batch
            if len(prompts) == 1:
                generations = [_error_generation(prompts[0], exc)]
            else:
                generations = []
                for prompt in prompts:
                    try:
                        stats.generate_calls += 1
                        generations.extend(self.generator.generate([prompt], params)[:1] or [
                            _error_generation(prompt, RuntimeError("the backend returned no generation"))])
                    except Exception as one:
                        generations.append(_error_generation(prompt, one))
        stats.generate_seconds += time.perf_counter() - t0
        stats.completion_tokens += sum(len(g.completion_ids) for g in generations)
        return generations

    def system_text(self, spec: EpisodeSpec, env: gym.Env) -> str:
        manifest = getattr(env.unwrapped, "manifest", None)
        description = getattr(manifest, "description", "") or ""
        return self.config.system_prompt.format(role=spec.role, description=description, env_id=spec.env_id).strip()


def _error_generation(prompt: list[int], exc: BaseException) -> Generation:
    return Generation(list(prompt), [], "", [], finish_reason="error", error=f"{type(exc).__name__}: {exc}")
