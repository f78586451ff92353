"""The per-role lines say what happened and why, in the metrics, the console and the report."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from short_selfplay import overrides

from spade_core.cli.main import cli
from spade_core.selfplay.metrics import (
    AgentMetrics,
    CandidateRecord,
    DesignerMetrics,
    IterationMetrics,
    read_metrics,
)
from spade_core.selfplay.verdicts import RoleContext, role_verdicts

SMALL = RoleContext(designer_parameters=135_000_000, agent_parameters=135_000_000)
CAPABLE = RoleContext(designer_parameters=7_000_000_000, agent_parameters=7_000_000_000)


def _rejected(stage: str) -> CandidateRecord:
    return CandidateRecord(index=0, domain="math", name="X", verdict="rejected", status="failed", stage=stage,
                           message="...", attempts=1)


def test_a_small_model_that_writes_no_module_is_told_to_use_a_capable_designer() -> None:
    m = IterationMetrics(iteration=0, designer=DesignerMetrics(candidates=2, outcomes={"extraction": 2}),
                         agent=AgentMetrics(envs=["spade/A-v0"], episodes=12))
    designer, agent, trainer = role_verdicts(m, SMALL)
    assert designer.startswith("designer: 0/2 candidates extracted - no completion held a module")
    assert "135M parameters" in designer and "set designer.model to a capable model" in designer
    assert "success 0% with the hint and 0% without" in agent and "does not solve these tasks" in agent
    assert trainer.startswith("trainer: agent not updated")
    capable = role_verdicts(m, CAPABLE)[0]
    assert "0/2 candidates extracted" in capable and "designer.model" not in capable


def test_rejections_name_the_stages_and_acceptances_the_ids() -> None:
    m = IterationMetrics(iteration=0, designer=DesignerMetrics(
        candidates=3, outcomes={"grounding": 2, "extraction": 1}, designs=[_rejected("grounding")] * 2))
    assert role_verdicts(m, CAPABLE)[0] == "designer: 2/3 extracted, 0 accepted - rejected at grounding (2)"
    ok = IterationMetrics(iteration=0, designer=DesignerMetrics(candidates=2, accepted=1, accepted_ids=["spade/B-v0"],
                                                                outcomes={"accepted": 1, "hint": 1}))
    assert role_verdicts(ok, SMALL)[0] == "designer: 1/2 accepted (spade/B-v0)"
    off = role_verdicts(IterationMetrics(iteration=0), RoleContext(designer_enabled=False))[0]
    assert "designer.enabled=false" in off and "fixed pool" in off


def test_a_run_prints_and_records_the_lines(setup: dict[str, Path]) -> None:
    args = ["selfplay"]
    for item in overrides(setup, "verdicts", iterations=1):
        args += ["--set", item]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    run_dir = setup["root"] / "verdicts"
    [metrics] = read_metrics(run_dir)
    assert [line.split(":")[0] for line in metrics.summary] == ["designer", "agent", "trainer"]
    for line in metrics.summary:
        assert line in result.output.replace("\n", " ") or line[:60] in result.output
    assert "Per role, iteration 0" in (run_dir / "report.html").read_text()
