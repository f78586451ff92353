"""``run_suite``: play a model on every task of a suite, batched, and score it.

Each round collects the pending turn of every running task and sends all their conversations to the backend in
one ``chat`` call, then steps each task's environment with its reply. Evaluation needs verdicts, not token-exact
training data, so conversations are re-rendered by the backend every round (any :class:`ModelBackend`, including
API backends without token ids, works). Failures stay local: a prompt the backend cannot run (e.g. longer than the
model's context) or an environment that raises ends *that* task with ``finish="error"``; the others go on.
"""

from __future__ import annotations

import json
import math
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from spade_core.evaluation.errors import EvaluationError
from spade_core.evaluation.stats import wilson_interval
from spade_core.evaluation.suite import EvalTask, Suite
from spade_core.models.base import Generation, ModelBackend, SamplingParams
from spade_core.seeding import round_seed

DEFAULT_SAMPLING = SamplingParams(max_new_tokens=256, temperature=0.0)
"""Greedy decoding: an evaluation should give the same numbers when run twice."""


@dataclass
class TaskResult:
    """How one task went: the verdict, how many turns it took, and (optionally) the conversation."""

    suite: str
    task_id: str
    success: bool
    reward: float
    turns: int
    format_errors: int
    finish: str  # "terminated" | "truncated" | "error"
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    generated_tokens: int = 0
    transcript: list[dict[str, str]] | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if data["transcript"] is None:
            data.pop("transcript")
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TaskResult:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class SuiteSummary:
    """Aggregate numbers of one suite run: success rate with its Wilson 95% interval, turns and format errors.

    ``format_error_rate`` is the fraction of all model turns whose reply could not be parsed as an action;
    ``errors`` counts tasks ended by an infrastructure failure (prompt over the context, environment crash).
    """

    suite: str
    model: str
    n: int
    successes: int
    success_rate: float
    ci_low: float
    ci_high: float
    mean_turns: float
    format_error_rate: float
    mean_reward: float
    errors: int
    seconds: float = 0.0

    @classmethod
    def from_results(cls, suite: str, model: str, results: Sequence[TaskResult], seconds: float = 0.0) -> SuiteSummary:
        n = len(results)
        successes = sum(1 for r in results if r.success)
        low, high = wilson_interval(successes, n)
        turns = sum(r.turns for r in results)
        return cls(
            suite=suite, model=model, n=n, successes=successes, success_rate=successes / n if n else 0.0,
            ci_low=low, ci_high=high, mean_turns=turns / n if n else 0.0,
            format_error_rate=sum(r.format_errors for r in results) / turns if turns else 0.0,
            mean_reward=sum(r.reward for r in results) / n if n else 0.0,
            errors=sum(1 for r in results if r.finish == "error"), seconds=round(seconds, 3),
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SuiteSummary:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class SuiteRun:
    """The results of :func:`run_suite` on one suite."""

    suite: str
    model: str
    results: list[TaskResult]
    summary: SuiteSummary
    stats: dict[str, float] = field(default_factory=dict)


ProgressCallback = Callable[[int, int], None]
"""Called as ``(tasks finished, tasks in total)`` each time a task finishes."""


def run_suite(
    backend: ModelBackend,
    suite: Suite,
    *,
    limit: int | None = None,
    sampling: SamplingParams | None = None,
    seed: int = 0,
    max_concurrent: int | None = None,
    keep_transcripts: bool = True,
    progress: bool | ProgressCallback = False,
    model_name: str | None = None,
    batch_size: int | None = None,
) -> SuiteRun:
    """Play ``backend`` on the first ``limit`` tasks of ``suite``; return the results (written to a run directory
    by :func:`spade_core.evaluation.results.write_suite_run`).

    All running tasks share one ``backend.chat`` call per round (``max_concurrent`` caps how many run at once;
    default: all). ``sampling`` defaults to greedy decoding with the suite's ``max_new_tokens``; with a non-zero
    temperature each round's seed derives from ``seed``. ``progress=True`` shows a rich progress bar; a callable
    gets ``(finished, total)``. ``batch_size`` (else the suite's preference) sets
    a backend's ``max_batch_size`` for this run, where it has one (in-process backends).
    """
    suite = suite.limited(limit)
    if max_concurrent is not None and max_concurrent < 1:
        raise EvaluationError(f"max_concurrent must be >= 1, got {max_concurrent}")
    params = sampling or replace(DEFAULT_SAMPLING, max_new_tokens=suite.max_new_tokens)
    name = model_name or str(getattr(backend, "name", type(backend).__name__))
    started = time.perf_counter()
    stats = {"generate_calls": 0, "prompts": 0, "max_batch": 0, "generate_seconds": 0.0, "env_seconds": 0.0}
    total = len(suite.tasks)
    results: dict[int, TaskResult] = {}

    bar, callback = _progress(progress, suite.name, total)
    wanted = batch_size or suite.batch_size
    previous_batch = getattr(backend, "max_batch_size", None)
    if wanted is not None and isinstance(previous_batch, int):
        backend.max_batch_size = wanted  # type: ignore[attr-defined]
    try:
        queue = deque(enumerate(suite.tasks))
        active: list[_Episode] = []
        round_index = 0
        while queue or active:
            while queue and (max_concurrent is None or len(active) < max_concurrent):
                index, task = queue.popleft()
                episode = _Episode(index, task, suite, keep_transcripts)
                t0 = time.perf_counter()
                episode.start()
                stats["env_seconds"] += time.perf_counter() - t0
                active.append(episode)
            waiting = [e for e in active if not e.done]
            if waiting:
                round_params = params if params.temperature == 0 else replace(
                    params, seed=round_seed(seed, round_index))
                generations = _generate(backend, [e.messages for e in waiting], round_params, stats)
                round_index += 1
                for episode, generation in zip(waiting, generations):
                    t0 = time.perf_counter()
                    episode.apply(generation)
                    stats["env_seconds"] += time.perf_counter() - t0
            still = []
            for episode in active:
                if episode.done:
                    results[episode.index] = episode.result()
                    episode.close()
                    if callback is not None:
                        callback(len(results), total)
                else:
                    still.append(episode)
            active = still
    finally:
        if bar is not None:
            bar.stop()
        if wanted is not None and isinstance(previous_batch, int):
            backend.max_batch_size = previous_batch  # type: ignore[attr-defined]
    ordered = [results[i] for i in sorted(results)]
    seconds = time.perf_counter() - started
    run = SuiteRun(suite.name, name, ordered, SuiteSummary.from_results(suite.name, name, ordered, seconds),
                   {k: round(v, 3) if isinstance(v, float) else v for k, v in stats.items()})
    return run


def _progress(progress: bool | ProgressCallback, label: str, total: int) -> tuple[Any, ProgressCallback | None]:
    if callable(progress):
        return None, progress
    if not progress:
        return None, None
    console = Console(stderr=True)
    if not console.is_terminal:  # logs (CI, nohup): a plain line per ~10% instead of a live bar
        started = time.perf_counter()
        step = max(1, total // 10)

        def log_line(done: int, _total: int) -> None:
            if done % step == 0 or done == total:
                console.print(f"{label}: {done}/{total} tasks done ({time.perf_counter() - started:.0f}s)",
                              highlight=False)

        return None, log_line
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=console)
    task_id = bar.add_task(label, total=total)
    bar.start()
    return bar, lambda done, _total: bar.update(task_id, completed=done)


def _generate(backend: ModelBackend, conversations: list[list[dict[str, str]]], params: SamplingParams,
              stats: dict[str, Any]) -> list[Generation]:
    """One batched chat call; if it raises, retry prompt by prompt so that only the failing ones fail."""
    t0 = time.perf_counter()
    stats["generate_calls"] += 1
    stats["prompts"] += len(conversations)
    stats["max_batch"] = max(stats["max_batch"], len(conversations))
    try:
        generations = list(backend.chat(conversations, params))
        if len(generations) != len(conversations):
            raise EvaluationError(
                f"the backend returned {len(generations)} generations for {len(conversations)} prompts"
            )
    except Exception as exc:  # isolate the failing prompts instead of losing the round
        if len(conversations) == 1:
            generations = [_failed(exc)]
        else:
            generations = []
            for conversation in conversations:
                try:
                    stats["generate_calls"] += 1
                    one = list(backend.chat([conversation], params))
                    generations.append(one[0] if one else _failed(EvaluationError("the backend returned nothing")))
                except Exception as single:
                    generations.append(_failed(single))
    stats["generate_seconds"] += time.perf_counter() - t0
    return generations


def _failed(exc: BaseException) -> Generation:
    return Generation([], [], "", [], finish_reason="error", error=f"{type(exc).__name__}: {exc}")


class _Episode:
    """One task being played: its environment, the conversation so far and the running tallies."""

    def __init__(self, index: int, task: EvalTask, suite: Suite, keep_transcript: bool) -> None:
        self.index = index
        self.task = task
        self.suite = suite
        self.keep_transcript = keep_transcript
        self.env: Any = None
        self.messages: list[dict[str, str]] = []
        self.done = False
        self.finish = "terminated"
        self.error: str | None = None
        self.success = False
        self.reward = 0.0
        self.turns = 0
        self.format_errors = 0
        self.tokens = 0
        self.info: dict[str, Any] = {}

    def start(self) -> None:
        try:
            self.env = self.task.make_env()
            obs, info = self.env.reset(seed=self.task.seed, options=dict(self.task.options) or None)
        except Exception as exc:  # a task that cannot start fails alone
            self._fail(f"reset failed: {type(exc).__name__}: {exc}")
            return
        manifest = getattr(getattr(self.env, "unwrapped", self.env), "manifest", None)
        description = getattr(manifest, "description", "") or ""
        system = self.suite.system_prompt.replace("{description}", description).strip()
        self.messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": obs}]
        self.info = _json_safe(info)

    def apply(self, generation: Generation) -> None:
        if generation.finish_reason == "error":
            self._fail(f"generation failed: {generation.error or 'unknown error'}")
            return
        self.turns += 1
        self.tokens += len(generation.completion_ids)
        self.messages.append({"role": "assistant", "content": generation.text})
        try:
            obs, reward, terminated, truncated, info = self.env.step(generation.text)
        except Exception as exc:  # a broken environment ends only this task
            self._fail(f"step failed: {type(exc).__name__}: {exc}")
            return
        if info.get("sandbox_error") is not None:
            self._fail(f"environment error: {info['sandbox_error']}")
            return
        reward = float(reward)
        self.reward += reward if math.isfinite(reward) else 0.0
        if info.get("format_error"):
            self.format_errors += 1
        self.info = _json_safe(info)
        if terminated or truncated:
            self.done = True
            self.finish = "terminated" if terminated else "truncated"
            self.success = bool(info.get("success", False))
            return
        self.messages.append({"role": "user", "content": obs})

    def result(self) -> TaskResult:
        return TaskResult(
            suite=self.suite.name, task_id=self.task.task_id, success=self.success, reward=self.reward,
            turns=self.turns, format_errors=self.format_errors, finish=self.finish, error=self.error,
            info=self.info, generated_tokens=self.tokens,
            transcript=list(self.messages) if self.keep_transcript else None,
        )

    def close(self) -> None:
        if self.env is not None:
            try:
                self.env.close()
            except Exception:  # closing must not fail the run
                pass
            self.env = None

    def _fail(self, message: str) -> None:
        self.done = True
        self.finish = "error"
        self.error = message
        self.success = False


def _json_safe(info: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON-serialisable part of an info dict (anything else is written as its ``str``)."""
    out: dict[str, Any] = {}
    for key, value in info.items():
        try:
            json.dumps(value)
            out[str(key)] = value
        except (TypeError, ValueError):
            out[str(key)] = str(value)
    return out
