"""The time budget bounds the work: each phase's deadline from what remains, time-limited episodes censored, and
SIGTERM ending a run with a partial metrics line and a checkpoint that --resume continues from."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from short_selfplay import overrides

from spade_core.deadlines import StopRequest
from spade_core.selfplay.budget import PHASES, BudgetSplit, IterationBudget, RunBudget
from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.loop import SelfPlay, latest_checkpoint
from spade_core.selfplay.metrics import read_metrics
from spade_core.typed_config import ConfigError, load_config

LONG_GAMES = ["designer.enabled=false", "agent.domains=[games]", "agent.max_env_turns=null",
              "agent.pool_ids=[spade/TowerOfHanoi-v0]", "agent.envs_per_iteration=1", "agent.max_context_tokens=8192"]
"""No designer phase, and one game of up to 300 turns: the tiny model plays it for many seconds. Its context fills
after about 34 turns of the hinted arm (17 at the default 4,096 tokens: about a second of play on 2 cores, so a phase
of a second could see a hinted episode end at ``context_limit`` before its deadline)."""

fractions = st.floats(min_value=0.01, max_value=0.98)


@given(designer=fractions, agent=fractions, share=st.floats(min_value=0.0, max_value=1e5))
def test_phase_deadlines_split_the_share_and_stay_inside_it(designer: float, agent: float, share: float) -> None:
    if designer + agent >= 1.0:
        with pytest.raises(ConfigError, match="budget.designer"):
            BudgetSplit(designer=designer, agent=agent)
        return
    split = BudgetSplit(designer=designer, agent=agent)
    now = time.monotonic()
    budget = IterationBudget(now, now + share, split, StopRequest())
    assert sum(split.fraction(p) for p in PHASES) == pytest.approx(1.0)
    first = budget.deadline("designer")
    assert first.at <= max(budget.end, time.monotonic())  # a spent share: the deadline is now
    assert first.at - now == pytest.approx(designer * share, abs=0.05)
    assert budget.deadline("update").at == pytest.approx(budget.end, abs=0.05)  # the last phase gets all that is left


def test_an_iteration_gets_an_equal_share_of_what_remains_and_a_stop_spends_the_budget() -> None:
    stop = StopRequest()
    budget = RunBudget(600.0, BudgetSplit(), stop)
    share = budget.iteration(3)
    assert share.share_s == pytest.approx(200.0, abs=0.5) and not budget.spent()
    assert budget.small_world().remaining() == pytest.approx(180.0, abs=0.5)
    stop.request("SIGTERM")
    assert budget.spent() and share.deadline("agent").expired()
    assert RunBudget(0.0, BudgetSplit(), StopRequest()).spent()


def test_an_agent_phase_past_its_deadline_records_time_limit_episodes_and_trains_on_none(
        setup: dict[str, Path]) -> None:
    config = load_config(SelfPlayConfig, None, [*overrides(setup, "deadline", iterations=1), *LONG_GAMES])
    run = SelfPlay(config)
    run._setup()
    try:
        now = time.monotonic()  # the agent phase gets about 0.5% of 100 s: a few turns, far from any game's end
        budget = IterationBudget(now, now + 100.0, BudgetSplit(designer=0.01, agent=0.005), run.stop)
        metrics = run.iteration(0, time.perf_counter(), [], budget=budget)
    finally:
        run._close()
    assert metrics.agent.time_limited > 0 and metrics.agent.episodes == metrics.agent.time_limited
    assert metrics.agent.censored_pairs == config.agent.seeds_per_env  # every seed censored
    assert metrics.regret.per_env == {} and metrics.train.agent is None  # not scored, not trained on
    assert 0 < metrics.budget.agent_s < 2.0 and not metrics.partial
    assert [m.iteration for m in read_metrics(Path(config.run_dir))] == [0]  # the metrics line is written
    assert latest_checkpoint(Path(config.run_dir)) is not None


def _cli(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "spade_core.cli.main", "selfplay", *args]


def test_sigterm_leaves_a_partial_metrics_line_and_a_checkpoint_that_resume_continues(
        setup: dict[str, Path]) -> None:
    sets = [item for o in [*overrides(setup, "sigterm", iterations=2), *LONG_GAMES] for item in ("--set", o)]
    run_dir = setup["root"] / "sigterm"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(_cli(sets), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not (run_dir / "tensorboard").exists():  # opened just before iteration 0
        time.sleep(0.1)
    time.sleep(1.0)  # inside iteration 0's agent phase (the game lasts many seconds)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 128 + signal.SIGTERM, stderr[-2000:]
    assert "Traceback" not in stderr and stderr.strip().splitlines()[-1].startswith("stopped by SIGTERM: iteration 0")
    [partial] = read_metrics(run_dir)
    assert partial.partial and partial.stopped_by == "SIGTERM" and partial.agent.time_limited > 0
    assert partial.train.agent is None  # no update began after the stop
    assert latest_checkpoint(run_dir).name == "iter-00000"
    short = ["agent.domains=[math]", "agent.max_env_turns=3", "agent.pool_ids=null"]
    resumed = subprocess.run(_cli(["--resume", str(run_dir), *(x for o in short for x in ("--set", o))]),
                             capture_output=True, text=True, timeout=600, env=env)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    metrics = read_metrics(run_dir)
    assert [m.iteration for m in metrics] == [0, 1] and metrics[0] == partial and not metrics[1].partial
