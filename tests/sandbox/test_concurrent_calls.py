"""Calls on different workers run at once; calls on one worker stay in order; a worker with a call in flight is
never evicted; a worker lost mid-call costs nothing on another.

A "slow step" here is a worker the test stops with SIGSTOP while its call is in flight (no CPU, no clock in the
environment): the call is held for exactly as long as the test wants, so every assertion is about order, not time.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from spade_core.errors import SandboxCrashed, SpadeError
from spade_core.sandbox import SandboxedInnerEnv, SandboxLimits, WorkerPool

LIMITS = SandboxLimits(call_timeout_s=30.0, load_timeout_s=30.0, episode_budget_s=120.0, memory_mb=512)
"""Generous: a stopped worker is never killed by its deadline while the test holds it."""
WAIT_S = 60.0
"""How long a test waits for what must happen (only a broken pool ever comes near it)."""

COUNTER = '''
ENV_SPEC = {"name": "Counter", "domain": "games", "description": "Counts its steps.", "reward_range": [0, 1],
            "max_turns": 100000}


class Counter:
    def __init__(self):
        self.n = 0

    def reset(self, rng, options):
        self.n = 0
        return "0", {}

    def step(self, action):
        self.n += 1
        return f"{action}:{self.n}", 0.0, False, False, {}

    def privileged_hint(self):
        return "none"

    def reference_action(self):
        return "a"
'''


def counter(name: str) -> str:
    """The counter environment under its own class name: a code of its own, so a worker of its own."""
    return COUNTER.replace("Counter", name)


@pytest.fixture
def pool() -> Iterator[WorkerPool]:
    pool = WorkerPool(LIMITS, prestart=0, max_workers=4, max_idle_group_workers=0)
    try:
        yield pool
    finally:
        pool.shutdown()


class Background:
    """One call run in a thread; its result (or error) once it returns."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self.result: Any = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(call,), daemon=True)
        self.thread.start()

    def _run(self, call: Callable[[], Any]) -> None:
        try:
            self.result = call()
        except BaseException as exc:  # reported to the test
            self.error = exc

    def done(self) -> bool:
        return not self.thread.is_alive()

    def join(self) -> Any:
        self.thread.join(WAIT_S)
        assert not self.thread.is_alive(), "the call did not return"
        if self.error is not None:
            raise self.error
        return self.result


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.01)


@contextmanager
def stopped(env: SandboxedInnerEnv) -> Iterator[int]:
    """The worker hosting ``env`` stopped (SIGSTOP) for the block, resumed after it."""
    pid = env.worker_pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        yield pid
    finally:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass


def in_flight(env: SandboxedInnerEnv) -> bool:
    worker = env._inst.worker
    return worker is not None and worker.in_flight > 0


def test_a_call_on_another_worker_returns_while_a_slow_step_is_in_flight(pool: WorkerPool) -> None:
    slow, quick = SandboxedInnerEnv(counter("Slow"), pool=pool), SandboxedInnerEnv(counter("Quick"), pool=pool)
    slow.reset(0, {}), quick.reset(0, {})
    assert slow.worker_pid != quick.worker_pid
    with stopped(slow):
        held = Background(lambda: slow.step("s"))
        wait_until(lambda: in_flight(slow))
        other = Background(lambda: [quick.step(f"q{i}")[0] for i in range(3)])
        assert other.join() == ["q0:1", "q1:2", "q2:3"]
        assert not held.done()  # the slow step is still in flight: the quick calls did not wait for it
    assert held.join()[0] == "s:1"
    assert pool.stats()["worker_failures"] == 0 and pool.replays == 0


def test_a_batch_on_another_worker_returns_while_a_slow_step_is_in_flight(pool: WorkerPool) -> None:
    from spade_core.sandbox import step_many

    slow = SandboxedInnerEnv(counter("Slow"), pool=pool)
    quick = [SandboxedInnerEnv(counter("Quick"), pool=pool) for _ in range(3)]
    for env in (slow, *quick):
        env.reset(0, {})
    with stopped(slow):
        held = Background(lambda: slow.step("s"))
        wait_until(lambda: in_flight(slow))
        results = Background(lambda: step_many(quick, ["a", "b", "c"])).join()
        assert [r[0] for r in results] == ["a:1", "b:1", "c:1"] and not held.done()
    assert held.join()[0] == "s:1"


def test_calls_on_one_worker_from_many_threads_stay_in_order(pool: WorkerPool) -> None:
    """Threads stepping instances that share a worker, two of them the same instance: every step's count is
    right and each instance's counts are each seen once (its calls never interleave)."""
    source = counter("Shared")
    envs = [SandboxedInnerEnv(source, pool=pool) for _ in range(3)]
    for env in envs:
        env.reset(0, {})
    assert len({env.worker_pid for env in envs}) == 1
    steps = 40
    plan = [envs[0], envs[0], envs[1], envs[2]]  # two threads on envs[0]
    runs = [Background(lambda env=env, t=t: [env.step(f"t{t}")[0] for _ in range(steps)])
            for t, env in enumerate(plan)]
    seen = [run.join() for run in runs]
    for t in (2, 3):
        assert seen[t] == [f"t{t}:{n}" for n in range(1, steps + 1)]
    counts = sorted(int(text.split(":")[1]) for text in seen[0] + seen[1])
    assert counts == list(range(1, 2 * steps + 1))
    for t in (0, 1):  # each thread saw its own steps in increasing order
        mine = [int(text.split(":")[1]) for text in seen[t]]
        assert mine == sorted(mine) and all(text.startswith(f"t{t}:") for text in seen[t])
    assert pool.replays == 0 and pool.stats()["worker_failures"] == 0


def test_eviction_never_picks_a_worker_with_a_call_in_flight() -> None:
    """Two workers: one has a call in flight, the other is between calls and older. A third code evicts the one
    between calls; with both in flight, it waits until one call returns and then evicts that worker."""
    pool = WorkerPool(LIMITS, prestart=0, max_workers=2, max_idle_group_workers=0)
    try:
        a, b = SandboxedInnerEnv(counter("A"), pool=pool), SandboxedInnerEnv(counter("B"), pool=pool)
        b.reset(0, {})
        a.reset(0, {})  # b is now the least recently used
        a_pid = a.worker_pid
        with stopped(a):
            held = Background(lambda: a.step("x"))
            wait_until(lambda: in_flight(a))
            c = SandboxedInnerEnv(counter("C"), pool=pool)  # evicts b's worker, never a's
            assert pool.evictions == 1 and b.worker_pid is None and a.worker_pid == a_pid
            assert c.reset(0, {})[0] == "0"
        assert held.join()[0] == "x:1" and a.worker_pid == a_pid

        a.step("y")  # b's worker is c's now; a's and c's are the two workers
        with stopped(a), stopped(c):
            on_a, on_c = Background(lambda: a.step("z")), Background(lambda: c.step("w"))
            wait_until(lambda: in_flight(a) and in_flight(c))
            made = Background(lambda: SandboxedInnerEnv(counter("D"), pool=pool))
            time.sleep(0.5)
            assert not made.done() and pool.evictions == 1  # waits: both workers have a call in flight
            os.kill(c.worker_pid, signal.SIGCONT)
            assert on_c.join()[0] == "w:1"
            d = made.join()  # c's worker, between calls now, made room
            assert pool.evictions == 2 and c.worker_pid is None and not on_a.done()
        assert on_a.join()[0] == "z:3" and d.reset(0, {})[0] == "0"
        assert c.step("again")[0] == "again:2" and pool.replays >= 1  # c's episode goes on by replay
        assert pool.stats()["worker_failures"] == 0
    finally:
        pool.shutdown()


def test_a_worker_killed_mid_step_loses_nothing_on_another(pool: WorkerPool) -> None:
    doomed, other = SandboxedInnerEnv(counter("Doomed"), pool=pool), SandboxedInnerEnv(counter("Other"), pool=pool)
    doomed.reset(0, {}), other.reset(0, {})
    other_pid = other.worker_pid
    with stopped(doomed) as pid:
        held = Background(lambda: doomed.step("x"))
        wait_until(lambda: in_flight(doomed))
        stepping = Background(lambda: [other.step(str(i))[0] for i in range(30)])
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(SpadeError) as error:
            held.join()
        assert isinstance(error.value, SandboxCrashed)
        assert stepping.join() == [f"{i}:{i + 1}" for i in range(30)]
    assert other.worker_pid == other_pid and pool.replays == 0 and pool.stats()["worker_failures"] == 1
    assert doomed.reset(0, {})[0] == "0" and doomed.step("y")[0] == "y:1"  # a fresh instance on a fresh worker
