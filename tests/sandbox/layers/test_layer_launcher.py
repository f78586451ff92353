"""The launcher survives anything a compromised worker leaves in its scratch dir or on its channel, never raises
into the host, and ``pool.shutdown()`` always cleans up. Seccomp and Landlock are switched off here (the layers
above the launcher's own walks), so the worker can also make FIFOs and sockets."""

from __future__ import annotations

import os

import pytest
from layer_support import alive, pwn, wait_dead

from spade_core.errors import SandboxCrashed, SandboxError, SandboxMemoryError
from spade_core.sandbox import SandboxedInnerEnv
from spade_core.sandbox.launcher import MAX_LOG_BYTES
from spade_core.sandbox.scratch import measure, remove_tree

GUESS = open(os.path.join(os.path.dirname(__file__), "..", "envs", "guess_env.py")).read()

HOSTILE_TREE = r"""
import socket
os.symlink("loop", "loop")                 # a self-loop, a two-link cycle, a link to / and to the host's files
os.symlink("b", "a"); os.symlink("a", "b")
os.symlink("/", "root"); os.symlink("/proc/1", "proc1")
os.mkfifo("fifo")
s = socket.socket(socket.AF_UNIX); s.bind("sock")
os.mkdir("flat")
for i in range(300):
    open(f"flat/f{i}", "w").close()
for i in range(1500):                      # deeper than the recursion limit and PATH_MAX
    os.mkdir("d")
    os.chdir("d")
result = "planted"
"""


def _other_record(pool):
    handle = SandboxedInnerEnv(GUESS, env_id="bystander", knobs={"high": 50}, pool=pool)
    handle.reset(3, {})
    return handle


def test_hostile_scratch_tree_never_breaks_the_launcher(fresh_pool) -> None:
    """Without the filesystem view (with it the tree is in the worker's own tmpfs, which the launcher never walks)."""
    pool = fresh_pool(seccomp=False, landlock=False, filesystem_view=False)
    bystander = _other_record(pool)
    worker = pool.single_use_worker()
    try:  # the launcher's police walk meets the tree (during the call or just after): it kills the worker
        assert pwn(pool, worker, HOSTILE_TREE, timeout=30) == {"ok": "planted"}
    except SandboxMemoryError as exc:
        assert "deeper than" in str(exc) or "entries" in str(exc)
    assert wait_dead(worker.pid, 10)
    launcher = pool.launcher_pid
    assert alive(launcher)
    with pytest.raises(SandboxError):
        pwn(pool, worker, "result = 1")
    pool.release(worker)
    # the other record's instance still works, and new workers start
    obs, *_ = bystander.step(bystander.reference_action())
    assert isinstance(obs, str)
    assert pwn(pool, pool.single_use_worker(), "result = os.getuid()")["ok"] > 0
    assert pool.launcher_pid == launcher and alive(launcher)
    root = pool._scratch_root
    assert root and os.path.isdir(root)
    pool.shutdown()
    assert not os.path.exists(root) and not alive(launcher)


def test_the_walks_are_bounded_on_their_own(tmp_path) -> None:
    """``measure`` and ``remove_tree`` without a launcher around them: a 1,500-deep tree with links and FIFOs."""
    here = os.getcwd()
    try:
        os.chdir(tmp_path)
        for _ in range(1500):
            os.mkdir("d")
            os.chdir("d")
        os.mkfifo("fifo")
        os.symlink("fifo", "link")
        os.symlink("/", "root")
    finally:
        os.chdir(here)
    usage = measure(str(tmp_path), max_entries=100_000)
    assert usage.too_deep and not usage.too_many
    assert measure(str(tmp_path), max_entries=10).too_many
    assert remove_tree(str(tmp_path)) and not tmp_path.exists()
    assert os.path.isdir("/proc/1")  # the link to / was removed, not followed


def test_a_worker_dying_mid_frame_costs_only_its_call(compromised) -> None:
    pool = compromised
    for source in (
        "sock.sendall(frame(b'{\"ok\": [1, 2, 3')[:9]); os._exit(9)",       # half a frame, then death
        "sock.sendall(b'\\xff\\xff\\xff\\xf0'); os._exit(9)",               # a 4 GB header, then death
        "sock.sendall(frame(b'{\"ok\": 1}') + b'\\x00\\x00'); os._exit(9)",  # a frame and a stray half header
        "sock.sendall(frame(b'[1, 2,')); result = 1",                       # malformed JSON, alive
    ):
        worker = pool.single_use_worker()
        try:
            reply = pwn(pool, worker, source)
        except SandboxCrashed:
            reply = None
        except SandboxError as exc:
            reply = exc
        assert reply is None or reply == {"ok": 1} or isinstance(reply, SandboxError), (source, reply)
        pool.release(worker)
        assert alive(pool.launcher_pid)
    worker = pool.single_use_worker()
    assert pwn(pool, worker, "result = 'fine'") == {"ok": "fine"}
    pool.release(worker)


def test_shutdown_cleans_up_after_a_killed_launcher(fresh_pool) -> None:
    pool = fresh_pool()
    worker = pool.single_use_worker()
    pwn(pool, worker, "open('keep', 'w').write('x'); result = 1")
    root, launcher = pool._scratch_root, pool.launcher_pid
    os.kill(launcher, 9)
    assert wait_dead(worker.pid, 5)  # workers die with their launcher
    pool.shutdown()
    pool.shutdown()
    assert root and not os.path.exists(root)


def test_scratch_quota_counts_unlinked_files_without_the_view(fresh_pool) -> None:
    """Without the filesystem view the scratch is a host directory: the police counts files unlinked but open."""
    pool = fresh_pool(filesystem_view=False)
    worker = pool.single_use_worker()
    source = ("keep = []\nfor i in range(6):\n    f = open(f'u{i}', 'wb'); f.write(b'x' * (8 << 20)); f.flush()\n"
              "    os.unlink(f'u{i}'); keep.append(f)\nimport time; time.sleep(3)")
    with pytest.raises(SandboxMemoryError, match="scratch quota exceeded"):
        pwn(pool, worker, source)
    pool.release(worker)


LONG_LOG = """
import errno
written, outcome = 0, "no error"
try:
    for i in range(6):
        written += os.write(2, b'y' * (1 << 20))
except OSError as exc:
    outcome = errno.errorcode.get(exc.errno, str(exc.errno))
result = [outcome, written]
"""


@pytest.mark.parametrize("view", [True, False])
def test_the_log_stops_at_its_bound(fresh_pool, view) -> None:
    """The stderr log is a memfd sealed at MAX_LOG_BYTES: a longer write is refused, whatever the view."""
    pool = fresh_pool(filesystem_view=view)
    worker = pool.single_use_worker()
    try:
        outcome, written = pwn(pool, worker, LONG_LOG)["ok"]
    finally:
        pool.release(worker)
    assert outcome == "EPERM" and MAX_LOG_BYTES - (64 << 10) <= written <= MAX_LOG_BYTES, (outcome, written)
