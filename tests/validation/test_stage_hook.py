"""Validation stages as a plugin hook: a plugin adds a stage with its check, budget, needs, reads and exports, and
the rule it enforces; the list in effect is checked when it loads (a missing budget is an error there, not a silent
default), and every stage, built in or added, reads only what it declares."""

from __future__ import annotations

import collections
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core.designer.prompts import gate_section
from spade_core.errors import StageListError
from spade_core.plugins import get_plugins, hookimpl
from spade_core.plugins.contributions import SeedEnvironment, ValidationStageSpec
from spade_core.plugins.manager import PluginRegistry
from spade_core.validation import ValidationConfig, validate_source
from spade_core.validation import stage_list as stage_list_module
from spade_core.validation.candidate import CANDIDATE_PRODUCTS, Candidate
from spade_core.validation.report import StageResult, Verdict
from spade_core.validation.stage_hook import arrange, check_stage_list, stages_in_effect
from spade_core.validation.stage_list import STAGES, Stage

TALLY_SEED = "spade_example_plugin.seeds.coin_tally"
MATH_SEED = "spade_domains.math.seeds.arithmetic_chain"
SEEDS = ValidationConfig(seeds=tuple(range(6)))


def slow_check(c: Candidate) -> StageResult:
    time.sleep(0.3)
    return StageResult("slow", Verdict.PASSED, "slept")


def counting_check(c: Candidate) -> StageResult:
    return StageResult("episodes", Verdict.PASSED, f"{len(c.reference_episodes)} reference episodes")


def offering(*specs: ValidationStageSpec):
    class Offering:
        @hookimpl
        def spade_validation_stages(self) -> list[ValidationStageSpec]:
            return list(specs)

    return Offering()


def registry_with(*specs: ValidationStageSpec) -> PluginRegistry:
    registry = PluginRegistry(load_entry_points=False)
    assert registry.register(offering(*specs), "third-party")
    return registry


@pytest.fixture
def added_stage() -> Iterator[Callable[..., None]]:
    """Register plugins offering stages in the process-wide registry, and take them out afterwards."""
    registry, names = get_plugins(), []

    def add(*specs: ValidationStageSpec) -> None:
        name = f"stage-plugin-{len(names)}"
        assert registry.register(offering(*specs), name)
        names.append(name)

    yield add
    for name in names:
        registry.unregister(name)


def spec(name: str = "episodes", **fields) -> ValidationStageSpec:
    values = {"check": f"{__name__}:counting_check", "budget_s": 5.0, "needs": ("reference",),
              "reads": ("reference_episodes",)} | fields
    return ValidationStageSpec(name=name, **values)


# -- the list loads, or says exactly what a plugin got wrong ----------------------------------------------------------

def test_the_built_in_list_declares_a_budget_and_its_reads_for_every_stage() -> None:
    check_stage_list(STAGES)
    assert all(stage.budget_s > 0 for stage in STAGES)
    assert ValidationConfig().stage_budget_s == {}  # budgets live with the stages; the config only overrides


def test_an_added_stage_runs_after_the_built_in_ones_and_before_the_probe_model() -> None:
    names = [s.name for s in stages_in_effect(registry_with(spec()))]
    assert names[-2:] == ["episodes", "calibration"]
    assert names[:-2] == [s.name for s in STAGES[:-1]]


@pytest.mark.parametrize(("bad", "message"), [
    (spec(budget_s=None), r"'episodes' of plugin 'third-party' declares no budget_s: give it "
                          r"ValidationStageSpec\(budget_s=SECONDS\)"),
    (spec(budget_s=0), "budget_s must be a positive number of seconds, got 0"),
    (spec(budget_s=float("nan")), "budget_s must be a positive number of seconds"),
    (spec(needs=("refrence",)), "needs 'refrence', which is no stage; did you mean 'reference'"),
    (spec(needs=("contract",)), r"reads \['reference_episodes'\], which no stage it needs exports: add one of "
                                r"\['determinism', 'reference'\] to its needs"),
    (spec(reads=("answers",)), "declares 'answers', which is no Candidate attribute"),
    (spec(name="hint"), "'hint' of plugin 'third-party': the name is taken by validation stage 'hint'"),
    (spec(name="Bad Name"), "the name must match"),
    (spec(rejects_as="accepted"), "rejects_as 'accepted' is not one of"),
    (spec(check="no_such_module:check"), "its check cannot be loaded: cannot import 'no_such_module'"),
    (spec(check=f"{__name__}:SEEDS"), "is ValidationConfig, not a function"),
])
def test_a_broken_added_stage_stops_the_list_naming_plugin_stage_and_fix(bad: ValidationStageSpec,
                                                                         message: str) -> None:
    with pytest.raises(StageListError, match=message):
        stages_in_effect(registry_with(bad))


def test_added_stages_that_need_each_other_in_a_cycle_are_refused() -> None:
    with pytest.raises(StageListError, match="need each other in a cycle"):
        stages_in_effect(registry_with(spec("first", needs=("second",)), spec("second", needs=("first",))))


def test_a_hook_that_returns_something_else_is_refused_by_plugin_name() -> None:
    class Wrong:
        @hookimpl
        def spade_validation_stages(self):
            return [{"name": "episodes"}]

    registry = PluginRegistry(load_entry_points=False)
    assert registry.register(Wrong(), "wrong-plugin")
    with pytest.raises(StageListError, match="plugin 'wrong-plugin': spade_validation_stages returned dict"):
        stages_in_effect(registry)


def test_a_budget_override_for_no_stage_is_an_error() -> None:
    with pytest.raises(StageListError, match=r"stage_budget_s: no stage named \['refrence'\]; the stages: structure"):
        validate_source("x = 1", config=ValidationConfig(stage_budget_s={"refrence": 5.0}))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 7), max_size=3), min_size=1, max_size=8))
def test_any_acyclic_set_of_added_stages_is_ordered_after_what_it_needs(edges: list[list[int]]) -> None:
    # added stage i needs built-in "reference" and added stages declared after it (j > i), so arranging must reorder
    n = len(edges)
    added = [Stage(f"added_{i}", counting_check, off_driver=True, runs_code=False, budget_s=1.0,
                   needs=tuple(sorted({f"added_{j}" for j in deps if i < j < n})) + ("reference",))
             for i, deps in enumerate(edges)]
    stages = arrange(STAGES, added)
    position = {s.name: k for k, s in enumerate(stages)}
    assert [s.name for s in stages if not s.name.startswith("added_")] == [s.name for s in STAGES]
    assert all(position[need] < position[s.name] for s in added for need in s.needs)
    assert position["calibration"] == len(stages) - 1
    check_stage_list(stages)


# -- what runs: budgets, needs, domains, the prompt ------------------------------------------------------------------

def test_an_added_stage_reads_what_its_needs_export_and_is_reported(added_stage) -> None:
    added_stage(spec())
    report = validate_source(SeedEnvironment(MATH_SEED).source(), file="chain.py", config=SEEDS)
    [result] = [s for s in report.stages if s.stage == "episodes"]
    assert report.accepted and result.verdict == Verdict.PASSED
    assert int(result.observed.split()[0]) >= len(SEEDS.seeds)  # the reference's episodes were there to read


def test_an_added_stage_over_its_own_budget_fails_naming_it(added_stage) -> None:
    added_stage(spec("slow", check=f"{__name__}:slow_check", budget_s=0.05, needs=(), reads=()))
    report = validate_source(SeedEnvironment(MATH_SEED).source(), file="chain.py", config=SEEDS)
    assert report.failed_stage == "slow" and "the stage's budget of 0.05 s was spent" in report.message
    assert "validation.stage_budget_s.slow" in report.message
    relaxed = validate_source(SeedEnvironment(MATH_SEED).source(), file="chain.py",
                              config=ValidationConfig(seeds=SEEDS.seeds, stage_budget_s={"slow": 5.0}))
    assert relaxed.accepted, relaxed.repair_message()


def test_an_added_stage_whose_need_failed_does_not_run(added_stage) -> None:
    added_stage(spec())
    broken = SeedEnvironment(MATH_SEED).source().replace("def reference_action(self):",
                                                         "def reference_action(self):\n        return 'no idea'")
    report = validate_source(broken, file="broken.py", config=SEEDS)
    [result] = [s for s in report.stages if s.stage == "episodes"]
    assert report.failed_stage == "reference" and result.not_run and "needs 'reference'" in result.observed


def test_the_example_domain_stage_checks_its_own_candidates_only() -> None:
    """``tests/example_plugin`` adds ``whole_counts`` for tally candidates: every reference answer reads as a count."""
    assert "whole_counts" in [s.name for s in stages_in_effect()]
    source = SeedEnvironment(TALLY_SEED).source()
    accepted = validate_source(source, file="coin_tally.py", config=SEEDS)
    assert accepted.accepted and "whole_counts" in [s.stage for s in accepted.stages]
    # the lead (heads minus tails) goes below zero: not a count, so not a tally task
    lead = source.replace('total = total + group.count("H")',
                          'total = total + group.count("H") - group.count("T")')
    assert lead != source
    rejected = validate_source(lead, file="lead.py", config=SEEDS)
    assert rejected.failed_stage == "whole_counts", rejected.repair_message()
    assert "reads as the count -" in rejected.message and "one whole count" in rejected.repair_message()
    # the same module in another domain: the stage does not concern it and is not reported
    elsewhere = validate_source(lead.replace('"domain": "tally"', '"domain": "unclaimed"'), file="lead.py",
                                config=SEEDS)
    assert "whole_counts" not in [s.stage for s in elsewhere.stages]
    assert elsewhere.failed_stage != "whole_counts"


def test_the_designer_prompt_states_an_added_rule_to_its_domains_only() -> None:
    rule = next(s.rule for s in stages_in_effect() if s.name == "whole_counts")
    assert f"- whole_counts: {rule}" in gate_section("tally")
    assert "whole_counts" not in gate_section("math")


# -- every stage reads only what it declares --------------------------------------------------------------------------

def test_every_stage_reads_and_sets_only_declared_candidate_products(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    """Trace every attribute a stage touches while a tally and a math candidate go through the whole gate (with a
    store and memory, so no stage is skipped for a missing input): the products it reads are declared in ``reads``
    (or its own ``exports``), the ones it sets in ``exports``."""
    from spade_core.gym_bridge import open_store
    from spade_core.memory.behaviour import BehaviourIndex

    current: list[str | None] = [None]
    read, written = collections.defaultdict(set), collections.defaultdict(set)
    plain_get, plain_set = Candidate.__getattribute__, Candidate.__setattr__

    def get(self, name):
        if current[0] is not None and name in CANDIDATE_PRODUCTS:
            read[current[0]].add(name)
        return plain_get(self, name)

    def put(self, name, value):
        if current[0] is not None and name in CANDIDATE_PRODUCTS:
            written[current[0]].add(name)
        plain_set(self, name, value)

    run_stage = stage_list_module.run_stage

    def traced(stage, c, budget=None):
        current[0] = stage.name
        try:
            return run_stage(stage, c, budget)
        finally:
            current[0] = None

    monkeypatch.setattr(Candidate, "__getattribute__", get)
    monkeypatch.setattr(Candidate, "__setattr__", put)
    monkeypatch.setattr(stage_list_module, "run_stage", traced)
    store = open_store(tmp_path / "registry.sqlite3")
    for module in (TALLY_SEED, MATH_SEED):
        validate_source(SeedEnvironment(module).source().replace('"name": "', '"name": "Traced'), file=module,
                        config=SEEDS, store=store, memory=BehaviourIndex(store))
    stages = stages_in_effect()
    ran = {name for name in read} | {name for name in written}
    assert ran >= {"structure", "instantiate", "reference", "behaviour", "whole_counts"}
    for stage in stages:
        assert read[stage.name] <= set(stage.reads) | set(stage.exports), (stage.name, read[stage.name])
        assert written[stage.name] <= set(stage.exports), (stage.name, written[stage.name])
