"""The one list of validation stages, the one loop that runs them, and the one rule that turns a failure into a
record status. The local pipeline (:mod:`.pipeline`) and the Ray path (:mod:`spade_core.scale.ray_validation`) both
run :data:`STAGES` through :func:`run_stage`; each stage declares where it may run, what it needs, and the rule a
designer must satisfy to pass it (the designer prompt's "what the gate checks" section is generated from these).

Every stage whose needs are met runs, so a rejected candidate's report lists every failing stage at once; a stage
whose need failed (or did not run) is reported ``not_run``, naming it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass

from spade_core.plugins.contributions import VALUE_ANSWERS, AnswerKind
from spade_core.plugins.domains import answer_kind
from spade_core.sandbox.budgets import TimeBudget
from spade_core.validation.baselines import check_baselines
from spade_core.validation.calibration import check_calibration
from spade_core.validation.candidate import Candidate
from spade_core.validation.config import ValidationConfig
from spade_core.validation.determinism import SAME_TASK_SEEDS, check_determinism, check_start_state
from spade_core.validation.final_state import RULE as FINAL_STATE_RULE
from spade_core.validation.final_state import check_final_state
from spade_core.validation.fixed_answer import RULE as FIXED_ANSWER_RULE
from spade_core.validation.fixed_answer import check_fixed_answer
from spade_core.validation.grounding import GROUNDING_RULE, check_grounding
from spade_core.validation.hint_checks import check_hint
from spade_core.validation.invariants import check_invariance, check_reward_rule, invariance_rule, reward_rule
from spade_core.validation.knobs import RULE as KNOBS_RULE
from spade_core.validation.knobs import check_knobs
from spade_core.validation.novelty import check_behaviour, check_novelty
from spade_core.validation.out_of_rules import RULE as OUT_OF_RULES_RULE
from spade_core.validation.out_of_rules import check_out_of_rules
from spade_core.validation.public_info import RULE as PUBLIC_INFO_RULE
from spade_core.validation.public_info import check_public_info
from spade_core.validation.purity import RULE as PURITY_RULE
from spade_core.validation.purity import check_purity
from spade_core.validation.read_only import RULE as READ_ONLY_RULE
from spade_core.validation.read_only import check_read_only
from spade_core.validation.reference import check_reference
from spade_core.validation.report import StageResult, ValidationReport, Verdict, describe_error, fail, ok
from spade_core.validation.reward_checks import check_reward_range
from spade_core.validation.same_draws import RULE as SAME_DRAWS_RULE
from spade_core.validation.same_draws import check_same_draws
from spade_core.validation.seat_returns import RULE as SEAT_RETURNS_RULE
from spade_core.validation.seat_returns import check_seat_returns
from spade_core.validation.shown_values import RULE as SHOWN_VALUES_RULE
from spade_core.validation.shown_values import check_shown_values
from spade_core.validation.stage_clock import StageBudgetSpent, StageClock
from spade_core.validation.stalling import RULE as STALLING_RULE
from spade_core.validation.stalling import check_stalling
from spade_core.validation.static_checks import (
    check_contract,
    check_exact_duplicate,
    check_instantiate,
    check_policy,
    check_structure,
)
from spade_core.validation.swaps import RULE as SWAP_RULE
from spade_core.validation.swaps import check_swap
from spade_core.validation.verifier_checks import check_verifier, verifier_rule
from spade_registry.records import Status


@dataclass(frozen=True)
class Stage:
    """One stage of the gate.

    ``off_driver``: it needs nothing of the validating process (no store, memory or model), so the Ray path may run
    it in a task on any node. ``runs_code``: it runs the candidate's code (so the Ray path sends it to a task rather
    than running it on the driver before dispatch). ``rejects_as``: the record status its failure gives (a check
    may name another, e.g. calibration's trivial/impossible). ``exports``: :class:`Candidate` attributes it sets
    that a later driver stage reads (sent back from a Ray task). ``rule``: what a designer must satisfy, in one
    line (empty for a stage a designer cannot fail); the designer prompt states it. ``needs``: earlier stages whose
    work it reads (it runs only when they passed or were skipped); ``needs_all``: it runs only when every earlier
    stage passed or was skipped (an expensive stage, such as one that plays a model). ``reads``: :class:`Candidate`
    attributes it reads that a stage it needs (directly or through others) exports; the inputs every candidate starts
    with (:data:`~spade_core.validation.candidate.CANDIDATE_INPUTS`) need no declaring. ``budget_s``: its wall-clock
    budget in seconds, the one home of its default (``ValidationConfig.stage_budget_s`` overrides it by name;
    it is enforced while the stage runs, :mod:`.stage_clock`). ``domains``: it applies only to
    candidates of these domains (empty: every candidate); others report it skipped. ``answer_kinds``: it applies only
    to candidates whose domain's answers are of these kinds (:data:`~spade_core.plugins.contributions.AnswerKind`;
    empty: every kind), where its property holds. ``origin``: the plugin that added it (empty: built in).
    """

    name: str
    check: Callable[[Candidate], StageResult]
    off_driver: bool
    runs_code: bool
    budget_s: float
    rejects_as: Status = Status.FAILED
    exports: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    rule: str = ""
    needs: tuple[str, ...] = ()
    needs_all: bool = False
    domains: tuple[str, ...] = ()
    answer_kinds: tuple[AnswerKind, ...] = ()
    origin: str = ""

    def concerns(self, domain: str | None) -> bool:
        """Whether the stage applies to candidates of ``domain`` (None: a domain not known yet)."""
        if self.domains and domain not in self.domains:
            return False
        return not self.answer_kinds or (domain is not None and answer_kind(domain) in self.answer_kinds)


def determinism(c: Candidate) -> StageResult:
    """The ``determinism`` stage: one seed, one task (:func:`~spade_core.validation.determinism.check_determinism`), and
    a task that changes with each difficulty knob (:mod:`.knobs`)."""
    result = check_determinism(c)
    if result.failed:
        return result
    knobs = check_knobs(c)
    if knobs.failed:
        return knobs
    return ok(result.stage, f"{result.observed}; {knobs.observed}")


_LIMITS = ValidationConfig()
"""The default thresholds, as the rules state them."""
_ADVERSARY = f"at most {_LIMITS.baseline_max_success:.0%} of episodes"

_PLAYS = ("envs", "manifest", "reference_episodes")
"""What a stage that plays the candidate against its reference reads."""

STAGES: tuple[Stage, ...] = (
    Stage("structure", check_structure, off_driver=True, runs_code=False, budget_s=10.0,
          exports=("tree", "manifest"),
          rule="one ENV_SPEC dict literal with valid fields; exactly one class with the five methods"),
    Stage("exact_duplicate", check_exact_duplicate, off_driver=False, runs_code=False, budget_s=10.0,
          rejects_as=Status.DUPLICATE, needs=("structure",), reads=("manifest",),
          rule="a name no bundled environment has"),
    Stage("policy", check_policy, off_driver=True, runs_code=False, budget_s=10.0, needs=("structure",),
          rule="only the IMPORTS above; no print/open/eval/exec/compile/globals/vars/dir/input, str.format, "
               "global statements, dunder names or attributes, or others' _private attributes"),
    Stage("instantiate", check_instantiate, off_driver=True, runs_code=True, budget_s=10.0,
          needs=("exact_duplicate", "policy"), reads=("manifest",), exports=("envs",),
          rule="the class builds with its difficulty defaults and reset runs (each call in milliseconds)"),
    Stage("contract", check_contract, off_driver=True, runs_code=True, budget_s=10.0, needs=("instantiate",),
          reads=("envs",),
          rule="the return types above, for any action (an empty one too; never raise); info is JSON data"),
    Stage("determinism", determinism, off_driver=True, runs_code=True, budget_s=90.0, needs=("contract",),
          reads=("envs", "manifest"), exports=("reference_episodes",),
          rule="one seed, one episode, on fresh and reused instances (randomness only from rng; reset sets "
               f"every attribute); not all of {SAME_TASK_SEEDS} seeds the same task; {KNOBS_RULE}"),
    Stage("purity", check_purity, off_driver=True, runs_code=True, budget_s=60.0, needs=("determinism",),
          reads=_PLAYS, rule=PURITY_RULE),
    Stage("start_state", check_start_state, off_driver=True, runs_code=True, budget_s=10.0, needs=("contract",),
          reads=("envs",), rule="not solved at reset, nor by an empty or invalid action"),
    Stage("baselines", check_baselines, off_driver=True, runs_code=True, budget_s=90.0, needs=("determinism",),
          reads=_PLAYS,
          rule=f"cheating policies win {_ADVERSARY}: constants, one action repeated, values, list items or "
               "examples shown, many candidates at once, each answer in turn, "
               "1 then 1 ± a feedback number, too-high/too-low search the reference does not need, random text"),
    Stage("reference", check_reference, off_driver=True, runs_code=True, budget_s=120.0, needs=("contract",),
          reads=("envs", "manifest"), exports=("reference_episodes",),
          rule=f"reference_action solves {_LIMITS.reference_min_success:.0%} of seeds or more (games: finishes "
               "them with legal moves); single-turn: the same observation always has the same answer"),
    Stage("invariance", check_invariance, off_driver=True, runs_code=True, budget_s=60.0, rejects_as=Status.TRIVIAL,
          needs=("reference",), reads=_PLAYS, rule=invariance_rule(_LIMITS.invariance_min_share), answer_kinds=VALUE_ANSWERS),
    Stage("public_info", check_public_info, off_driver=True, runs_code=True, budget_s=60.0,
          rejects_as=Status.IMPOSSIBLE, needs=("reference",), reads=_PLAYS, rule=PUBLIC_INFO_RULE),
    Stage("verifier", check_verifier, off_driver=True, runs_code=True, budget_s=60.0, needs=("reference",),
          reads=_PLAYS,
          rule=verifier_rule(_LIMITS.seat_max_share)),
    Stage("swap", check_swap, off_driver=True, runs_code=True, budget_s=60.0, needs=("reference",), reads=_PLAYS,
          rule=SWAP_RULE),
    Stage("reward_range", check_reward_range, off_driver=True, runs_code=True, budget_s=60.0,
          needs=("determinism",), reads=_PLAYS,
          rule="rewards inside reward_range; the top reward only with success and terminated=True; malformed "
               "earns no more than wrong over an episode, nor than a lost game; observations under "
               f"{_LIMITS.max_observation_chars} characters and not growing"),
    Stage("reward_rule", check_reward_rule, off_driver=True, runs_code=True, budget_s=60.0, needs=("reference",),
          reads=_PLAYS, rule=reward_rule(_LIMITS.nonsolving_max_share)),
    Stage("hint", check_hint, off_driver=True, runs_code=True, budget_s=60.0, needs=("reference",), reads=_PLAYS,
          rule="the hint never reveals the answer or the next reference action in any form (spelled out, "
               f"reversed, offset, encoded); obeying or copying it wins {_ADVERSARY}"),
    Stage("grounding", check_grounding, off_driver=True, runs_code=True, budget_s=20.0, needs=("reference",),
          reads=_PLAYS, rule=GROUNDING_RULE),
    Stage("behaviour", check_behaviour, off_driver=True, runs_code=True, budget_s=20.0, needs=("contract",),
          reads=("envs",), exports=("fingerprint",)),
    Stage("novelty", check_novelty, off_driver=False, runs_code=False, budget_s=10.0, rejects_as=Status.DUPLICATE,
          needs=("behaviour",), reads=("fingerprint",), rule="behaves unlike every stored environment"),
    Stage("read_only", check_read_only, off_driver=True, runs_code=True, budget_s=30.0, needs=("reference",),
          reads=_PLAYS, rule=READ_ONLY_RULE),
    Stage("shown_values", check_shown_values, off_driver=True, runs_code=True, budget_s=30.0,
          needs=("reference",), reads=_PLAYS, rule=SHOWN_VALUES_RULE, answer_kinds=VALUE_ANSWERS),
    Stage("stalling", check_stalling, off_driver=True, runs_code=True, budget_s=30.0, needs=("reference",),
          reads=_PLAYS, rule=STALLING_RULE),
    Stage("seat_returns", check_seat_returns, off_driver=True, runs_code=True, budget_s=30.0,
          needs=("reference",), reads=_PLAYS, rule=SEAT_RETURNS_RULE),
    Stage("out_of_rules", check_out_of_rules, off_driver=True, runs_code=True, budget_s=30.0,
          needs=("reference",), reads=_PLAYS, rule=OUT_OF_RULES_RULE, answer_kinds=("label",)),
    Stage("fixed_answer", check_fixed_answer, off_driver=True, runs_code=True, budget_s=30.0,
          needs=("reference",), reads=_PLAYS, rule=FIXED_ANSWER_RULE),
    Stage("final_state", check_final_state, off_driver=True, runs_code=True, budget_s=30.0,
          needs=("reference",), reads=_PLAYS, rule=FINAL_STATE_RULE, answer_kinds=("text",)),
    Stage("same_draws", check_same_draws, off_driver=False, runs_code=True, budget_s=30.0,
          rejects_as=Status.DUPLICATE, needs=("behaviour",), reads=("envs", "manifest", "fingerprint"),
          rule=SAME_DRAWS_RULE),
    # its deadline covers the probe model's own play too (a tiny model on a loaded CPU: 50 s for 3 arms x 8 seeds)
    Stage("calibration", check_calibration, off_driver=False, runs_code=True, budget_s=300.0, needs_all=True,
          reads=("envs", "manifest"),
          rule="with a probe model: it solves some seeds with the hint and some without, not all without, far "
               "fewer from the hint alone"),
)
"""The pipeline, cheapest first. ``novelty`` reads the driver's environment memory; ``calibration`` plays the
driver's probe policy (a model, typically), so both stay on the driver."""

STAGE_NAMES: tuple[str, ...] = tuple(stage.name for stage in STAGES)


def stage_named(name: str) -> Stage:
    for stage in STAGES:
        if stage.name == name:
            return stage
    raise KeyError(f"no validation stage {name!r}; stages: {', '.join(STAGE_NAMES)}")


def run_stage(stage: Stage, c: Candidate, budget: TimeBudget | None = None) -> StageResult:
    """Run one stage within its budget, time it, and turn any unexpected exception into a failed result naming it.
    The result carries the stage's name and, when it failed, the record status the failure gives; it is kept in
    ``c.results``. The stage's budget is a deadline its work checks while it runs (:mod:`.stage_clock`): every
    sandbox call gets at most the time left (through ``budget``, the candidate's sandbox time, which a failure after
    it ran out reports), and past the deadline the stage fails naming its budget and how far it got."""
    started = time.perf_counter()
    c.outcome_status = None
    c.clock = clock = StageClock.start(stage.name, c.config.budget(stage.name, stage.budget_s), c.config.min_cpu_share)
    try:
        with budget.within(clock.deadline, clock.spent_message) if budget is not None else nullcontext():
            result = stage.check(c)
    except StageBudgetSpent:
        result = StageResult(stage.name, Verdict.FAILED)
    except Exception as exc:  # a stage must end with a verdict, never crash the validator
        observed, causes, fix = describe_error(exc)
        result = fail(stage.name, observed, causes, fix)
    finally:
        c.clock = StageClock()  # none outside a stage
    result.stage = stage.name
    result.seconds = time.perf_counter() - started
    if clock.expired():  # whatever the stage made of cut-off work, it did not finish within its budget
        result, c.outcome_status = over_budget(stage, clock, result.seconds), Status.FAILED
        c.shared_env = None  # its instance may have been killed mid-call
    spent = budget.spent() if result.failed and budget is not None else None
    if spent is not None:
        result = fail(stage.name, str(spent), ["every call of the environment is slow"],
                      ["make reset/step take milliseconds"])
        result.stage, result.seconds = stage.name, time.perf_counter() - started
    if result.failed:
        result.status = Status(c.outcome_status or stage.rejects_as)
    c.results[stage.name] = result
    return result


def over_budget(stage: Stage, clock: StageClock, seconds: float) -> StageResult:
    """The result of a stage whose deadline passed: a rejection with the status ``failed`` (a stage too slow to
    finish fails, as it did when its time was judged after it returned, whatever its cut-off check would have
    said)."""
    result = fail(stage.name, clock.spent_message(),
                  ["the environment's calls are slow", "its observations or hints are long to analyse"],
                  ["make reset/step cheap (milliseconds) and keep observations short"], budget_s=clock.budget_s)
    result.seconds = seconds
    return result


def applies(stage: Stage, c: Candidate) -> bool:
    """Whether ``stage`` concerns ``c``: every stage does, except one for some domains or answer kinds only
    (``Stage.domains``, ``Stage.answer_kinds``) on a candidate of another (or whose domain is not known)."""
    return stage.concerns(c.manifest.domain if c.manifest is not None else None)


def pass_over(stage: Stage, c: Candidate) -> None:
    """Record a stage that does not concern ``c`` as skipped, for the stages that need it; reports leave it out (it
    is not a check that could not run)."""
    domain = c.manifest.domain if c.manifest is not None else "an unknown domain"
    if stage.domains and (c.manifest is None or domain not in stage.domains):
        why = f"applies to {', '.join(stage.domains)} environments, not {domain}"
    else:
        why = (f"applies to {', '.join(stage.answer_kinds)} answers, not the {answer_kind(domain)} answers of "
               f"{domain} environments")
    c.results[stage.name] = StageResult(stage.name, Verdict.SKIPPED, why)


def add_result(report: ValidationReport, result: StageResult) -> bool:
    """Append a stage's result; True when it failed (the report's status is the first failure's)."""
    report.stages.append(result)
    if result.failed:
        if report.failed_stage == result.stage:
            report.status = result.status or Status.FAILED
        return True
    return False


def blocked_by(stage: Stage, c: Candidate, budget: TimeBudget | None = None) -> str | None:
    """Why ``stage`` cannot run on ``c`` given the results so far (None: it can): a stage it needs failed or did
    not run, or (``needs_all``) any earlier stage failed. Read from ``c.results``, which holds every result."""
    if stage.needs_all:
        needs = tuple(name for name in c.results if name != stage.name)  # every stage run before it
    else:
        needs = stage.needs
    for name in needs:
        result = c.results.get(name)
        if result is None:
            return f"needs '{name}', which did not run"
        if result.failed:
            return f"needs '{name}', which failed"
        if result.not_run:
            return f"needs '{name}', which could not run"
    if stage.runs_code and budget is not None:
        spent = budget.spent()
        if spent is not None:
            return f"the candidate's time budget is spent ({spent})"
    return None


def not_run(stage: Stage, c: Candidate, why: str) -> StageResult:
    """The result of a stage that could not run; kept in ``c.results`` like any other."""
    result = StageResult(stage.name, Verdict.NOT_RUN, why)
    c.results[stage.name] = result
    return result


def run_or_block(stage: Stage, c: Candidate, budget: TimeBudget | None = None) -> StageResult:
    """Run ``stage`` when its needs are met, else record it as not run (naming the need)."""
    why = blocked_by(stage, c, budget)
    return run_stage(stage, c, budget) if why is None else not_run(stage, c, why)


def run_stages(stages: Sequence[Stage], c: Candidate, report: ValidationReport,
               budget: TimeBudget | None = None) -> bool:
    """Run every stage of ``stages`` that concerns ``c`` and whose needs are met, in order, into ``report`` (the
    others are ``not_run``; none that runs code once ``budget`` is spent); True if one failed."""
    failed = False
    for stage in stages:
        if applies(stage, c):
            failed = add_result(report, run_or_block(stage, c, budget)) or failed
        else:
            pass_over(stage, c)
    return failed


def new_report(c: Candidate) -> ValidationReport:
    return ValidationReport(file=c.file, content_hash=c.content_hash, seeds=list(c.config.seeds))


def finish(c: Candidate, report: ValidationReport, started: float) -> ValidationReport:
    """The finishing step shared by every path: name, domain, fingerprint and time."""
    if c.manifest is not None:
        report.name, report.domain = c.manifest.name, c.manifest.domain
    report.fingerprint = c.fingerprint
    report.seconds = time.perf_counter() - started
    return report
