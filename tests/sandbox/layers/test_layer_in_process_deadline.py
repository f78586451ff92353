"""The deadline of trusted (bundled) environment code that runs in the host process: a call that never ends becomes
a recorded timeout, environment code cannot swallow it, and a call that finished leaves nothing pending."""

from __future__ import annotations

import threading
import time

import pytest
from fixture_envs.counter_env import ENV_SPEC as COUNTER_SPEC
from fixture_envs.counter_env import Counter

from spade_core.contract import EnvManifest, LocalInnerEnv, SpadeEnv
from spade_core.contract.deadline import TICK_S, call_with_deadline
from spade_core.errors import SandboxTimeout


class SpinsOnStep(Counter):
    """A trusted environment whose step never returns, and which catches every Exception on the way."""

    def step(self, action):
        while True:
            try:
                sum(range(1000))
            except Exception:  # the deadline is a BaseException: this cannot swallow it
                pass


def spade_env(cls: type, deadline_s: float) -> SpadeEnv:
    return SpadeEnv(EnvManifest.from_dict(COUNTER_SPEC), lambda k: LocalInnerEnv(cls, k, deadline_s=deadline_s))


def test_a_bundled_step_that_never_ends_is_a_recorded_timeout() -> None:
    env = spade_env(SpinsOnStep, deadline_s=0.3)
    env.reset(seed=0)
    started = time.monotonic()
    obs, reward, terminated, truncated, info = env.step("1")
    assert time.monotonic() - started < 0.3 + 1.0
    assert truncated and not terminated and not info["success"]
    assert isinstance(info["sandbox_error"], SandboxTimeout)
    assert "SpinsOnStep.step ran past its in-process deadline of 0.3 s" in str(info["sandbox_error"])


def test_calls_within_the_deadline_run_unchanged_and_leave_nothing_pending() -> None:
    env = spade_env(Counter, deadline_s=TICK_S)  # the shortest deadline the watchdog resolves
    env.reset(seed=3)
    assert env.step("1")[4]["action_is_valid"]
    time.sleep(4 * TICK_S)  # a deadline armed by a finished call never fires later in this thread
    assert sum(range(10_000)) == 49_995_000
    assert env.step("2")[4]["action_is_valid"]


def test_each_thread_has_its_own_deadline() -> None:
    results: dict[str, object] = {}

    def spin() -> None:
        try:
            call_with_deadline(lambda: [0 for _ in iter(int, 1)], seconds=0.2, what="spin")
        except SandboxTimeout as err:
            results["spin"] = err

    def quick() -> None:
        results["quick"] = call_with_deadline(lambda: sum(range(100)), seconds=5.0, what="quick")

    threads = [threading.Thread(target=spin), threading.Thread(target=quick)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert isinstance(results["spin"], SandboxTimeout) and results["quick"] == 4950


def test_without_the_deadline_the_same_step_would_hold_the_host() -> None:
    """The layer removed: the spinning step is only stopped by the deadline (here a 0.5 s outer one)."""
    inner = LocalInnerEnv(SpinsOnStep, {}, deadline_s=float("inf"))
    inner.reset(0, None)
    with pytest.raises(SandboxTimeout, match="outer"):
        call_with_deadline(lambda: inner.step("1"), seconds=0.5, what="outer")
