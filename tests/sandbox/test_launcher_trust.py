"""The launcher never acts as root on what a worker controls, and the host bounds what it accepts from a worker.

Escaped code is simulated by trusted code inside a worker (``probes.simulate_escape``): it plants symlinks where a
log used to be, fills its scratch dir, or the test plays a hostile worker on the channel itself.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.errors import SandboxCrashed, SandboxError, SandboxMemoryError, SandboxPolicyError
from spade_core.sandbox import SandboxedInnerEnv, SandboxLimits, WorkerPool, step_many, wire
from spade_core.sandbox.budgets import split_batch_time
from spade_core.sandbox.channel import ChannelError, Worker


def _pool(**overrides):
    os.environ["SPADE_TEST_HOST_SECRET"] = "hunter2-host-secret"
    pool = WorkerPool(SandboxLimits(call_timeout_s=20, memory_mb=512, max_scratch_mb=24, **overrides), prestart=0,
                      max_workers=3)
    try:
        yield pool
    finally:
        pool.shutdown()
        os.environ.pop("SPADE_TEST_HOST_SECRET", None)


@pytest.fixture()
def small_pool():
    yield from _pool()


@pytest.fixture()
def host_scratch_pool():
    """Without the filesystem view the scratch is a host directory and the launcher polices its quota (with the
    view it is a tmpfs the kernel bounds: tests/sandbox/layers/test_layer_scratch_tmpfs.py)."""
    yield from _pool(filesystem_view=False)


@pytest.fixture()
def links_pool():
    """Seccomp off: its allow-list has no symlink, and what is tested here is what the launcher does with links."""
    yield from _pool(seccomp=False)


def _simulate(pool: WorkerPool, action: str) -> tuple[SandboxError | None, float]:
    worker = pool.single_use_worker()
    started = time.monotonic()
    try:
        pool.request(worker, {"op": "probe", "simulate": action, "host_pid": os.getpid()}, 20.0, "probe")
    except SandboxError as exc:
        return exc, time.monotonic() - started
    finally:
        pool.release(worker)
    return None, time.monotonic() - started


def test_planted_log_symlinks_never_reach_the_host(links_pool) -> None:
    rss_before = _rss_kb(links_pool.launcher_pid or 0)
    error, _ = _simulate(links_pool, "plant_log_symlinks")
    assert isinstance(error, SandboxCrashed)
    text = str(error)
    assert "SPADE-MARKER" in text  # the worker's own log tail is reported
    assert "hunter2-host-secret" not in text and "root:" not in text and "SPADE_TEST_HOST_SECRET" not in text
    # the launcher did not read /dev/zero: its memory stayed where it was
    assert _rss_kb(links_pool.launcher_pid or 0) < rss_before + 64 * 1024
    assert links_pool.stats()["workers"] >= 0  # the pool still answers


def test_scratch_quota_kills_a_worker_that_fills_its_disk(host_scratch_pool) -> None:
    error, seconds = _simulate(host_scratch_pool, "fill_scratch")
    assert isinstance(error, SandboxMemoryError), error
    assert "scratch quota exceeded" in str(error) and "max_scratch_mb" in str(error)
    assert seconds < 15


def test_scratch_quota_kills_a_worker_that_wrote_past_it_and_went_idle(host_scratch_pool) -> None:
    """The police walks only workers that ran since their last walk; a burst then silence must still be seen."""
    worker = host_scratch_pool.single_use_worker()
    try:
        with pytest.raises(SandboxMemoryError, match="scratch quota exceeded"):  # during the burst, or after it
            host_scratch_pool.request(worker, {"op": "probe", "simulate": "burst_scratch"}, 20.0, "probe")
            time.sleep(10 * host_scratch_pool.limits.scratch_check_s)  # idle: blocked waiting for the next message
            host_scratch_pool.request(worker, {"op": "ping"}, 20.0, "ping")
    finally:
        host_scratch_pool.release(worker)


def test_an_idle_pool_costs_its_launcher_almost_no_cpu(small_pool) -> None:
    """Idle workers are not walked: over 3 s the launcher runs under 1 % of a core (the fixed 0.1 s walk of every
    worker cost ~3 % with two workers on this machine)."""
    small_pool.prestart = 3
    small_pool.start()
    pid = small_pool.launcher_pid or 0
    time.sleep(0.5)  # the first tick walks each new worker once
    before, started = _run_ns(pid), time.monotonic()
    time.sleep(3.0)
    share = (_run_ns(pid) - before) / 1e9 / (time.monotonic() - started)
    assert len(small_pool.worker_pids()) == 3
    assert share < 0.01, f"the idle launcher used {share:.2%} of a core"


def _run_ns(pid: int) -> int:
    with open(f"/proc/{pid}/schedstat") as fh:
        return int(fh.read().split()[0])


def _fake_worker_pair() -> tuple[Worker, socket.socket, subprocess.Popen[bytes]]:
    host_end, worker_end = socket.socketpair()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    return Worker(host_end, sleeper.pid, 1), worker_end, sleeper


def test_crafted_reply_is_refused_before_it_is_parsed() -> None:
    limits = SandboxLimits()
    payload = b"[" + b"[]," * ((limits.max_reply_bytes - 16) // 3) + b"[]]"
    worker, evil_end, sleeper = _fake_worker_pair()
    try:
        evil_end.setblocking(True)
        thread = threading.Thread(target=evil_end.sendall, args=(wire.frame(payload),), daemon=True)
        thread.start()
        tracemalloc.start()
        with pytest.raises(ChannelError) as info:
            worker.recv(time.monotonic() + 20, limits.max_reply_bytes + 1024, limits.max_reply_elements)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        thread.join(5)
        assert info.value.kind == "oversize" and "JSON values" in info.value.detail
        # the frame itself is held once or twice, never parsed into millions of objects (~25x)
        assert peak < 3 * len(payload), peak
    finally:
        worker.close()
        evil_end.close()
        sleeper.kill()
        sleeper.wait()


def test_a_reply_within_the_value_budget_still_parses() -> None:
    worker, evil_end, sleeper = _fake_worker_pair()
    try:
        evil_end.sendall(wire.frame(wire.dumps({"ok": list(range(1000))})))
        assert worker.recv(time.monotonic() + 5, 1 << 20, 2000) == {"ok": list(range(1000))}
    finally:
        worker.close()
        evil_end.close()
        sleeper.kill()
        sleeper.wait()


@given(st.floats(0.0, 100.0), st.lists(st.one_of(st.floats(allow_nan=True), st.text(max_size=3), st.none()),
                                        min_size=1, max_size=64))
def test_batch_time_is_the_host_measured_total_whatever_the_worker_reports(elapsed, reported) -> None:
    items = [["ok", None, r] for r in reported]
    charged = split_batch_time(elapsed, items)
    assert len(charged) == len(items)
    assert all(c >= 0 for c in charged)
    assert sum(charged) == pytest.approx(elapsed, rel=1e-9, abs=1e-9)


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


BIG_OBS = '''
ENV_SPEC = {"name": "Big", "domain": "games", "description": "large observations", "reward_range": [0, 1],
            "max_turns": 5}


class Big:
    def reset(self, rng, options):
        return "r", {}

    def step(self, action):
        return "x" * 900000, 0.0, False, False, {}

    def privileged_hint(self):
        return "none"

    def reference_action(self):
        return "a"
'''


def test_one_call_many_accepts_a_bounded_total_over_all_workers() -> None:
    limits = SandboxLimits(call_timeout_s=10, memory_mb=512, max_reply_bytes=1024 * 1024)
    with WorkerPool(limits, prestart=0, max_workers=8, instances_per_worker=1) as pool:
        handles = [SandboxedInnerEnv(BIG_OBS, env_id=f"big{i}", pool=pool) for i in range(6)]
        for handle in handles:
            handle.reset(0, {})
        assert len({h.worker_pid for h in handles}) == 6
        results = step_many(handles, ["a"] * 6)
        # 6 x 0.9 MB is more than 4 replies' worth: the frames past it were refused unparsed, and the calls redone
        # one by one (with their replays) share what is left of the batch's budget instead of getting a new one each
        delivered = [r for r in results if isinstance(r, tuple) and r[0] == "x" * 900000]
        refused = [r for r in results if isinstance(r, SandboxPolicyError)]
        assert len(delivered) == 4 and len(refused) == 2, results
        assert pool.stats()["worker_failures"] >= 1
        # the next batch has its own budget again
        handles[0].reset(0, {})
        assert step_many(handles[:1], ["a"])[0][0] == "x" * 900000
