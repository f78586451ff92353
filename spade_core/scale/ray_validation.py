"""Validate candidates as Ray tasks: same signature and reports as :func:`~spade_core.validation.validate_many`.

The stages that need this process's state run here, in pipeline order: ``structure`` and ``exact_duplicate`` (the
registry store) before a task is sent, ``novelty`` (the environment memory) after it answers. Everything that runs
candidate code — ``policy`` through ``grounding``, and ``calibration`` — runs in one Ray task per candidate, in the
sandbox pool of the Ray worker that runs it. The report is assembled in :data:`~spade_core.validation.stages.PIPELINE`
order and stops at the first failure, exactly as the local pipeline does (a ``calibration`` result computed
remotely is dropped when ``novelty`` fails first). Only timings differ.

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
from typing import Any

from spade_core.scale.ray_runtime import require_ray
from spade_core.validation.config import ValidationConfig
from spade_core.validation.pipeline import allowed_modules, sandbox_handles, validate_source
from spade_core.validation.report import OUTCOME_STATUS, StageResult, ValidationReport
from spade_core.validation.stages import PIPELINE, Candidate, run_stage
from spade_registry.hashing import content_hash

ray = require_ray()
from ray.exceptions import RayError  # noqa: E402 - after the check that says how to install Ray

DRIVER_STAGES = frozenset({"structure", "exact_duplicate", "novelty"})
"""Stages that read the driver's store or memory; every other stage runs in the Ray task."""

_SLACK_S = 30.0


def remote_stages(source: str, file: str, config: ValidationConfig, document: str | None, probe: Any,
                  handles: Callable[[str, str], Any], modules: dict[str, list[str]],
                  stages: Sequence[str]) -> dict[str, Any]:
    """The Ray task body: re-parse the candidate (``structure``, not reported), then run ``stages`` in order up to
    the first failure. Returns the results, the outcome status a stage set, and where it ran."""
    candidate = Candidate(source=source, file=file, config=config, handle_factory_for=handles,
                          allowed_modules=modules, document=document, probe=probe)
    candidate.content_hash = content_hash(source)
    checks = dict(PIPELINE)
    results: list[StageResult] = []
    try:
        parsed = run_stage("structure", checks["structure"], candidate)
        if parsed.failed:  # the driver parsed this code: a different node that disagrees is an infrastructure fault
            raise RuntimeError(f"the Ray worker cannot parse a candidate the driver parsed: {parsed.observed}")
        for name in stages:
            result = run_stage(name, checks[name], candidate)
            results.append(result)
            if result.failed:
                break
    finally:
        if candidate.envs is not None:
            candidate.envs.close_all()
    return {"results": results, "outcome_status": candidate.outcome_status,
            "node_id": ray.get_runtime_context().get_node_id(), "hostname": socket.gethostname(), "pid": os.getpid()}


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
        store, probe, novelty = kwargs.get("store"), kwargs.get("probe"), kwargs.get("novelty_check")
        handles = kwargs.get("handles", sandbox_handles)
        modules = allowed_modules()
        remote = [name for name, _ in PIPELINE if name not in DRIVER_STAGES]
        started: dict[int, tuple[Candidate, ValidationReport, float]] = {}
        reports: list[ValidationReport | None] = [None] * len(sources)
        refs: dict[int, Any] = {}
        for i, ((file, source), document) in enumerate(zip(sources, grounding, strict=True)):
            t0 = time.perf_counter()
            candidate = Candidate(source=source if isinstance(source, str) else "", file=file, config=config,
                                  handle_factory_for=handles, allowed_modules=modules, store=store,
                                  document=document, probe=probe, novelty_check=novelty)
            candidate.content_hash = content_hash(candidate.source)
            report = ValidationReport(file=file, content_hash=candidate.content_hash, seeds=list(config.seeds))
            if self._run_here(("structure", "exact_duplicate"), candidate, report):
                reports[i] = self._finish(candidate, report, t0)
                continue
            started[i] = (candidate, report, t0)
            refs[i] = _remote_stages.options(num_cpus=self.task_cpus, max_retries=1).remote(
                candidate.source, file, config, document, probe, handles, modules, remote)
            self.stats["tasks"] += 1
        answers = self._gather(refs, config)
        for i, (candidate, report, t0) in started.items():
            answer = answers[i]
            if isinstance(answer, BaseException):
                self.stats["fallbacks"] += 1
                reports[i] = validate_source(candidate.source, file=report.file, config=config, store=store,
                                             document=candidate.document, probe=probe, novelty_check=novelty,
                                             handles=handles)
                continue
            self.nodes[answer["hostname"]] += 1
            self._merge(candidate, report, answer)
            reports[i] = self._finish(candidate, report, t0)
        return [r for r in reports if r is not None]

    # -- helpers ---------------------------------------------------------------------------------------------
    @staticmethod
    def _run_here(names: Sequence[str], candidate: Candidate, report: ValidationReport) -> bool:
        """Run driver stages in order; True if one failed (the report is then final)."""
        checks = dict(PIPELINE)
        for name in names:
            result = run_stage(name, checks[name], candidate)
            report.stages.append(result)
            if result.failed:
                report.status = candidate.outcome_status or OUTCOME_STATUS.get(name, "failed")
                return True
        return False

    def _merge(self, candidate: Candidate, report: ValidationReport, answer: dict[str, Any]) -> None:
        """Interleave the task's results with the driver's ``novelty`` stage, in pipeline order."""
        remote = {r.stage: r for r in answer["results"]}
        for name, check in PIPELINE:
            if name in ("structure", "exact_duplicate"):
                continue
            if name == "novelty":
                result = run_stage(name, check, candidate)
            elif name in remote:
                result = remote[name]
            else:
                break  # the task stopped earlier (it stops at its first failure)
            report.stages.append(result)
            if result.failed:
                status = answer["outcome_status"] if name != "novelty" else candidate.outcome_status
                report.status = status or OUTCOME_STATUS.get(name, "failed")
                return

    @staticmethod
    def _finish(candidate: Candidate, report: ValidationReport, t0: float) -> ValidationReport:
        if candidate.manifest is not None:
            report.name, report.domain = candidate.manifest.name, candidate.manifest.domain
        report.seconds = time.perf_counter() - t0
        return report

    def _gather(self, refs: dict[int, Any], config: ValidationConfig) -> dict[int, Any]:
        """Wait for every task (bounded); a lost or late task's answer is the error."""
        if not refs:
            return {}
        per_task = self.timeout_s or (sum(config.stage_timeout_s.values()) + _SLACK_S)
        slots = max(1, int(float(ray.cluster_resources().get("CPU", 1.0)) // max(self.task_cpus, 1e-6)))
        deadline = per_task * math.ceil(len(refs) / slots)
        ready, pending = ray.wait(list(refs.values()), num_returns=len(refs), timeout=deadline)
        done = {r.hex() for r in ready}
        answers: dict[int, Any] = {}
        for i, ref in refs.items():
            if ref.hex() not in done:
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # noqa: BLE001, S110 - it may have finished or been lost meanwhile
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
