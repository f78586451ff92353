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

import json
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol, get_args

import gymnasium as gym

from spade_core import seeding
from spade_core.contract.env import HINT_OPTION
from spade_core.deadlines import NO_DEADLINE, Deadline
from spade_core.models.base import Generation, ModelBackend, SamplingParams
from spade_core.models.errors import GenerationError
from spade_core.rollout.chat import ChatFormatter
from spade_core.rollout.errors import RolloutConfigError
from spade_core.rollout.trajectory import (
    FAILURE_ENV,
    FAILURE_GENERATION,
    FINISH_TIME_LIMIT,
    ROLES,
    Trajectory,
    Turn,
)

DEFAULT_SYSTEM_PROMPT = (
    "You are the {role} acting in a text environment. {description}\n"
    "Read each observation and reply with your action only."
)
HINT_TEMPLATE = "Hint: {hint}"
HintPlacement = Literal["user", "before", "system"]
HINT_PLACEMENTS: tuple[HintPlacement, ...] = get_args(HintPlacement)


def with_hint(content: str, shown_hint: str, placement: str, *, hint_only: bool = False) -> str:
    """A user message's content with the rendered hint placed in it: before the observation for ``before``, after
    it otherwise (``system`` puts the first turn's hint in the system message instead). ``hint_only``: the hint in
    place of the observation (the hint without the task, whatever the placement: success then means the hint alone
    carries the answer)."""
    if hint_only:
        return shown_hint
    return f"{shown_hint}\n\n{content}" if placement == "before" else f"{content}\n\n{shown_hint}"
"""Where a hinted rollout shows the hint: ``"user"`` after the observation in the user turn (the end of the
observation); ``"before"`` ahead of the observation in the user turn; ``"system"`` the first hint in the system
message (later turns' hints after their observation)."""


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode to play: which environment, which seed, hinted or not, and its bookkeeping labels.

    Episodes of one GRPO group share ``group_id`` (typically the same env and seed, played G times). ``hint_only``
    (with ``hinted``): every user turn shows the hint alone, never the observation (the regret estimate's hint-only
    arm, :mod:`spade_core.training.regret`).
    """

    env_id: str
    seed: int
    hinted: bool = False
    hint_only: bool = False
    role: str = "agent"
    group_id: str | None = None
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    episode_id: str | None = None

    def __post_init__(self) -> None:
        if self.hint_only and not self.hinted:
            raise RolloutConfigError(f"EpisodeSpec({self.env_id!r}, seed {self.seed}): hint_only shows the hint "
                                     "without the observation, so it needs hinted=True")

    def resolved_group_id(self) -> str:
        arm = "hint_only" if self.hint_only else int(self.hinted)
        return self.group_id if self.group_id is not None else f"{self.env_id}|{self.seed}|{arm}"


@dataclass(frozen=True)
class RolloutKnobs:
    """How episodes are played, but for sampling and seeding: the knobs a run sets (the self-play ``agent`` section
    holds them)."""

    max_concurrent_episodes: int = 64  # episodes stepped together (one batched generation per turn)
    max_context_tokens: int = 4096  # an episode's token budget (prompt and replies)
    # the system message; {role} and {description} are filled from the environment
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    hint_template: str = HINT_TEMPLATE  # how a hinted rollout shows the hint; {hint} is the environment's hint
    hint_placement: HintPlacement = "user"  # where hinted rollouts show the hint: one of HINT_PLACEMENTS
    hint_every_turn: bool = True  # multi-turn: refresh the hint from env.privileged_hint() before each turn
    use_system_role: bool = True  # False: the system text opens the first user message (templates without one)

    def __post_init__(self) -> None:
        if self.max_concurrent_episodes < 1:
            raise RolloutConfigError(f"max_concurrent_episodes must be >= 1, got {self.max_concurrent_episodes}")
        if self.max_context_tokens < 2:
            raise RolloutConfigError(f"max_context_tokens must be >= 2, got {self.max_context_tokens}")
        if self.hint_placement not in HINT_PLACEMENTS:
            raise RolloutConfigError(f"hint_placement must be one of {HINT_PLACEMENTS}, got {self.hint_placement!r}")


@dataclass(frozen=True)
class RolloutConfig(RolloutKnobs):
    """How episodes are played. ``sampling.seed`` is ignored: each round gets a seed derived from ``seed``."""

    sampling: SamplingParams = field(default_factory=lambda: SamplingParams(max_new_tokens=64))
    seed: int | None = 0  # None: sampling seeds come from torch's global RNG

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.sampling.max_new_tokens < 1:
            raise RolloutConfigError("sampling.max_new_tokens must be >= 1: every turn needs at least one token")
        try:
            _ = self.sampling.distribution
        except GenerationError as exc:
            raise RolloutConfigError(f"sampling: {exc}") from exc


@dataclass
class RolloutStats:
    """Counters of one :meth:`EpisodeRunner.run` call."""

    episodes: int = 0
    trajectories: int = 0
    turns: int = 0
    generate_calls: int = 0
    prompts: int = 0
    max_batch: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    env_failures: int = 0
    generation_failures: int = 0
    time_limited: int = 0  # episodes the deadline ended (finish time_limit)
    not_started: int = 0  # queued episodes the deadline kept from starting (no trajectory)
    generate_seconds: float = 0.0
    env_seconds: float = 0.0
    wall_seconds: float = 0.0

    @property
    def episodes_per_second(self) -> float:
        return self.episodes / self.wall_seconds if self.wall_seconds > 0 else 0.0

    @property
    def completion_tokens_per_second(self) -> float:
        return self.completion_tokens / self.wall_seconds if self.wall_seconds > 0 else 0.0

    def as_dict(self) -> dict[str, float]:
        out = dict(self.__dict__)
        out["episodes_per_second"] = self.episodes_per_second
        out["completion_tokens_per_second"] = self.completion_tokens_per_second
        return out


@dataclass
class RolloutResult:
    trajectories: list[Trajectory]
    stats: RolloutStats


EnvMaker = Callable[[EpisodeSpec], gym.Env]
ResetResult = tuple[Any, dict[str, Any]]
StepResult = tuple[Any, Any, bool, bool, dict[str, Any]]


def make_with_gymnasium(spec: EpisodeSpec) -> gym.Env:
    """The default environment factory: ``gymnasium.make(spec.env_id, **spec.env_kwargs)``."""
    return gym.make(spec.env_id, **dict(spec.env_kwargs))


class EnvPool(Protocol):
    """The environments of one :meth:`EpisodeRunner.run`: where they live and how a round's calls reach them.

    ``acquire`` may return any object with gymnasium's ``reset``/``step``/``close`` and an ``unwrapped`` (read for
    ``manifest`` and ``privileged_hint``). ``reset_many``/``step_many`` return one result per call, in order: the
    call's return value, or the exception it raised (a failure of that episode only, never of the batch).
    """

    def acquire(self, spec: EpisodeSpec) -> gym.Env: ...

    def reset_many(self, calls: Sequence[tuple[gym.Env, int, dict[str, Any] | None]]
                   ) -> list[ResetResult | BaseException]: ...

    def step_many(self, calls: Sequence[tuple[gym.Env, str]]) -> list[StepResult | BaseException]: ...

    def release(self, spec: EpisodeSpec, env: gym.Env, *, broken: bool) -> None: ...

    def close(self) -> None: ...


EnvPoolFactory = Callable[[], EnvPool]
"""Called once per :meth:`EpisodeRunner.run` for that run's pool."""


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
        active: list[_Episode] = []
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
                    starting.append(_Episode(index, spec, self, run_index))
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
    def _start(episodes: list[_Episode], pool: EnvPool, stats: RolloutStats) -> None:
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
    def _step(actions: list[tuple[_Episode, str]], pool: EnvPool, stats: RolloutStats) -> None:
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


def env_key(spec: EpisodeSpec) -> str:
    """Episodes with the same key can reuse each other's environment instance."""
    return spec.env_id + "|" + json.dumps(dict(spec.env_kwargs), sort_keys=True, default=repr)


class LocalEnvPool:
    """The default :class:`EnvPool`: environments in this process, reused across episodes of one run (making one
    can start a sandbox worker); calls run one after another."""

    def __init__(self, make_env: EnvMaker) -> None:
        self.make_env = make_env
        self.idle: dict[str, list[gym.Env]] = {}
        self.all: list[gym.Env] = []

    def acquire(self, spec: EpisodeSpec) -> gym.Env:
        idle = self.idle.get(env_key(spec))
        if idle:
            return idle.pop()
        env = self.make_env(spec)
        self.all.append(env)
        return env

    def reset_many(self, calls: Sequence[tuple[gym.Env, int, dict[str, Any] | None]]
                   ) -> list[ResetResult | BaseException]:
        out: list[ResetResult | BaseException] = []
        for env, seed, options in calls:
            try:
                out.append(env.reset(seed=seed, options=options))
            except Exception as exc:  # returned: it ends only this episode
                out.append(exc)
        return out

    def step_many(self, calls: Sequence[tuple[gym.Env, str]]) -> list[StepResult | BaseException]:
        out: list[StepResult | BaseException] = []
        for env, action in calls:
            try:
                out.append(env.step(action))
            except Exception as exc:  # returned: it ends only this episode
                out.append(exc)
        return out

    def release(self, spec: EpisodeSpec, env: gym.Env, *, broken: bool) -> None:
        if not broken:
            self.idle.setdefault(env_key(spec), []).append(env)
            return
        self._close(env)
        self.all = [e for e in self.all if e is not env]

    def close(self) -> None:
        for env in self.all:
            self._close(env)
        self.all, self.idle = [], {}

    @staticmethod
    def _close(env: gym.Env) -> None:
        try:
            env.close()
        except Exception:  # closing a broken environment must not fail the run
            pass


@dataclass
class _Seat:
    messages: list[dict[str, str]] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    prompt_length: int = 0
    turns: list[Turn] = field(default_factory=list)
    reward: float = 0.0
    success: bool = False
    format_errors: int = 0
    pending: str | None = None
    pending_hint: str | None = None
    env_start: int = 0


class _Episode:
    """The running state of one episode: its environment, one conversation per seat, and who acts next."""

    def __init__(self, index: int, spec: EpisodeSpec, runner: EpisodeRunner, run_index: int) -> None:
        self.index = index
        self.spec = spec
        self.runner = runner
        self.config = runner.config
        label = f"r{run_index}e{index}-{spec.env_id}-{spec.seed}-{'o' if spec.hint_only else 'h' if spec.hinted else 'u'}"
        self.episode_id = spec.episode_id or label
        self.env: gym.Env | None = None
        self.seats: dict[int, _Seat] = {}
        self.num_seats = 1
        self.acting = 0
        self.done = False
        self.finish = "terminated"
        self.failure: str | None = None
        self.error: str | None = None
        self.first_hint: str | None = None
        self.system = ""
        self.distribution = self.config.sampling.distribution  # what every turn is sampled from (and scored under)

    # -- lifecycle -------------------------------------------------------------------------------------------
    def begin(self, result: ResetResult | BaseException) -> None:
        """Take the reset's observation (or its error) and set up the first seat."""
        if isinstance(result, BaseException):
            self.fail_env("reset", result)
            return
        try:
            obs, info = result
        except (TypeError, ValueError) as exc:
            self.fail_env("reset", exc)
            return
        manifest = getattr(self.env.unwrapped, "manifest", None)
        self.num_seats = int(getattr(manifest, "players", 1) or 1)
        self.system = self.runner.system_text(self.spec, self.env)
        if self.spec.hinted:
            self.first_hint = info.get(HINT_OPTION) if isinstance(info.get(HINT_OPTION), str) else None
            if self.first_hint is None and not self._can_hint():
                self._fail(FAILURE_ENV, "a hinted rollout was requested but the environment gave no privileged hint "
                                        f"(reset(options={{{HINT_OPTION!r}: True}}) put no {HINT_OPTION!r} in info)")
                return
        self.acting = self._player(info, default=0)
        seat = self.seats.setdefault(self.acting, _Seat())
        seat.pending = obs

    def prepare_turn(self, stats: RolloutStats) -> list[int] | None:
        """Build the acting seat's prompt ids (appending the new context); None if the episode just ended."""
        seat = self.seats[self.acting]
        hint = self._hint_for_turn(seat)
        if self.done:
            return None
        content = seat.pending or ""
        hint_only = self.spec.hint_only
        if hint_only:  # the observation is withheld on every turn, hint or no hint
            content = with_hint(content, self.config.hint_template.format(hint=hint or ""), self.config.hint_placement,
                                hint_only=True)
        elif hint is not None and not (self.config.hint_placement == "system" and not seat.ids):
            content = with_hint(content, self.config.hint_template.format(hint=hint), self.config.hint_placement)
        message = {"role": "user", "content": content}
        if not seat.ids:
            system = self.system
            if hint is not None and self.config.hint_placement == "system" and not hint_only:
                system = f"{system}\n\n{self.config.hint_template.format(hint=hint)}"
            if self.config.use_system_role:
                opening = [{"role": "system", "content": system}, message]
            else:
                opening = [{"role": "user", "content": f"{system}\n\n{content}"}]
            new_ids = self.runner.formatter.first_prompt(opening)
            seat.messages = opening
        else:
            last_generated = seat.ids[seat.turns[-1].gen_start:seat.turns[-1].gen_end]
            try:
                new_ids = self.runner.formatter.continuation(seat.messages, last_generated, message)
            except Exception as exc:  # a template problem ends this episode, not the batch
                self._fail(FAILURE_GENERATION, f"{type(exc).__name__}: {exc}")
                return None
            seat.messages = [*seat.messages, message]
        if len(seat.ids) + len(new_ids) + self.config.sampling.max_new_tokens > self.config.max_context_tokens:
            if not seat.ids:
                self._fail(FAILURE_GENERATION, f"the first prompt has {len(new_ids)} tokens; with max_new_tokens it "
                                               f"exceeds max_context_tokens={self.config.max_context_tokens}")
            else:
                self.done, self.finish = True, "context_limit"
            return None
        seat.env_start = len(seat.ids)
        seat.ids.extend(new_ids)
        seat.mask.extend([0] * len(new_ids))
        seat.logprobs.extend([0.0] * len(new_ids))
        if not seat.turns:
            seat.prompt_length = len(seat.ids)
        seat.pending_hint = hint
        seat.pending = None
        return list(seat.ids)

    def record(self, generation: Generation, stats: RolloutStats) -> str | None:
        """Record the generated turn; returns the action to step the environment with (None: the episode ended)."""
        seat = self.seats[self.acting]
        if generation.finish_reason == "error" or not generation.completion_ids:
            if seat.turns:
                self._rollback_context(seat)
            self._fail(FAILURE_GENERATION, generation.error or "the generator returned an empty completion")
            return None
        ids = [int(t) for t in generation.completion_ids]
        logprobs = [float(x) for x in generation.logprobs] if generation.logprobs else [0.0] * len(ids)
        if len(logprobs) != len(ids):
            if seat.turns:
                self._rollback_context(seat)
            self._fail(FAILURE_GENERATION, f"the generator returned {len(logprobs)} logprobs for {len(ids)} tokens")
            return None
        gen_start = len(seat.ids)
        seat.ids.extend(ids)
        seat.mask.extend([1] * len(ids))
        seat.logprobs.extend(logprobs)
        turn = Turn(seat.env_start, gen_start, len(seat.ids), generation.text, 0.0, None, generation.finish_reason,
                    seat.pending_hint)
        seat.turns.append(turn)
        seat.messages = [*seat.messages, {"role": "assistant", "content": generation.text}]
        stats.turns += 1
        return generation.text

    def after_step(self, result: StepResult | BaseException) -> None:
        """Take the environment's answer to the action :meth:`record` returned."""
        seat = self.seats[self.acting]
        if isinstance(result, BaseException):
            self.fail_env("step", result)
            return
        try:
            obs, reward, terminated, truncated, info = result
        except (TypeError, ValueError) as exc:
            self.fail_env("step", exc)
            return
        turn = seat.turns[-1]
        if info.get("sandbox_error") is not None:
            self._fail(FAILURE_ENV, str(info["sandbox_error"]))
            return
        reward = float(reward)
        turn.reward = reward
        turn.format_error = info.get("format_error")
        if turn.format_error:
            seat.format_errors += 1
        mover = self.acting
        if terminated or truncated:
            self._settle(mover, reward, info)
            self.done, self.finish = True, "terminated" if terminated else "truncated"
            return
        seat.reward += reward
        self.acting = self._player(info, default=mover) if self.num_seats > 1 else 0
        self.seats.setdefault(self.acting, _Seat()).pending = obs

    def trajectories(self) -> list[Trajectory]:
        out = []
        seats = sorted(self.seats.items()) or [(0, _Seat())]
        for number, seat in seats:
            if not seat.turns and self.failure is None and len(seats) > 1:
                continue  # a seat that never had to act in a game that ended normally
            out.append(Trajectory(
                env_id=self.spec.env_id, role=self.spec.role, group_id=self.spec.resolved_group_id(),
                episode_id=self.episode_id, token_ids=list(seat.ids), loss_mask=list(seat.mask),
                logprobs=list(seat.logprobs), prompt_length=seat.prompt_length if seat.turns else len(seat.ids),
                turns=list(seat.turns), reward=seat.reward, success=seat.success, hinted=self.spec.hinted,
                hint_only=self.spec.hint_only,
                seed=self.spec.seed, seat=number, num_seats=self.num_seats, format_errors=seat.format_errors,
                finish="error" if self.failure else self.finish, failure=self.failure, error=self.error,
                temperature=self.distribution.temperature, top_k=self.distribution.top_k,
                top_p=self.distribution.top_p,
                metadata={"env_kwargs": dict(self.spec.env_kwargs)} if self.spec.env_kwargs else {},
            ))
        return out

    # -- helpers ---------------------------------------------------------------------------------------------
    def _settle(self, mover: int, reward: float, info: Mapping[str, Any]) -> None:
        """Final rewards and success per seat: ``info["rewards"]`` (one per seat) when the game gives it."""
        rewards = info.get("rewards")
        per_seat = isinstance(rewards, list) and len(rewards) >= self.num_seats > 1
        if per_seat:
            for number in range(self.num_seats):
                self.seats.setdefault(number, _Seat()).reward += float(rewards[number])
        else:
            self.seats[mover].reward += reward
        winner = info.get("winner")
        for number, seat in self.seats.items():
            if "winner" in info and self.num_seats > 1:
                seat.success = winner == number
            else:
                seat.success = bool(info.get("success", False)) if number == mover else False

    def _player(self, info: Mapping[str, Any], *, default: int) -> int:
        pid = info.get("player_id", default)
        return pid if isinstance(pid, int) and not isinstance(pid, bool) and 0 <= pid < max(self.num_seats, 1) else default

    def _can_hint(self) -> bool:
        return callable(getattr(self.env.unwrapped, "privileged_hint", None)) if self.env is not None else False

    def _hint_for_turn(self, seat: _Seat) -> str | None:
        """The hint shown with this turn: the reset hint first, then (multi-turn) the current one."""
        if not self.spec.hinted:
            return None
        if self.first_hint is not None and not any(s.turns for s in self.seats.values()):
            return self.first_hint
        if (seat.turns and not self.config.hint_every_turn) or not self._can_hint():
            return None
        try:
            hint = self.env.unwrapped.privileged_hint()
        except Exception as exc:  # a failing hint is an environment error
            self._fail(FAILURE_ENV, f"privileged_hint() failed: {type(exc).__name__}: {exc}")
            return None
        return hint if isinstance(hint, str) else None

    @staticmethod
    def _rollback_context(seat: _Seat) -> None:
        """Drop the context appended for a turn that produced nothing, so turns still tile the tokens."""
        del seat.ids[seat.env_start:]
        del seat.mask[seat.env_start:]
        del seat.logprobs[seat.env_start:]
        if seat.messages and seat.messages[-1].get("role") == "user":
            seat.messages = seat.messages[:-1]

    def stop_at_deadline(self) -> None:
        """End a running episode at a turn boundary because its phase's deadline passed (finish ``time_limit``)."""
        if not self.done:
            self.done, self.finish = True, FINISH_TIME_LIMIT

    def fail_env(self, call: str, exc: BaseException) -> None:
        """End the episode with an environment failure raised by ``call`` (reset/step)."""
        self._fail(FAILURE_ENV, f"{call} failed: {type(exc).__name__}: {exc}")

    def _fail(self, kind: str, message: str) -> None:
        self.done = True
        self.failure = kind
        self.error = message
        self.finish = "error"
