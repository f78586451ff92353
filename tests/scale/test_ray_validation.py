"""Validation as Ray tasks gives the reports the local pipeline gives: status, stages, verdicts and messages."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from scale_helpers import CORPUS

pytest.importorskip("ray", reason="the scale-out tests need Ray: pip install 'spade-rl[ray]'")

from spade_core.gym_bridge import open_store
from spade_core.scale.ray_validation import RayValidator
from spade_core.validation import GroundingThresholds, ValidationConfig, validate_many
from spade_core.validation.pipeline import record_outcome, sandbox_handles

GOOD = (CORPUS / "good_secret_number.py").read_text()
CONFIG = ValidationConfig(seeds=(0, 1, 2), baseline_episodes=3)


def _shape(report) -> tuple:
    """Everything but timings."""
    return (report.file, report.status, report.failed_stage, report.name, report.domain, report.content_hash,
            [(s.stage, s.verdict, s.observed, s.causes, s.fix) for s in report.stages])


def test_ray_reports_match_local_reports(ray_runtime, tmp_path: Path) -> None:
    # an accepted env, broken candidates caught on the driver (structure, policy) and in the task (reference),
    # an exact duplicate (the driver's store) and a near duplicate (the driver's memory check, after the task)
    store = open_store(tmp_path / "registry.sqlite3")
    record_outcome(store, GOOD.replace('"SecretNumber"', '"Stored"'), validate_many([("s", GOOD)], config=CONFIG)[0])
    sources = [("good", GOOD)] + [(name, (CORPUS / f"{name}.py").read_text())
                                  for name in ("syntax_error", "forbidden_import", "reference_fails")]
    sources.append(("copy", GOOD.replace('"SecretNumber"', '"Stored"')))
    kwargs = {"config": CONFIG, "store": store}
    local = validate_many(sources, **kwargs)
    validator = RayValidator()
    remote = validator.validate_many(sources, **kwargs)
    assert [_shape(r) for r in remote] == [_shape(r) for r in local]
    assert [r.status for r in remote] == ["accepted", "failed", "failed", "failed", "duplicate"]
    assert [r.failed_stage for r in remote] == [None, "structure", "policy", "reference", "exact_duplicate"]
    assert remote[0].to_dict()["stages"][-1]["stage"] == "calibration"
    stats = validator.take_stats()
    # parse, store and static policy run on the driver first: only candidates that reach their code cost a task
    assert stats["tasks"] == 2 and "fallbacks" not in stats and sum(stats["hosts"].values()) == 2

    from spade_core.memory.behaviour import BehaviourIndex

    near = {"config": CONFIG, "memory": BehaviourIndex(store)}  # behaves like the stored spade/Stored-v0
    local_near = validate_many([("good", GOOD)], **near)
    remote_near = validator.validate_many([("good", GOOD)], **near)
    assert [_shape(r) for r in remote_near] == [_shape(r) for r in local_near]
    assert remote_near[0].status == "duplicate" and remote_near[0].failed_stage == "novelty"


def test_designer_validates_through_ray_tasks(ray_runtime, tmp_path: Path, tokenizer) -> None:
    # the designer hook SelfPlay uses: candidates written, validated as Ray tasks (novelty on the driver), stored
    from spade_core.corpora import open_corpus
    from spade_core.designer.loop import DesignConfig, Designer
    from spade_core.memory import EnvironmentMemory, HashingEmbedder
    from spade_core.rollout.scripted import ScriptedPolicy

    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "d1", "title": "Binary search",
                                "text": "Binary search halves an interval: a number is picked, then guessed."}) + "\n")
    store = open_store(tmp_path / "designed.sqlite3")
    source = GOOD.replace('"SecretNumber"', '"RayDesigned"')
    policy = ScriptedPolicy(tokenizer, lambda prompt: "```python\n" + source + "```")
    validator = RayValidator()
    designer = Designer(policy, open_corpus(f"jsonl:{docs}"), store,
                        memory=EnvironmentMemory(store, embedder=HashingEmbedder()),
                        config=DesignConfig(domain="math", max_repairs=0, max_new_tokens=4096, calibrate=False),
                        validation=replace(CONFIG, grounding=GroundingThresholds(require_use=False)),  # shows "picked"
                        validate=validator.validate_many)
    (candidate,) = designer.design(1).candidates
    report = candidate.final.report
    assert candidate.accepted and report.env_id == "spade/RayDesigned-v0", report.message
    stages = [s.stage for s in report.stages]
    assert stages[-2:] == ["same_draws", "calibration"] and "novelty" in stages  # the driver stages
    assert store.get(report.env_id).status_label == "accepted"
    assert validator.take_stats()["tasks"] == 1


def test_a_lost_validation_task_falls_back_to_the_driver(ray_runtime) -> None:
    driver = os.getpid()

    def handles(source: str, env_id: str, *, budget=None, family=None):
        if os.getpid() != driver:
            os._exit(1)  # the Ray worker running the task dies (every retry too)
        return sandbox_handles(source, env_id, budget=budget, family=family)

    validator = RayValidator()
    (report,) = validator.validate_many([("good", GOOD)], config=CONFIG, handles=handles)
    (local,) = validate_many([("good", GOOD)], config=CONFIG)
    assert _shape(report) == _shape(local) and report.accepted
    stats = validator.take_stats()
    assert stats["fallbacks"] == 1 and stats["lost"] == 1
