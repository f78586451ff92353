"""The host <-> worker channel carries JSON only: a pickle payload in a worker reply never executes in the host."""

from __future__ import annotations

import math
import pickle
import socket
import subprocess
import sys
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.errors import SandboxCrashed, SandboxPolicyError
from spade_core.sandbox import SandboxLimits, WorkerPool, wire
from spade_core.sandbox.channel import ChannelError, Worker

EXECUTED: list[str] = []


class Malicious:
    """Unpickling this runs ``EXECUTED.append('pwned')`` (a stand-in for ``os.system``)."""

    def __reduce__(self):
        return (EXECUTED.append, ("pwned",))


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.tuples(children, children)
    | st.dictionaries(st.text(max_size=5), children, max_size=4)
    | st.dictionaries(st.integers(), children, max_size=3),
    max_leaves=20,
)


@given(values)
def test_values_round_trip_with_their_shape(value) -> None:
    decoded = wire.loads(wire.dumps(wire.to_wire(value)))
    assert decoded == value
    assert type(decoded) is type(value)


def test_special_values() -> None:
    decoded = wire.loads(wire.dumps(wire.to_wire({"$x": 1, "s": {1, 2}, "nan": math.inf})))
    assert decoded["$x"] == 1 and type(decoded["s"]).__name__ == "set" and decoded["nan"] == math.inf


def _fake_worker_pair() -> tuple[Worker, socket.socket, subprocess.Popen[bytes]]:
    host_end, worker_end = socket.socketpair()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # a harmless pid to kill
    return Worker(host_end, sleeper.pid, 1), worker_end, sleeper


def test_pickle_reply_is_rejected_not_executed() -> None:
    worker, evil_end, sleeper = _fake_worker_pair()
    try:
        payload = pickle.dumps({"ok": Malicious()})
        evil_end.sendall(wire.frame(payload))
        with pytest.raises(ChannelError) as info:
            worker.recv(time.monotonic() + 5, 1 << 20, 10_000)
        assert info.value.kind == "protocol"
        assert EXECUTED == []
    finally:
        worker.kill("test")
        sleeper.wait(timeout=10)
        evil_end.close()


def test_pool_turns_a_pickle_reply_into_a_typed_error_and_kills_the_worker() -> None:
    pool = WorkerPool(SandboxLimits(call_timeout_s=5), prestart=0, max_workers=2)
    worker, evil_end, sleeper = _fake_worker_pair()
    worker.ready = True
    pool._workers[worker.serial] = worker
    try:
        evil_end.sendall(wire.frame(pickle.dumps(Malicious())))
        with pytest.raises(SandboxCrashed, match="protocol"):
            pool.request(worker, {"op": "call"}, 5.0, "step")
        assert EXECUTED == [] and worker.dead
        assert sleeper.wait(timeout=10) != 0  # the misbehaving "worker" was SIGKILLed
    finally:
        evil_end.close()
        pool.shutdown()


def test_oversized_and_deeply_nested_frames_are_refused() -> None:
    pool = WorkerPool(SandboxLimits(call_timeout_s=5, max_reply_bytes=1 << 20), prestart=0, max_workers=2)
    try:
        for frame, error in ((wire.HEADER.pack(1 << 30), SandboxPolicyError),
                             (wire.frame(b"[" * 100_000 + b"]" * 100_000), SandboxCrashed)):
            worker, evil_end, sleeper = _fake_worker_pair()
            worker.ready = True
            pool._workers[worker.serial] = worker
            evil_end.sendall(frame)
            with pytest.raises(error):
                pool.request(worker, {"op": "call"}, 5.0, "step")
            sleeper.wait(timeout=10)
            evil_end.close()
    finally:
        pool.shutdown()
