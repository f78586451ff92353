"""Time budgets on a busy machine: wall time is charged at the CPU share the load leaves, within the floor."""

from __future__ import annotations

import time

import pytest

from spade_core.sandbox import cpu_share as share_module
from spade_core.sandbox.budgets import TimeBudget
from spade_core.sandbox.cpu_share import cpu_share, usable_cpus
from spade_core.validation import ValidationConfig
from spade_core.validation.pipeline import candidate_budget
from spade_core.validation.stage_clock import StageClock


@pytest.fixture
def load(monkeypatch: pytest.MonkeyPatch):
    """Set the machine's 1-minute load on 2 usable CPUs (the cached reading forgotten)."""
    monkeypatch.setattr(share_module.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(share_module, "CGROUP_CPU_MAX", "/nonexistent/cpu.max")

    def set_load(value: float) -> None:
        monkeypatch.setattr(share_module.os, "getloadavg", lambda: (value, value, value))
        monkeypatch.setattr(share_module, "_seen", (-1e9, 1.0))

    return set_load


def test_an_idle_machine_charges_wall_time(load) -> None:
    load(1.5)
    assert cpu_share(0.25) == 1.0


def test_a_busy_machine_gives_cpus_over_load_within_the_floor(load) -> None:
    load(8.0)
    assert cpu_share(0.1) == pytest.approx(0.25)
    load(8.0)
    assert cpu_share(0.5) == 0.5
    assert cpu_share(1.0) == 1.0  # a floor of 1 is wall time, whatever the load


def test_a_cgroup_quota_caps_the_cpus(load, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    quota = tmp_path / "cpu.max"
    quota.write_text("150000 100000\n")
    monkeypatch.setattr(share_module, "CGROUP_CPU_MAX", str(quota))
    assert usable_cpus() == pytest.approx(1.5)
    quota.write_text("max 100000\n")
    assert usable_cpus() == 2.0
    quota.write_text("garbage")
    assert usable_cpus() == 2.0


def test_the_candidate_budget_charges_a_calls_seconds_at_the_share(load) -> None:
    load(8.0)
    budget = candidate_budget(ValidationConfig(min_cpu_share=0.25))
    with budget.charged(time.monotonic() - 2.0):
        pass
    assert budget.spent_s == pytest.approx(0.5, abs=0.05)
    _, end = budget.cut(time.monotonic() + 1e6)
    assert end is not None and end - time.monotonic() == pytest.approx((60.0 - budget.spent_s) * 4, rel=0.01)
    wall = TimeBudget(60.0)  # a plain budget is wall time
    with wall.charged(time.monotonic() - 2.0):
        pass
    assert wall.spent_s == pytest.approx(2.0, abs=0.05)


def test_a_stage_deadline_is_stretched_by_the_share_and_no_more_than_the_floor_allows(load) -> None:
    load(5.0)
    assert StageClock.start("swap", 30.0, 0.25).deadline.remaining() == pytest.approx(75.0, rel=0.01)
    load(100.0)
    assert StageClock.start("swap", 30.0, 0.25).deadline.remaining() == pytest.approx(120.0, rel=0.01)
    assert StageClock.start("swap", 30.0).deadline.remaining() == pytest.approx(30.0, rel=0.01)


@pytest.mark.parametrize("share", [0.0, -1.0, 1.5])
def test_a_floor_outside_zero_to_one_is_refused(share: float) -> None:
    with pytest.raises(ValueError, match="min_cpu_share"):
        ValidationConfig(min_cpu_share=share)
    with pytest.raises(ValueError, match="floor"):
        TimeBudget(10.0, floor=share)
