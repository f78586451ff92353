"""The OS layers hold even if the static policy had a hole: probes run trusted code inside a worker that tries
what escaped code would try (fork, network, writes outside scratch, signals, secrets)."""

from __future__ import annotations

import os
import socket
import sys

import pytest

from spade_core.sandbox import SandboxLimits, WorkerPool
from spade_core.sandbox.isolation import probe_isolation
from spade_core.sandbox.limits import SAFE_ENVIRON

FULLY_ISOLATED = sys.platform == "linux" and os.geteuid() == 0


@pytest.fixture(scope="module")
def probe_results(tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    os.chmod(outside, 0o777)  # even a world-writable directory outside scratch must stay unwritable
    os.environ["SPADE_TEST_SECRET_TOKEN"] = "hunter2"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    pool = WorkerPool(SandboxLimits(call_timeout_s=10, memory_mb=512), prestart=0, max_workers=2)
    try:
        yield probe_isolation(pool, tcp_port=listener.getsockname()[1], outside_path=str(outside / "pwned.txt"))
    finally:
        pool.shutdown()
        listener.close()
        os.environ.pop("SPADE_TEST_SECRET_TOKEN", None)


def test_environment_is_sanitised(probe_results) -> None:
    env = probe_results["probes"]["environ"]
    assert "SPADE_TEST_SECRET_TOKEN" not in env
    assert set(env) <= set(SAFE_ENVIRON) | {"HOME", "TMPDIR"}


def test_no_network(probe_results) -> None:
    probes = probe_results["probes"]
    for name in ("tcp_connect_localhost", "udp_send_internet", "unix_socket"):
        assert probes[name].startswith("blocked"), f"{name}: {probes[name]}"


def test_no_new_processes(probe_results) -> None:
    assert probe_results["probes"]["fork"].startswith("blocked")
    assert probe_results["probes"]["spawn_process"].startswith("blocked")


def test_writes_only_in_scratch(probe_results) -> None:
    probes = probe_results["probes"]
    assert probes["write_scratch"].startswith("ALLOWED")
    assert probes["write_outside_scratch"].startswith("blocked")
    assert probes["write_tmp"].startswith("blocked")


def test_cannot_touch_host_or_escalate(probe_results) -> None:
    probes = probe_results["probes"]
    for name in ("signal_host", "signal_launcher", "read_host_environ", "setuid_root", "read_etc_shadow",
                 "raise_memory_limit", "allocate_8gib", "raise_cpu_hard_limit", "inherited_worker_state"):
        assert probes[name].startswith("blocked"), f"{name}: {probes[name]}"


@pytest.mark.skipif(not FULLY_ISOLATED, reason="every layer is only available on Linux as root")
def test_every_layer_is_active(probe_results) -> None:
    layers = probe_results["layers"]
    assert set(layers) >= {"fds", "environ", "scratch", "rlimits", "uid", "netns", "no_new_privs", "landlock", "seccomp"}
    off = {k: v for k, v in layers.items() if not v.startswith("on")}
    assert not off, off
    assert probe_results["probes"]["uid"] != 0
