"""The main job's small-world comparison: the report shows its table and plot above the LLM loop, a resumed run does
not play it again, and a bad arm is named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spade_core.selfplay.config import SelfPlayConfig, SmallWorldSection
from spade_core.selfplay.records import SMALL_WORLD_RECORDS
from spade_core.selfplay.report import write_report
from spade_core.selfplay.small_world import run_comparison
from spade_core.typed_config import ConfigError, load_config


def record(i: int, held_out: float, exploit: float) -> dict:
    return {"iteration": i, "held_out_success": held_out, "cumulative_agent_tokens": 100 * (i + 1),
            "agent_episodes": 384, "mean_regret": 0.1, "designs": [],
            "categories": {"trivial": 0.1, "edge": 0.5, "impossible": 0.1, "exploit": exploit, "invalid": 0.0}}


def runs() -> dict:
    return {"defended": [[record(i, 0.1 + 0.08 * i, 0.4 - 0.03 * i) for i in range(12)]],
            "fixed <b>pool</b>": [[record(i, 0.1 + 0.02 * i, 0.3) for i in range(12)]]}


def test_the_report_shows_the_small_world_above_the_llm_loop(tmp_path: Path) -> None:
    path = tmp_path / SMALL_WORLD_RECORDS
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(runs()))
    page = write_report(tmp_path).read_text()
    assert "The small world: the objective at work" in page
    assert "<td>defended</td>" in page and "0.980" in page  # held-out at the end of the defended run
    assert "fixed &lt;b&gt;pool&lt;/b&gt;" in page and "<b>pool</b>" not in page  # names from the run dir are escaped
    assert page.index("The small world") < page.index("No iteration of the LLM loop has finished yet")
    assert "Per agent token" in page and "to 1,200 tokens" in page


def test_unreadable_records_are_said_so_and_a_resumed_run_does_not_play_again(tmp_path: Path) -> None:
    path = tmp_path / SMALL_WORLD_RECORDS
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"defended": [[{"iteration": 0}]]}))
    assert "could not be read" in write_report(tmp_path).read_text()
    path.write_text(json.dumps(runs()))
    played = []
    assert run_comparison(SmallWorldSection(enabled=True), tmp_path, played.append) == runs() and played == []


def test_the_cpu_demo_plays_the_small_world_and_a_bad_arm_is_named(tmp_path: Path) -> None:
    demo = load_config(SelfPlayConfig, Path(__file__).parents[2] / "configs" / "cpu-demo.yaml", [])
    assert demo.small_world.enabled and demo.small_world.arms == ["defended", "fixed"]
    assert not SelfPlayConfig().small_world.enabled
    with pytest.raises(ConfigError, match=r"small_world.arms: unknown arm\(s\) \['designed'\]"):  # when read
        load_config(SelfPlayConfig, None, ["small_world.arms=[designed]"])
