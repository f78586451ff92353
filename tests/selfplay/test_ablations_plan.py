"""configs/ablations.yaml: every run of the plan builds, and one iteration of each runs on CPU with the tiny model
through ``spade selfplay --ablations`` (the GPU settings swapped for CPU ones with --set)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from short_selfplay import short_run_settings

from spade_core.cli.main import cli
from spade_core.selfplay.ablations import load_plan
from spade_core.selfplay.metrics import read_metrics
from spade_core.typed_config import ConfigError

PLAN = Path(__file__).parents[2] / "configs" / "ablations.yaml"
CPU = ["model.generator=hf", "model.torch_threads=1", "model.max_batch_size=32", "model.vllm={}",
       "train.backend_options={}", "designer.domains=[math]", "agent.max_concurrent_episodes=16",
       "agent.max_new_tokens=6", "designer.candidates_per_iteration=1", "agent.envs_per_iteration=1",
       "pool.enabled=false"]  # one store for all runs: no run retires the environments the next one plays


def test_the_plan_names_the_paper_comparisons() -> None:
    plan = load_plan(PLAN)
    configs = {name: plan.config(name, root="runs") for name in plan.runs}
    assert not configs["fixed_pool"].designer.enabled
    assert configs["uniform_designer"].regret.objective == "uniform"
    assert configs["learnability"].regret.objective == "learnability"
    assert configs["target_alpha"].regret.objective == "target"
    assert not configs["no_grounding"].designer.grounding and not configs["no_memory"].designer.memory
    assert {configs[n].agent.hint_placement for n in ("spade", "hint_in_system", "hint_before_observation")} == {
        "user", "system", "before"}
    assert configs["spade"].regret.objective == "defended" and configs["spade"].designer.enabled
    assert configs["undefended_regret"].regret.objective == "regret"  # the old objective, as an ablation
    header = PLAN.read_text().split("\nbase:")[0]
    assert "GPU-hours" in header and "Memory" in header  # the compute each run needs


def test_a_bad_plan_names_the_problem(tmp_path: Path) -> None:
    bad = tmp_path / "plan.yaml"
    bad.write_text("runs:\n  a: {agent: {hint_placement: 3}}\n")
    with pytest.raises(ConfigError, match="ablations.a"):
        load_plan(bad)
    bad.write_text("runs:\n  a: {}\neval: {baseline: b}\n")
    with pytest.raises(ConfigError, match="eval.baseline 'b'"):
        load_plan(bad)
    with pytest.raises(ConfigError, match="--only: no run 'c'"):
        load_plan(PLAN).select(["c"])


def test_one_iteration_of_every_run_on_cpu(setup: dict[str, Path]) -> None:
    root = setup["root"] / "ablations"
    sets = [*short_run_settings(setup), *CPU, f"store={setup['root'] / 'ablations.sqlite3'}"]
    args = ["selfplay", "--ablations", str(PLAN), "--run-dir", str(root), "--iterations", "1"]
    for item in sets:
        args += ["--set", item]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    plan = load_plan(PLAN)
    for name in plan.runs:
        [metrics] = read_metrics(root / name)
        assert metrics.iteration == 0 and metrics.agent.episodes > 0, name
        assert (metrics.designer.candidates == 0) == (name == "fixed_pool"), name
    assert "spade eval --compare" in result.output and str(root / "no_memory" / "eval") in result.output
