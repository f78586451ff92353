"""Validate candidates as Ray tasks: same signature and reports as :func:`~spade_core.validation.validate_many`.

It runs the very list of stages the local pipeline runs (:func:`~spade_core.validation.stage_hook.stages_in_effect`:
the built-in ones and those plugins add), through
the same :func:`~spade_core.validation.stage_list.run_stage` and status rule; only where each stage runs differs,
as the stage declares. Per candidate, the driver first runs the leading stages that run no candidate code (the
parse, the store's exact-duplicate check, the static policy): a failure there costs no task. One Ray task then
re-builds the candidate's state by re-running the off-driver stages already passed (not reported) and runs every
later off-driver stage whose needs are met, in order, in the sandbox pool of the worker that runs it. The driver
assembles the report in list order: an off-driver stage's result comes from the task, a driver stage (``novelty``
reads the memory, ``calibration`` plays the driver's probe) runs on the driver when its turn comes and its needs are
met, reading what earlier stages exported from the task (the behavioural fingerprint). As locally, every failing
stage is reported and a stage whose need failed is ``not_run``. Only timings differ.

A task that is lost (its worker or node died, or no answer within the timeout) is validated on the driver instead,
so infrastructure trouble never turns into a rejected candidate; :attr:`RayValidator.stats` counts these fallbacks.
"""

from __future__ import annotations

import math
import os
import socket
import time
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from spade_core.sandbox.budgets import TimeBudget
from spade_core.scale.ray_runtime import require_ray
from spade_core.validation.candidate import Candidate
from spade_core.validation.config import ValidationConfig
from spade_core.validation.pipeline import (
    allowed_modules,
    candidate_budget,
    new_candidate,
    sandbox_handles,
    validate_source,
)
from spade_core.validation.report import StageResult, ValidationReport, Verdict
from spade_core.validation.stage_hook import check_budget_overrides, stages_in_effect
from spade_core.validation.stage_list import (
    Stage,
    add_result,
    applies,
    finish,
    new_report,
    not_run,
    pass_over,
    run_or_block,
    run_stage,
    run_stages,
)

ray = require_ray()
from ray.exceptions import RayError  # noqa: E402 - after the check that says how to install Ray

_SLACK_S = 30.0


LIVE_PRODUCTS = frozenset({"envs"})
"""Candidate attributes holding live sandbox handles: they stay in the process that made them (a driver stage that
plays the candidate builds its own instances)."""


def dispatch_point(stages: Sequence[Stage]) -> int:
    """Index of the first stage that runs candidate code: the driver runs the stages before it itself."""
    return next((i for i, stage in enumerate(stages) if stage.runs_code), len(stages))


def sent_back(stages: Sequence[Stage], start: int) -> tuple[str, ...]:
    """The candidate attributes a task returns: what the driver stages from ``start`` on read (declared in
    ``Stage.reads``), except live handles."""
    return tuple(sorted({name for stage in stages[start:] if not stage.off_driver for name in stage.reads}
                        - LIVE_PRODUCTS))


def remote_stages(source: str, file: str, config: ValidationConfig, document: str | None,
                  handles: Callable[[str, str], Any], modules: dict[str, list[str]], stages: Sequence[Stage],
                  start: int) -> dict[str, Any]:
    """The Ray task body: re-run the off-driver stages before ``start`` (passed on the driver; not reported) to
    rebuild the candidate's state, then every off-driver stage from ``start`` on whose needs are met (the others
    are ``not_run``). Returns the results, what they exported, and where it ran."""
    budget = candidate_budget(config)
    candidate = new_candidate(source, file=file, config=config, document=document,
                              handles=partial(handles, budget=budget), modules=modules)
    results: list[StageResult] = []
    try:
        for stage in stages[:start]:
            if not stage.off_driver:  # the driver ran it, and it did not fail (else nothing was dispatched)
                candidate.results[stage.name] = StageResult(stage.name, Verdict.PASSED, "passed on the driver")
                continue
            if run_stage(stage, candidate, budget).failed:
                # the driver passed this stage: a node that disagrees is an infrastructure fault, not a verdict
                raise RuntimeError(f"the Ray worker fails stage {stage.name!r} that the driver passed: "
                                   f"{candidate.results[stage.name].observed}")
        for stage in stages[start:]:
            if not stage.off_driver:
                continue
            if applies(stage, candidate):
                results.append(run_or_block(stage, candidate, budget))
            else:
                pass_over(stage, candidate)
    finally:
        if candidate.envs is not None:
            candidate.envs.close_all()
    exports = {name: getattr(candidate, name) for name in sent_back(stages, start)}
    return {"results": results, "exports": exports, "node_id": ray.get_runtime_context().get_node_id(),
            "hostname": socket.gethostname(), "pid": os.getpid()}


_remote_stages = ray.remote(remote_stages)


class RayValidator:
    """``validate_many`` on a Ray cluster (see the module docstring). ``task_cpus``: CPUs Ray reserves per task,
    which bounds how many candidates validate at once; ``timeout_s``: per task (default: the sum of the stage
    budgets plus slack)."""

    def __init__(self, *, task_cpus: float = 1.0, timeout_s: float | None = None) -> None:
        self.task_cpus = task_cpus
        self.timeout_s = timeout_s
        self.stats: Counter[str] = Counter()
        self.nodes: Counter[str] = Counter()

    def take_stats(self) -> dict[str, Any]:
        """Tasks, fallbacks and the hosts tasks ran on since the last call (the counters restart at zero)."""
        out = {**{k: int(v) for k, v in sorted(self.stats.items())}, "hosts": dict(self.nodes)}
        self.stats.clear()
        self.nodes.clear()
        return out

    def validate_many(self, sources: Sequence[tuple[str, str]], *, workers: int = 4,
                      documents: Sequence[str | None] | None = None, **kwargs: Any) -> list[ValidationReport]:
        """Validate ``(file, source)`` pairs; reports in input order. ``workers`` is accepted for the signature of
        the local version: Ray's CPU resources (``task_cpus`` per task) bound the concurrency instead."""
        grounding = list(documents) if documents is not None else [kwargs.pop("document", None)] * len(sources)
        config: ValidationConfig = kwargs.get("config") or ValidationConfig()
        store, probe, memory = kwargs.get("store"), kwargs.get("probe"), kwargs.get("memory")
        handles = kwargs.get("handles", sandbox_handles)
        if memory is not None:
            memory.refresh()  # as locally: stored fingerprints are filled in before any candidate is timed
        modules = allowed_modules()
        stages = stages_in_effect()
        check_budget_overrides(config, stages)
        start = dispatch_point(stages)
        started: dict[int, tuple[Candidate, ValidationReport, float, TimeBudget]] = {}
        reports: list[ValidationReport | None] = [None] * len(sources)
        refs: dict[int, Any] = {}
        for i, ((file, source), document) in enumerate(zip(sources, grounding, strict=True)):
            t0 = time.perf_counter()
            budget = candidate_budget(config)  # the driver's stages' sandbox time (a task has its own)
            candidate = new_candidate(source, file=file, config=config, store=store, document=document, probe=probe,
                                      memory=memory, handles=partial(handles, budget=budget), modules=modules)
            report = new_report(candidate)
            if run_stages(stages[:start], candidate, report, budget):
                run_stages(stages[start:], candidate, report, budget)  # every later stage needs a failed one: none runs
                reports[i] = finish(candidate, report, t0)
                continue
            started[i] = (candidate, report, t0, budget)
            refs[i] = _remote_stages.options(num_cpus=self.task_cpus, max_retries=1).remote(
                candidate.source, file, config, document, handles, modules, stages, start)
            self.stats["tasks"] += 1
        answers = self._gather(refs, config, stages)
        for i, (candidate, report, t0, budget) in started.items():
            answer = answers[i]
            if isinstance(answer, BaseException):
                self.stats["fallbacks"] += 1
                reports[i] = validate_source(candidate.source, file=report.file, config=config, store=store,
                                             document=candidate.document, probe=probe, memory=memory,
                                             handles=handles)
                continue
            self.nodes[answer["hostname"]] += 1
            try:
                self._merge(candidate, report, answer, stages, start, budget)
            finally:
                if candidate.envs is not None:
                    candidate.envs.close_all()
            reports[i] = finish(candidate, report, t0)
        return [r for r in reports if r is not None]

    @staticmethod
    def _merge(candidate: Candidate, report: ValidationReport, answer: dict[str, Any], stages: Sequence[Stage],
               start: int, budget: TimeBudget) -> None:
        """Walk the stages from ``start`` in list order: off-driver results from the task, driver stages run here
        (with the task's exports) when their needs are met."""
        remote = {r.stage: r for r in answer["results"]}
        for name, value in answer["exports"].items():
            setattr(candidate, name, value)
        for stage in stages[start:]:
            if not applies(stage, candidate):
                pass_over(stage, candidate)
                continue
            if stage.off_driver:
                result = remote.get(stage.name) or not_run(stage, candidate, "the Ray task returned no result")
                candidate.results[stage.name] = result
            else:
                result = run_or_block(stage, candidate, budget)
            add_result(report, result)

    def _gather(self, refs: dict[int, Any], config: ValidationConfig, stages: Sequence[Stage]) -> dict[int, Any]:
        """Wait for every task (bounded); a lost or late task's answer is the error."""
        if not refs:
            return {}
        per_task = self.timeout_s or (sum(config.budget(s.name, s.budget_s) for s in stages) + _SLACK_S)
        slots = max(1, int(float(ray.cluster_resources().get("CPU", 1.0)) // max(self.task_cpus, 1e-6)))
        deadline = per_task * math.ceil(len(refs) / slots)
        ready, pending = ray.wait(list(refs.values()), num_returns=len(refs), timeout=deadline)
        done = {r.hex() for r in ready}
        answers: dict[int, Any] = {}
        for i, ref in refs.items():
            if ref.hex() not in done:
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # it may have finished or been lost meanwhile
                    pass
                answers[i] = TimeoutError(f"no answer in {deadline:.0f} s")
                self.stats["timeouts"] += 1
                continue
            try:
                answers[i] = ray.get(ref)
            except RayError as exc:
                answers[i] = exc
                self.stats["lost"] += 1
        return answers
