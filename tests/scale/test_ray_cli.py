"""``spade selfplay --ray``: the command starts its own local Ray instance, runs, and stops it again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the scale-out tests need Ray: pip install 'spade-rl[ray]'")

from short_selfplay import short_run_settings, write_counting_corpus


def test_cli_ray_flag_runs_one_iteration_on_its_own_local_instance(tiny_model_dir: Path, tmp_path: Path) -> None:
    setup = {"root": tmp_path, "model": tiny_model_dir, "corpus": write_counting_corpus(tmp_path / "docs.jsonl")}
    sets = [f"store={tmp_path / 'run.sqlite3'}", *short_run_settings(setup), "agent.envs_per_iteration=1",
            "ray.num_cpus=2"]
    command = [sys.executable, "-m", "spade_core.cli.main", "selfplay", "--ray", "--iterations", "1",
               "--run-dir", str(tmp_path / "run"), *[arg for s in sets for arg in ("--set", s)]]
    result = subprocess.run(command, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr[-3000:]
    (metrics,) = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert metrics["ray"]["address"] == "local" and metrics["ray"]["actors"] == 2
    assert sum(a.get("steps", 0) for a in metrics["ray"]["env_actors"]) == metrics["agent"]["episodes"] > 0
    import ray

    assert not ray.is_initialized()  # the Ray instance was the subprocess's own, and it is gone with it
