"""``spade selfplay`` end to end with a tiny local model: real effects, a report, and crash-safe resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from short_selfplay import overrides

from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.loop import SelfPlay, latest_checkpoint
from spade_core.selfplay.metrics import read_metrics
from spade_core.typed_config import ConfigError, load_config
from spade_registry.store import RegistryStore


def test_three_iterations_have_real_effects(setup: dict[str, Path]) -> None:
    config = load_config(SelfPlayConfig, None, overrides(setup, "run"))
    store = RegistryStore(config.store)
    before = store.count()
    store.close()
    report = SelfPlay(config).run()
    run_dir = Path(config.run_dir)
    metrics = read_metrics(run_dir)
    assert [m.iteration for m in metrics] == [0, 1, 2]
    assert report.exists() and "Agent success" in report.read_text()
    assert "success hint alone" in report.read_text() and "gate applied" in report.read_text()
    # parameters changed
    initial = load_file(str(setup["model"] / "model.safetensors"))
    trained = load_file(str(latest_checkpoint(run_dir) / "model" / "model.safetensors"))
    assert any(not torch.equal(initial[k], trained[k]) for k in initial if k in trained)
    # both roles trained, each with its own advantages
    for m in metrics:
        assert m.train.agent is not None and m.train.agent.trajectories > 0
        assert m.train.designer is not None and m.train.designer.trajectories == m.designer.attempts
        # the defended objective's paired rollouts: hinted, unhinted and the hint alone, on 2 seeds per environment
        assert m.agent.envs and m.agent.episodes == len(m.agent.envs) * 2 * 3
        assert m.agent.hint_only_episodes == len(m.agent.envs) * 2 and m.agent.success_hint_only is not None
        assert m.train.agent.trajectories <= len(m.agent.envs) * 2 * 2  # the hint-only episodes are not trained on
        assert set(m.regret.per_env) == set(m.agent.envs)
        assert all(e.gate and e.rates["hint_only"] is not None for e in m.regret.per_env.values() if e.pairs)
        assert m.time.total >= m.time.generate
    # the memory grew: every designer attempt is a record
    store = RegistryStore(config.store)
    assert store.count() > before
    assert all(r.stats.get("episodes", 0) > 0 for r in store.query(status="accepted")
               if r.env_id in metrics[-1].agent.envs)


def test_bad_config_names_the_key(setup: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match="agent.seeds_per_env: expected int"):
        load_config(SelfPlayConfig, None, ["agent.seeds_per_env=many"])
    with pytest.raises(ConfigError, match="unknown key 'seeds'"):
        load_config(SelfPlayConfig, None, ["agent.seeds=3"])


def _cli(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "spade_core.cli.main", "selfplay", *args]


def test_sigkill_then_resume_loses_no_finished_iteration(setup: dict[str, Path]) -> None:
    sets = [item for o in overrides(setup, "killed", iterations=3) for item in ("--set", o)]
    run_dir = setup["root"] / "killed"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(_cli(sets), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and len(read_metrics(run_dir)) < 1:
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    finished = read_metrics(run_dir)
    assert len(finished) >= 1, "the run was killed before finishing an iteration"
    resumed = subprocess.run(_cli(["--resume", str(run_dir)]), capture_output=True, text=True, timeout=600, env=env)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    metrics = read_metrics(run_dir)
    assert [m.iteration for m in metrics] == [0, 1, 2]
    assert metrics[: len(finished)] == finished  # finished iterations were kept as they were
    again = subprocess.run(_cli(sets), capture_output=True, text=True, timeout=120, env=env)
    assert again.returncode == 2 and "--resume" in again.stderr
