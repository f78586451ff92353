"""Co-hosted instances share no mutable state (replay stays deterministic), and time is bounded per candidate."""

from __future__ import annotations

import time

import pytest

from spade_core.errors import SandboxError, SandboxTimeout
from spade_core.sandbox import SandboxedInnerEnv, TimeBudget, step_many
from spade_core.validation.config import ValidationConfig
from spade_core.validation.pipeline import validate_source

LEAKY = '''
from fractions import Fraction
from spade_tools.calculator import Calculator

ENV_SPEC = {"name": "Leaky", "domain": "games", "description": "tries to share state", "reward_range": [0, 1],
            "max_turns": 50}

COUNTER = [0]


class Leaky:
    def reset(self, rng, options):
        COUNTER[0] = COUNTER[0] + 1
        return f"resets seen by this instance: {COUNTER[0]}", {}

    def step(self, action):
        if action == "register":
            Fraction.register(Leaky)
        elif action == "table":
            Calculator.TOOL_DEFS[0].parameters["leak"] = 1
        elif action == "heap":
            import heapq
            heapq.heappush(Calculator.TOOL_DEFS[0].parameters.get("required", []), 0)
        leaked = "leak" in Calculator.TOOL_DEFS[0].parameters
        return f"leaked={leaked} counter={COUNTER[0]}", 0.0, False, False, {}

    def privileged_hint(self):
        return "none"

    def reference_action(self):
        return "noop"
'''

SLOW = '''
ENV_SPEC = {"name": "Slow", "domain": "games", "description": "every call is just under the timeout",
            "reward_range": [0, 1], "max_turns": 100}


def spin(n):
    total = 0
    for i in range(n):
        total = total + i
    return total


class Slow:
    def __init__(self, work=3000000):
        self.work = work

    def reset(self, rng, options):
        spin(self.work)
        return "slow", {}

    def step(self, action):
        spin(self.work)
        return "slow", 0.0, False, False, {}

    def privileged_hint(self):
        return "none"

    def reference_action(self):
        return "a"
'''


def test_co_hosted_instances_share_no_mutable_state(pool) -> None:
    a = SandboxedInnerEnv(LEAKY, env_id="leaky/a", pool=pool)
    b = SandboxedInnerEnv(LEAKY, env_id="leaky/b", pool=pool)
    try:
        assert a.worker_pid == b.worker_pid  # same code record, same worker: the hard case
        # module globals are per episode (each reset re-runs the module body), so per instance as well
        assert a.reset(0, {})[0].endswith(": 1") and a.reset(1, {})[0].endswith(": 1")
        assert b.reset(0, {})[0].endswith(": 1")
        for action in ("register", "table", "heap"):
            with pytest.raises(SandboxError) as info:
                a.step(action)
            assert info.value.cause == "policy", info.value
            a.reset(0, {})
        assert b.step("noop")[0] == "leaked=False counter=1"
    finally:
        a.close()
        b.close()



def test_only_variants_of_one_family_share_a_worker(pool) -> None:
    """Different code gets workers of its own; variants of one record the host made (one ``family``) share a worker,
    each still running its own code; another family's variants never join them."""
    variant = LEAKY.replace("resets seen by this instance", "resets seen by this variant")
    own = [SandboxedInnerEnv(code, env_id="leaky/own", pool=pool) for code in (LEAKY, variant)]
    kin = [SandboxedInnerEnv(code, env_id="leaky/kin", pool=pool, family="leaky") for code in (LEAKY, variant)]
    stranger = SandboxedInnerEnv(variant, env_id="leaky/other", pool=pool, family="another")
    try:
        assert kin[0].worker_pid == kin[1].worker_pid is not None
        pids = [own[0].worker_pid, own[1].worker_pid, kin[0].worker_pid, stranger.worker_pid]
        assert len(set(pids)) == 4, pids
        assert kin[0].reset(0, {})[0] == "resets seen by this instance: 1"
        assert kin[1].reset(0, {})[0] == "resets seen by this variant: 1"
    finally:
        for env in [*own, *kin, stranger]:
            env.close()

def test_time_budget_bounds_a_slow_drip_batch(pool) -> None:
    budget = TimeBudget(0.6, what="this test", knob="test budget")
    handles = [SandboxedInnerEnv(SLOW, env_id="slow", knobs={"work": 150000}, pool=pool, budget=budget)
               for _ in range(4)]
    try:
        started = time.monotonic()
        for handle in handles:
            handle.reset(0, {})
        errors = []
        for _ in range(200):
            results = step_many(handles, ["a"] * len(handles))
            errors = [r for r in results if isinstance(r, SandboxTimeout)]
            if errors:
                break
        assert errors and "budget" in str(errors[0])
        assert time.monotonic() - started < 0.6 + 2 * 1.5 + 1.0
    finally:
        for handle in handles:
            handle.close()


def test_a_candidate_gets_one_total_time_budget_in_validation() -> None:
    config = ValidationConfig(candidate_budget_s=2.0)
    started = time.monotonic()
    report = validate_source(SLOW.replace("work=3000000", "work=400000"), config=config)
    seconds = time.monotonic() - started
    assert report.status != "accepted"
    assert "candidate_budget_s" in report.to_dict()["message"], report.to_dict()["message"]
    assert seconds < 2.0 + 3 * 5.0 + 10.0  # the budget, a call's own timeout (SandboxLimits), slack
