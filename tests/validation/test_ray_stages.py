"""One list of stages: the Ray path runs exactly the stages in effect (built-in and plugin-added), through the same run_stage and status rule, with each stage
where it declares it may run; with every input given (store, document, memory, probe) Ray and local reports agree."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from spade_core.validation import STAGES, ProbeThresholds, ValidationConfig, validate_many
from spade_core.validation.episodes import reference_policy
from spade_core.validation.stage_list import STAGE_NAMES, stage_named

CORPUS = Path(__file__).parent / "corpus"
GROUNDING = Path(__file__).parent / "grounding_corpus"


def test_every_stage_declares_where_it_runs() -> None:
    assert STAGE_NAMES[0] == "structure" and STAGE_NAMES[-1] == "calibration"
    assert {s.name for s in STAGES if not s.off_driver} == {"exact_duplicate", "novelty", "same_draws", "calibration"}
    assert stage_named("behaviour").exports == ("fingerprint",)
    assert stage_named("novelty").reads == ("fingerprint",)
    with pytest.raises(KeyError, match="no validation stage 'nope'"):
        stage_named("nope")


def test_ray_runs_the_same_list_with_every_input(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="the Ray path needs Ray: pip install 'spade-rl[ray]'")
    from spade_core.gym_bridge import open_store
    from spade_core.memory.behaviour import BehaviourIndex
    from spade_core.scale.ray_runtime import RayRuntime
    from spade_core.scale.ray_validation import RayValidator, dispatch_point, sent_back
    from spade_core.validation.stage_hook import stages_in_effect

    stages = stages_in_effect()
    start = dispatch_point(stages)
    assert [s.name for s in stages[:start]] == ["structure", "exact_duplicate", "policy"]
    # a task sends back what the driver's later stages read, and never live sandbox handles
    assert sent_back(stages, start) == ("fingerprint", "manifest")
    store = open_store(tmp_path / "registry.sqlite3")
    config = ValidationConfig(seeds=(0, 1, 2), baseline_episodes=3, probe=ProbeThresholds(episodes=2))
    # generous budgets: a stage over its time budget on a loaded machine would make the comparison about timing
    config = replace(config, stage_budget_s={stage.name: 300.0 for stage in stages})
    document = (GROUNDING / "french_revolution.txt").read_text()
    good = (GROUNDING / "grounded_revolution_dates.py").read_text()
    sources = [("dates", good), ("label", (GROUNDING / "ungrounded_multiplication_label.py").read_text()),
               ("copy", good.replace("RevolutionDates", "RevolutionYears").replace("self.left", "self.remaining"))]
    from spade_core.validation.pipeline import record_outcome, validate_source

    record_outcome(store, good, validate_source(good, config=config, document=document))  # the copy's original
    kwargs = {"config": config, "store": store, "memory": BehaviourIndex(store), "probe": reference_policy,
              "document": document}
    local = validate_many(sources[1:], **kwargs)
    runtime = RayRuntime.start(num_cpus=2)
    try:
        remote = RayValidator().validate_many(sources[1:], **kwargs)
    finally:
        runtime.shutdown()

    def shape(report):
        return (report.status, [(s.stage, s.verdict, s.observed, s.status) for s in report.stages])

    assert [shape(r) for r in remote] == [shape(r) for r in local]
    assert [r.failed_stage for r in remote] == ["grounding", "novelty"]
    assert "near-duplicate of spade/RevolutionDates-v0" in remote[1].message
