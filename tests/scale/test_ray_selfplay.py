"""``SelfPlay`` with Ray enabled: one iteration end to end on a local Ray instance, with the ``ray`` metrics block."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the scale-out tests need Ray: pip install 'spade-rl[ray]'")

from short_selfplay import overrides as short_overrides
from short_selfplay import write_counting_corpus

from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.loop import SelfPlay
from spade_core.selfplay.metrics import read_metrics
from spade_core.training.regret import ARMS
from spade_core.typed_config import load_config


def overrides(root: Path, model: Path) -> list[str]:
    """The short tiny-model run of the self-play tests, one iteration, Ray on."""
    setup = {"root": root, "model": model, "corpus": write_counting_corpus(root / "docs.jsonl")}
    return [*short_overrides(setup, "run", iterations=1), "ray.enabled=true", "ray.num_env_actors=2"]


def test_one_ray_iteration_end_to_end(ray_runtime, tiny_model_dir: Path, tmp_path: Path) -> None:
    config = load_config(SelfPlayConfig, None, overrides(tmp_path, tiny_model_dir))
    report = SelfPlay(config).run()
    assert report.exists()
    print(json.dumps(read_metrics(Path(config.run_dir))[0].ray, indent=1))
    (metrics,) = read_metrics(Path(config.run_dir))
    assert metrics.errors == []
    agent = metrics.agent
    assert agent.episodes == len(agent.envs) * 2 * len(ARMS) and agent.env_failures == 0
    assert metrics.train.agent.trajectories > 0
    block = metrics.ray
    assert block["nodes"] == 1 and block["actors"] == 2 and block["address"] == "local"
    actors = block["env_actors"]
    assert [a["actor"] for a in actors] == [0, 1] and all(a["hostname"] and a["pid"] for a in actors)
    # every agent episode ran on an env actor: single-turn math, one reset and one step each
    assert sum(a.get("resets", 0) for a in actors) == agent.episodes
    assert sum(a.get("steps", 0) for a in actors) == agent.episodes
    assert all(a.get("envs", 0) > 0 for a in actors)
    assert set(block["validation"]) >= {"hosts"}
    # the run killed its env actors (their CPUs come back) and left the caller's Ray instance running
    import ray

    assert ray.is_initialized()
    deadline = time.monotonic() + 20
    while ray.available_resources().get("CPU", 0.0) < ray.cluster_resources()["CPU"] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ray.available_resources().get("CPU", 0.0) == ray.cluster_resources()["CPU"]



def test_generation_runs_on_ray_generator_actors_and_every_push_is_verified_on_each(
        ray_runtime, tiny_model_dir: Path, tmp_path: Path) -> None:
    extra = ["ray.generator_actors=2", "ray.generator_actor_cpus=0.5", "ray.validation_task_cpus=0.5"]
    config = load_config(SelfPlayConfig, None, [*overrides(tmp_path, tiny_model_dir), *extra])
    SelfPlay(config).run()
    (metrics,) = read_metrics(Path(config.run_dir))
    assert metrics.errors == []
    actors = metrics.ray["generator_actors"]
    assert [a["actor"] for a in actors] == [0, 1] and all(a["engine"] == "hf" and a["pid"] for a in actors)
    # designer candidates and agent turns were all sampled on the actors, shared between them
    assert all(a["sequences"] > 0 and a["tokens"] > 0 for a in actors)
    assert sum(a["tokens"] for a in actors) == metrics.throughput.tokens
    updates = [update.metrics for update in (metrics.train.agent, metrics.train.designer) if update is not None]
    assert updates and all(u["sync_ok"] == 1.0 and u["sync_engines"] == 2.0 for u in updates)
    import ray

    deadline = time.monotonic() + 20
    while ray.available_resources().get("CPU", 0.0) < ray.cluster_resources()["CPU"] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ray.available_resources().get("CPU", 0.0) == ray.cluster_resources()["CPU"]  # the actors are gone
