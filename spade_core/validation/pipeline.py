"""Run the stages over candidates, concurrently, and record every outcome in the registry store."""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, Protocol

from spade_core.contract.inner import HandleFactory
from spade_core.memory.behaviour import BehaviourIndex
from spade_core.sandbox.budgets import TimeBudget
from spade_core.validation.candidate import CalibrationProbe, Candidate, HandlesFor, NoveltyMemory
from spade_core.validation.config import ValidationConfig
from spade_core.validation.episodes import Policy
from spade_core.validation.report import ValidationReport
from spade_core.validation.stage_hook import check_budget_overrides, stages_in_effect
from spade_core.validation.stage_list import finish, new_report, run_stages
from spade_core.validation.static_checks import env_spec_assignments
from spade_registry.hashing import content_hash
from spade_registry.plain_json import first_non_json
from spade_registry.records import Status, Trust
from spade_registry.store import RegistryStore
from spade_registry.syntax import parse_source


class Handles(Protocol):
    """Makes the handle factory for a candidate's code (or a variant of it, :class:`HandlesFor`); its environments'
    calls are charged to ``budget``."""

    def __call__(self, source: str, env_id: str, *, budget: TimeBudget | None = None,
                 family: str | None = None) -> HandleFactory: ...


def sandbox_handles(source: str, env_id: str, *, budget: TimeBudget | None = None,
                    family: str | None = None) -> HandleFactory:
    """The default: candidate code runs only in the sandbox."""
    from spade_core.gym_bridge.make import designer_handle_factory

    return designer_handle_factory(source, env_id=env_id, budget=budget, family=family)


def candidate_budget(config: ValidationConfig) -> TimeBudget:
    """The sandbox time one candidate may use in all its stages (each stage runs within its own deadline too)."""
    return TimeBudget(config.candidate_budget_s, what="this candidate", knob="ValidationConfig.candidate_budget_s",
                      floor=config.min_cpu_share)


def allowed_modules() -> dict[str, list[str]]:
    """Stand-in modules (and their names) that designer code may import, including plugin contributions."""
    from spade_core.sandbox.allowlist import merged_allowlist

    return {name: sorted(names) for name, names in merged_allowlist().items()}


def new_candidate(source: str, *, file: str, config: ValidationConfig, store: RegistryStore | None = None,
                  document: str | None = None, probe: Policy | CalibrationProbe | None = None,
                  memory: NoveltyMemory | None = None,
                  handles: HandlesFor = sandbox_handles,
                  modules: dict[str, list[str]] | None = None, installed_seed: str | None = None) -> Candidate:
    """A candidate as every path starts it (non-text input becomes empty source, which ``structure`` rejects)."""
    candidate = Candidate(
        source=source if isinstance(source, str) else "", file=file, config=config, handle_factory_for=handles,
        allowed_modules=modules if modules is not None else allowed_modules(), store=store, document=document,
        probe=probe, memory=memory, installed_seed=installed_seed,
    )
    candidate.content_hash = content_hash(candidate.source)
    return candidate


def validate_source(
    source: str,
    *,
    file: str = "<candidate>",
    config: ValidationConfig | None = None,
    store: RegistryStore | None = None,
    document: str | None = None,
    probe: Policy | CalibrationProbe | None = None,
    memory: NoveltyMemory | None = None,
    handles: Handles = sandbox_handles,
    installed_seed: str | None = None,
) -> ValidationReport:
    """Validate one candidate module through the stages in effect (the built-in ones and those plugins add,
    :func:`~spade_core.validation.stage_hook.stages_in_effect`); every stage whose needs are met runs. ``store``:
    exact duplicates; ``document``: grounding; ``memory``: novelty (e.g. ``BehaviourIndex(store)``); ``probe``:
    calibration; ``installed_seed``: the module of the installed plugin seed this source is exactly (same content
    hash), validated as that seed (:attr:`Candidate.installed_seed`). A stage whose input is missing is reported as skipped. Never raises for bad candidates (a stage list
    that plugins broke raises :class:`~spade_core.errors.StageListError`)."""
    started = time.perf_counter()
    config = config or ValidationConfig()
    stages = stages_in_effect()
    check_budget_overrides(config, stages)
    budget = candidate_budget(config)
    candidate = new_candidate(source, file=file, config=config, store=store, document=document, probe=probe,
                              memory=memory, handles=partial(handles, budget=budget), installed_seed=installed_seed)
    report = new_report(candidate)
    try:
        run_stages(stages, candidate, report, budget)
    finally:
        if candidate.envs is not None:
            candidate.envs.close_all()
    return finish(candidate, report, started)


def record_outcome(store: RegistryStore, source: str, report: ValidationReport, *,
                   provenance: dict[str, Any] | None = None,
                   manifest: dict[str, Any] | None = None) -> ValidationReport:
    """Store the candidate with its report and status (accepted ones get their ``spade/<Name>-v<N>`` id, the
    behavioural fingerprint validation computed is cached for later novelty checks, and the grounding score is kept
    in the record's stats)."""
    if report.status == Status.DUPLICATE and report.failed_stage == "exact_duplicate":
        return report  # the identical record is already stored; nothing new to keep
    status = Status(report.status)
    record, created = store.add(
        code=source, manifest=manifest or _manifest_of(source), status=status, trust=Trust.DESIGNER,
        failed_stage=report.failed_stage if status is Status.FAILED else None, provenance=provenance or {},
        report=report.to_dict(),
    )
    if not created:
        record = store.set_status(record.rid, status, failed_stage=report.failed_stage if status is Status.FAILED
                                  else None, report=report.to_dict())
    if report.fingerprint is not None:
        BehaviourIndex(store).put(record.rid, report.fingerprint)
    if report.grounding_score is not None:  # in the record's stats too, where memory and rewards read scores
        store.update_stats(record.rid, {"grounding_score": report.grounding_score})
    report.env_id = record.env_id
    return report


def _manifest_of(source: str) -> dict[str, Any]:
    """The literal ``ENV_SPEC`` of a candidate if it has one that is JSON data (for the store's index), else {}."""
    import ast

    try:
        specs = env_spec_assignments(parse_source(source))
        value = ast.literal_eval(specs[0].value) if specs else {}
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return {}
    return value if isinstance(value, dict) and first_non_json(value) is None else {}


def validate_many(
    sources: Sequence[tuple[str, str]],
    *,
    workers: int = 4,
    documents: Sequence[str | None] | None = None,
    installed_seeds: Sequence[str | None] | None = None,
    **kwargs: Any,
) -> list[ValidationReport]:
    """Validate ``(file, source)`` pairs concurrently (``documents[i]`` grounds candidate ``i``; ``installed_seeds[i]``
    names the installed plugin seed candidate ``i`` is, or None); one candidate's hang is bounded by the sandbox's
    call timeouts and never stalls the others. Reports come back in input order."""
    grounding = list(documents) if documents is not None else [kwargs.pop("document", None)] * len(sources)
    seeds = list(installed_seeds) if installed_seeds is not None else [None] * len(sources)
    memory: NoveltyMemory | None = kwargs.get("memory")
    if memory is not None:
        memory.refresh()  # fingerprint stored environments once, before any candidate's novelty stage is timed
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(validate_source, source, file=file, document=doc, installed_seed=seed, **kwargs)
                   for (file, source), doc, seed in zip(sources, grounding, seeds, strict=True)]
        return [f.result() for f in futures]
