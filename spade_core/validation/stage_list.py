"""The one list of validation stages, the one loop that runs them, and the one rule that turns a failure into a
record status. The local pipeline (:mod:`.pipeline`) and the Ray path (:mod:`spade_core.scale.ray_validation`) both
run :data:`STAGES` through :func:`run_stage`; each stage declares where it may run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from spade_core.sandbox.pool import budget_spent
from spade_core.validation.calibration import PROBE_SECONDS, check_calibration
from spade_core.validation.config import ValidationConfig
from spade_core.validation.grounding import check_grounding
from spade_core.validation.invariants import INVARIANCE_RULE, check_invariance, check_reward_rule, reward_rule
from spade_core.validation.novelty import check_behaviour, check_novelty
from spade_core.validation.public_info import RULE as PUBLIC_INFO_RULE
from spade_core.validation.public_info import check_public_info
from spade_core.validation.purity import RULE as PURITY_RULE
from spade_core.validation.purity import check_purity
from spade_core.validation.report import StageResult, ValidationReport, Verdict
from spade_core.validation.stages import (
    Candidate,
    check_baselines,
    check_contract,
    check_determinism,
    check_exact_duplicate,
    check_hint,
    check_instantiate,
    check_policy,
    check_reference,
    check_reward_range,
    check_start_state,
    check_structure,
    check_verifier,
    describe_error,
    fail,
)
from spade_core.validation.swaps import RULE as SWAP_RULE
from spade_core.validation.swaps import check_swap
from spade_registry.records import Status


@dataclass(frozen=True)
class Stage:
    """One stage of the gate.

    ``off_driver``: it needs nothing of the validating process (no store, memory or model), so the Ray path may run
    it in a task on any node. ``runs_code``: it runs the candidate's code (so the Ray path sends it to a task rather
    than running it on the driver before dispatch). ``rejects_as``: the record status its failure gives (a check
    may name another, e.g. calibration's trivial/impossible). ``exports``: :class:`Candidate` attributes it sets
    that a later driver stage reads (sent back from a Ray task).
    """

    name: str
    check: Callable[[Candidate], StageResult]
    off_driver: bool
    runs_code: bool
    rejects_as: Status = Status.FAILED
    exports: tuple[str, ...] = ()
    rule: str = ""
    """The property the stage checks, in one line a designer can follow."""


STAGES: tuple[Stage, ...] = (
    Stage("structure", check_structure, off_driver=True, runs_code=False),
    Stage("exact_duplicate", check_exact_duplicate, off_driver=False, runs_code=False, rejects_as=Status.DUPLICATE),
    Stage("policy", check_policy, off_driver=True, runs_code=False),
    Stage("instantiate", check_instantiate, off_driver=True, runs_code=True),
    Stage("contract", check_contract, off_driver=True, runs_code=True),
    Stage("determinism", check_determinism, off_driver=True, runs_code=True),
    Stage("purity", check_purity, off_driver=True, runs_code=True, rule=PURITY_RULE),
    Stage("start_state", check_start_state, off_driver=True, runs_code=True),
    Stage("baselines", check_baselines, off_driver=True, runs_code=True),
    Stage("reference", check_reference, off_driver=True, runs_code=True),
    Stage("invariance", check_invariance, off_driver=True, runs_code=True, rejects_as=Status.TRIVIAL,
          rule=INVARIANCE_RULE),
    Stage("public_info", check_public_info, off_driver=True, runs_code=True, rejects_as=Status.IMPOSSIBLE,
          rule=PUBLIC_INFO_RULE),
    Stage("verifier", check_verifier, off_driver=True, runs_code=True),
    Stage("swap", check_swap, off_driver=True, runs_code=True, rule=SWAP_RULE),
    Stage("reward_range", check_reward_range, off_driver=True, runs_code=True),
    Stage("reward_rule", check_reward_rule, off_driver=True, runs_code=True,
          rule=reward_rule(ValidationConfig().nonsolving_max_share)),
    Stage("hint", check_hint, off_driver=True, runs_code=True),
    Stage("grounding", check_grounding, off_driver=True, runs_code=True),
    Stage("behaviour", check_behaviour, off_driver=True, runs_code=True, exports=("fingerprint",)),
    Stage("novelty", check_novelty, off_driver=False, runs_code=False, rejects_as=Status.DUPLICATE),
    Stage("calibration", check_calibration, off_driver=False, runs_code=True),
)
"""The pipeline, cheapest first. ``novelty`` reads the driver's environment memory; ``calibration`` plays the
driver's probe policy (a model, typically), so both stay on the driver."""

STAGE_NAMES: tuple[str, ...] = tuple(stage.name for stage in STAGES)


def stage_named(name: str) -> Stage:
    for stage in STAGES:
        if stage.name == name:
            return stage
    raise KeyError(f"no validation stage {name!r}; stages: {', '.join(STAGE_NAMES)}")


def run_stage(stage: Stage, c: Candidate) -> StageResult:
    """Run one stage, time it, and turn any unexpected exception into a failed result naming it. The result carries
    the stage's name and, when it failed, the record status the failure gives; it is kept in ``c.results``."""
    started = time.perf_counter()
    c.outcome_status = None
    try:
        result = stage.check(c)
    except Exception as exc:  # noqa: BLE001 - a stage must end with a verdict, never crash the validator
        observed, causes, fix = describe_error(exc)
        result = fail(stage.name, observed, causes, fix)
    result.stage = stage.name
    result.seconds = time.perf_counter() - started
    budget = c.config.budget(stage.name)
    if not result.failed and result.seconds - float(result.details.get(PROBE_SECONDS, 0.0)) > budget:
        result = StageResult(stage.name, Verdict.FAILED, f"the stage took {result.seconds:.1f} s, over its "
                             f"{budget:.0f} s budget", ["the environment is too slow"],
                             ["make reset/step cheap (milliseconds)"], seconds=result.seconds)
    spent = budget_spent() if result.failed else None
    if spent is not None:
        result = fail(stage.name, str(spent), ["every call of the environment is slow"],
                      ["make reset/step take milliseconds"])
        result.stage, result.seconds = stage.name, time.perf_counter() - started
    if result.failed:
        result.status = Status(c.outcome_status or stage.rejects_as)
    c.results[stage.name] = result
    return result


def add_result(report: ValidationReport, result: StageResult) -> bool:
    """Append a stage's result; True when it failed (the report's status is then the failure's and the pipeline
    stops)."""
    report.stages.append(result)
    if result.failed:
        report.status = result.status or Status.FAILED
        return True
    return False


def run_stages(stages: Sequence[Stage], c: Candidate, report: ValidationReport) -> bool:
    """Run ``stages`` in order into ``report`` up to the first failure; True if one failed."""
    return any(add_result(report, run_stage(stage, c)) for stage in stages)


def new_report(c: Candidate) -> ValidationReport:
    return ValidationReport(file=c.file, content_hash=c.content_hash, seeds=list(c.config.seeds))


def finish(c: Candidate, report: ValidationReport, started: float) -> ValidationReport:
    """The finishing step shared by every path: name, domain, fingerprint and time."""
    if c.manifest is not None:
        report.name, report.domain = c.manifest.name, c.manifest.domain
    report.fingerprint = c.fingerprint
    report.seconds = time.perf_counter() - started
    return report
