"""The host's bookkeeping is contained: whatever a compromised worker sends, only that worker pays, the channel
never goes out of step, a frame costs at most its size in decoded text, and replays are charged."""

from __future__ import annotations

import os
import signal

import pytest
from layer_support import pwn, wait_dead

from spade_core.errors import EnvCodeError, SandboxCrashed, SandboxPolicyError, SandboxTimeout
from spade_core.sandbox import SandboxedInnerEnv
from spade_core.sandbox.pool import register_sub_handler

ASK_HOST = """
worker.send({"sub": {"op": OP}})
result = worker.recv()
"""


def _explode(pool, request, deadline):
    raise RecursionError("a host-side handler failed on the worker's request")


register_sub_handler("layer-test-explode", _explode)


def test_a_failing_request_handler_kills_only_its_worker(compromised) -> None:
    pool = compromised
    bystander = pool.single_use_worker()
    assert pwn(pool, bystander, "result = 'before'") == {"ok": "before"}
    worker = pool.single_use_worker()
    with pytest.raises(SandboxCrashed, match="could not serve the worker's request"):
        pwn(pool, worker, ASK_HOST.replace("OP", repr("layer-test-explode")))
    assert wait_dead(worker.pid, 5)
    pool.release(worker)
    # the channel of every other worker is in step: each answer is to its own request
    for text in ("a", "b", "c"):
        assert pwn(pool, bystander, f"result = {text!r}") == {"ok": text}
    pool.release(bystander)


def test_an_unknown_request_and_a_planner_blowup_are_protocol_errors(compromised) -> None:
    pool = compromised
    deep_test = "assert " + "not " * 900 + "f()"
    for source in (ASK_HOST.replace("OP", repr("no-such-op")),
                   'worker.send({"sub": {"op": "code", "code": "def f():\\n    return 1", "tests": [DEEP], '
                   '"timeout": 1.0, "budget": 2.0}})\nresult = worker.recv()'.replace("DEEP", repr(deep_test))):
        worker = pool.single_use_worker()
        try:
            reply = pwn(pool, worker, source)
        except SandboxCrashed:
            reply = None
        # either a plain answer (the planner coped) or this worker alone was replaced
        assert reply is None or isinstance(reply.get("ok"), dict), reply
        pool.release(worker)
    worker = pool.single_use_worker()
    assert pwn(pool, worker, "result = 7") == {"ok": 7}
    pool.release(worker)


def test_frames_are_bounded_by_their_decoded_size(compromised) -> None:
    pool = compromised
    limit = pool.limits.max_reply_bytes
    worker = pool.single_use_worker()
    source = (f"body = b'{{\"ok\": \"' + b'a' * ({limit // 4} + 4096) + '\\U0001F600'.encode() + b'\"}}'\n"
              "sock.sendall(frame(body))\nimport time; time.sleep(5)")
    with pytest.raises(SandboxPolicyError, match="decode to about"):
        pwn(pool, worker, source)
    pool.release(worker)
    # the same bytes in ASCII are fine
    worker = pool.single_use_worker()
    ok = f"sock.sendall(frame(b'{{\"ok\": \"' + b'a' * ({limit // 4} + 4096) + b'\"}}'))\nresult = 1"
    reply = pwn(pool, worker, ok)
    assert reply == {"ok": "a" * (limit // 4 + 4096)}
    pool.release(worker)


HOSTILE_STR = '''
ENV_SPEC = {"id": "spade/HostileStr-v0", "domain": "games", "description": "d", "action_format": "a",
            "max_turns": 5, "players": 1, "tags": []}

class Loud(Exception):
    def __str__(self):
        raise Loud()

class HostileStr:
    def reset(self, rng, options):
        return "start", {}

    def step(self, action):
        if action == "boom":
            raise Loud()
        return "ok", 0.0, False, False, {}

    def privileged_hint(self):
        return "none"

    def reference_action(self):
        return "a"
'''


def test_an_exception_whose_str_raises_does_not_kill_the_worker(pool) -> None:
    handle = SandboxedInnerEnv(HOSTILE_STR, env_id="spade/HostileStr-v0", pool=pool)
    try:
        handle.reset(0, {})
        pid = handle.worker_pid
        with pytest.raises(EnvCodeError, match="Loud"):
            handle.step("boom")
        assert handle.worker_pid == pid and pool.replays == pool.stats()["replays"]
        assert handle.step("a")[0] == "ok"
    finally:
        handle.close()


SLOW_STEPS = '''
ENV_SPEC = {"id": "spade/SlowSteps-v0", "domain": "games", "description": "d", "action_format": "a",
            "max_turns": 50, "players": 1, "tags": []}

class SlowSteps:
    def reset(self, rng, options):
        self.n = 0
        return "start", {}

    def step(self, action):
        total = 0
        for i in range(150000):
            total += i
        self.n += 1
        return f"step {self.n}", 0.0, False, False, {}

    def privileged_hint(self):
        return "none"

    def reference_action(self):
        return "a"
'''


def test_replays_are_charged_to_the_episode(pool) -> None:
    first = SandboxedInnerEnv(SLOW_STEPS, env_id="spade/SlowSteps-v0", pool=pool)
    second = SandboxedInnerEnv(SLOW_STEPS, env_id="spade/SlowSteps-v0", pool=pool)
    try:
        first.reset(0, {})
        second.reset(0, {})
        assert first.worker_pid == second.worker_pid
        for _ in range(6):
            second.step("a")
        inst = second._inst
        spent = inst.episode_time
        os.kill(first.worker_pid, signal.SIGKILL)
        with pytest.raises(SandboxCrashed):
            first.step("a")
        replays = pool.replays
        try:
            assert second.step("a")[0] == "step 7"  # replayed on a fresh worker
        except SandboxTimeout:
            return  # the replay took the episode past its budget: charged, and reported
        assert pool.replays == replays + 1
        # the replayed reset and six steps were charged again, on top of the seventh step
        assert inst.episode_time >= 1.4 * spent
    finally:
        first.close()
        second.close()
