"""Honest reports: a stage that could not run is skipped with why, never passed; the CLI says how many were skipped;
one list of stage names, statuses and the hint option."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from spade_core.cli.main import cli
from spade_core.contract.env import HINT_OPTION
from spade_core.validation import STAGE_NAMES, ProbeThresholds, ValidationConfig, validate_source
from spade_core.validation.episodes import reference_policy
from spade_registry.records import Status

ROOT = Path(__file__).resolve().parents[2]
GOOD = Path(__file__).parent / "corpus" / "good_secret_number.py"
GROUNDING = Path(__file__).parent / "grounding_corpus"


def test_missing_inputs_are_skipped_with_why() -> None:
    report = validate_source(GOOD.read_text())
    skipped = {s.stage: s.observed for s in report.skipped}
    assert set(skipped) == {"exact_duplicate", "grounding", "novelty", "same_draws", "calibration"}
    assert all(why for why in skipped.values())
    assert report.accepted and report.message.startswith("accepted with 5 stages skipped")
    data = report.to_dict()
    assert [s["stage"] for s in data["skipped"]] == ["exact_duplicate", "grounding", "novelty", "same_draws",
                                                     "calibration"]


def test_every_input_given_means_no_stage_skipped(tmp_path: Path) -> None:
    from spade_core.gym_bridge import open_store
    from spade_core.memory.behaviour import BehaviourIndex

    store = open_store(tmp_path / "r.sqlite3")
    config = ValidationConfig(probe=ProbeThresholds(episodes=4, trivial_above=1.01))
    report = validate_source((GROUNDING / "grounded_revolution_dates.py").read_text(), config=config, store=store,
                             document=(GROUNDING / "french_revolution.txt").read_text(),
                             memory=BehaviourIndex(store), probe=reference_policy)
    assert report.accepted and report.skipped == [], report.message
    assert report.message == "accepted: every stage passed"


def test_cli_says_accepted_with_stages_skipped(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--store", str(tmp_path / "r.sqlite3"), "validate", str(GOOD)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "ACCEPTED with 2 stages skipped" in text and "every stage passed" not in text
    assert "skipped grounding" in text and "skipped calibration" in text


def test_json_lists_skipped_stages_through_a_subprocess(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "spade_core.cli.main", "--store", str(tmp_path / "r.sqlite3"),
                          "validate", str(GOOD), "--json"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout.splitlines()[-1])
    assert data["verdict"] == "accepted" and data["message"].startswith("accepted with 2 stages skipped")
    assert {s["stage"] for s in data["skipped"]} == {"grounding", "calibration"}  # the store gives the memory


def test_calibration_failures_carry_their_status() -> None:
    config = ValidationConfig(probe=ProbeThresholds(episodes=3))
    report = validate_source(GOOD.read_text(), config=config, probe=reference_policy)
    assert report.status == Status.TRIVIAL and report.stages[-1].status == Status.TRIVIAL
    assert "solved 3 of 3 seeds without the hint" in report.message


def _literal_count(pattern: str, paths: list[Path]) -> int:
    return sum(len(re.findall(pattern, p.read_text())) for p in paths)


def test_stage_names_statuses_and_hint_option_are_defined_once() -> None:
    code = [p for folder in ("validation", "scale", "designer", "selfplay", "cli", "contract", "rollout")
            for p in (ROOT / "spade_core" / folder).rglob("*.py")]
    # the hint reset option: only its definition spells it
    assert _literal_count(r"""["']hint["']\s*:\s*True""", code) == 0
    assert HINT_OPTION == "hint"
    # statuses: compared and assigned through the Status enum, never as bare strings
    assert _literal_count(r"""status\s*==\s*["'](accepted|duplicate|trivial|impossible|failed|retired)["']""",
                          code) == 0
    # one stage list; every budget names a real stage
    assert len(STAGE_NAMES) == len(set(STAGE_NAMES))
    assert set(ValidationConfig().stage_budget_s) <= set(STAGE_NAMES)
    assert not any(path.read_text().count("PIPELINE") for path in (ROOT / "spade_core" / "validation").glob("*.py")
                   if path.name != "stage_list.py")


def test_the_agent_model_calibrates_through_the_episode_runner(tiny_generator) -> None:
    from spade_core.models.base import SamplingParams
    from spade_core.rollout.specs import RolloutConfig
    from spade_core.validation.calibration import PROBE_SECONDS, AgentProbe

    probe = AgentProbe(tiny_generator, RolloutConfig(sampling=SamplingParams(max_new_tokens=4), seed=0))
    config = ValidationConfig(probe=ProbeThresholds(episodes=2))
    report = validate_source(GOOD.read_text(), config=config, probe=probe)
    calibration = report.stages[-1]
    assert calibration.stage == "calibration" and calibration.verdict == "failed"
    # a random two-layer model never finds a three-digit secret, hinted or not: impossible for this agent
    assert report.status == Status.IMPOSSIBLE and calibration.details["p_hint"] == 0.0
    assert calibration.details[PROBE_SECONDS] > 0 and "even with the hint" in report.message
