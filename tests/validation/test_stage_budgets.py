"""A stage's budget is one knob (``ValidationConfig.stage_budget_s``, the self-play ``validation:`` section, ``spade
validate --stage-budget``), checked at load, and a deadline its work checks while it runs: a stage whose environment
is slow ends at its budget (plus a call's kill), failing with a message that names the stage, the budget and how far
it got."""

from __future__ import annotations

import math
import time
from functools import partial

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from spade_core.cli.main import cli
from spade_core.deadlines import Deadline
from spade_core.errors import SandboxTimeout, StageListError
from spade_core.plugins.contributions import SeedEnvironment
from spade_core.sandbox.budgets import TimeBudget
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.wiring import validation_config
from spade_core.typed_config import ConfigError, load_config
from spade_core.validation import ValidationConfig, validate_source
from spade_core.validation.pipeline import candidate_budget, new_candidate, sandbox_handles
from spade_core.validation.stage_clock import StageBudgetSpent, StageClock
from spade_core.validation.stage_list import STAGE_NAMES, run_stage, stage_named
from spade_registry.records import Status

MATH_SEED = SeedEnvironment("spade_domains.math.seeds.arithmetic_chain").source()
SLOW_STEP = MATH_SEED.replace("    def step(self, action):\n", "    def step(self, action):\n        spin(6000000)\n").replace(
    "class ArithmeticChain:", "def spin(n):\n    total = 0\n    for i in range(n):\n        total = total + i\n"
    "    return total\n\n\nclass ArithmeticChain:")
"""The bundled arithmetic chain whose every step spins for a while (about 0.4-1 s, more on a loaded machine: 40 seeds never fit a 2 s budget)."""


def test_a_slow_stage_ends_at_its_budget_naming_stage_budget_and_progress() -> None:
    # wall-clock deadlines (a busy machine's stretch is tested in tests/sandbox/test_cpu_share.py)
    config = ValidationConfig(seeds=tuple(range(40)), stage_budget_s={"reference": 2.0}, min_cpu_share=1.0)
    budget = candidate_budget(config)
    c = new_candidate(SLOW_STEP, file="slow.py", config=config, handles=partial(sandbox_handles, budget=budget))
    try:
        for name in ("structure", "policy", "instantiate", "contract"):
            assert not run_stage(stage_named(name), c, budget).failed, c.results[name].message()
        started = time.monotonic()
        result = run_stage(stage_named("reference"), c, budget)
        seconds = time.monotonic() - started
    finally:
        assert c.envs is not None
        c.envs.close_all()
    assert seconds < 2.0 + 3.0, seconds  # the budget, a killed call's replacement, slack
    assert result.failed and result.status == Status.FAILED
    assert "the stage's budget of 2 s was spent after" in result.observed
    done = int(result.observed.split("spent after ")[1].split(" of ")[0])
    assert 0 < done <= 40 and "of 40 reference seeds" in result.observed  # the last seeds may be cut mid-stage
    assert "validation.stage_budget_s.reference" in result.message()
    assert budget.spent() is None  # the candidate's own total is not used up by one stage's deadline


def test_a_call_running_at_the_deadline_gets_only_the_time_left() -> None:
    budget = TimeBudget(60.0)
    with budget.within(Deadline.after(0.5), lambda: "the stage's budget was spent"):
        deadline, end = budget.cut(time.monotonic() + 30.0)
        assert end is not None and deadline - time.monotonic() <= 0.5
        time.sleep(0.6)
        with pytest.raises(SandboxTimeout, match="the stage's budget was spent"):
            budget.cut(time.monotonic() + 30.0)
        budget.exhaust()  # a call cut off by the deadline leaves the candidate's total as it was
    assert budget.spent() is None and budget.cut(time.monotonic() + 1.0)[1] is not None


def test_a_loop_past_the_deadline_stops_before_its_next_item() -> None:
    clock = StageClock.start("hint", 0.2)
    seen = []
    with pytest.raises(StageBudgetSpent) as caught:
        for item in clock.items(range(10), "hint episodes"):
            seen.append(item)
            time.sleep(0.1)
    assert 1 < len(seen) < 10
    assert str(caught.value) == (f"the stage's budget of 0.2 s was spent after {len(seen)} of 10 hint episodes; make "
                                 "calls cheaper or raise validation.stage_budget_s.hint")


def test_the_config_key_reaches_the_stage() -> None:
    config = load_config(SelfPlayConfig, None, ["validation.stage_budget_s={structure: 0.000001}"])
    report = validate_source(MATH_SEED, config=validation_config(config))
    assert report.failed_stage == "structure"
    assert "budget of 1e-06 s was spent" in report.message and "stage_budget_s.structure" in report.message


@pytest.mark.slow  # the CLI opens and syncs the store first (about 15 s on 2 loaded cores); the fast variants: the
# bad flags below go through the same option, and the config key reaches the stage above
def test_the_cli_flag_reaches_the_stage(tmp_path) -> None:
    path = tmp_path / "chain.py"
    path.write_text(MATH_SEED)
    # the default store (as the other CLI validation tests use it): its seeds' fingerprints are computed once
    result = CliRunner().invoke(cli, ["validate", str(path), "--json", "--stage-budget", "policy=5",
                                      "--stage-budget", "structure=0.000001"])
    assert result.exit_code == 1, result.output
    assert '"stage": "structure"' in result.output and "budget of 1e-06 s was spent" in result.output


@pytest.mark.parametrize(("value", "said"), [
    ("{refrence: 5}", "validation.stage_budget_s: no stage named ['refrence']; the stages: structure, "),
    ("{hint: 0}", "validation.stage_budget_s: hint must be a finite number of seconds above 0, got 0.0"),
    ("{hint: -3}", "validation.stage_budget_s: hint must be a finite number of seconds above 0, got -3.0"),
    ("{hint: .inf}", "validation.stage_budget_s: hint must be a finite number of seconds above 0, got inf"),
])
def test_a_bad_budget_fails_at_load_naming_the_key(value: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(SelfPlayConfig, None, [f"validation.stage_budget_s={value}"])
    assert str(caught.value).startswith(said)


@pytest.mark.parametrize("flag", ["refrence=5", "hint=0", "hint=nan", "hint"])
def test_a_bad_cli_budget_is_a_usage_error(flag: str, tmp_path) -> None:
    result = CliRunner().invoke(cli, ["validate", str(tmp_path), "--stage-budget", flag])
    assert result.exit_code == 2 and "--stage-budget" in result.output


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_only_finite_positive_budgets_build_a_config(seconds: float) -> None:
    if math.isfinite(seconds) and seconds > 0:
        assert ValidationConfig(stage_budget_s={"hint": seconds}).budget("hint", 60.0) == seconds
    else:
        with pytest.raises(ValueError, match="hint must be a finite number of seconds above 0"):
            ValidationConfig(stage_budget_s={"hint": seconds})


def test_every_stage_budget_has_one_home() -> None:
    assert ValidationConfig().stage_budget_s == {}  # defaults live with the stages; the config only overrides
    assert all(ValidationConfig().budget(name, stage_named(name).budget_s) == stage_named(name).budget_s
               for name in STAGE_NAMES)
    with pytest.raises(StageListError, match="no stage named"):
        validate_source(MATH_SEED, config=ValidationConfig(stage_budget_s={"nope": 1.0}))


def test_nested_loops_report_where_each_one_was() -> None:
    clock = StageClock.start("swap", 0.15)
    with pytest.raises(StageBudgetSpent):
        for _ in clock.items(range(3), "seeds"):
            for _ in clock.items(range(100), "replays"):
                time.sleep(0.02)
    assert clock.spent_message().startswith("the stage's budget of 0.15 s was spent after 0 of 3 seeds, ")
    assert " of 100 replays; make calls cheaper" in clock.spent_message()
