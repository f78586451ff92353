"""Each OS layer holds with the layers above it removed, attacked from a compromised worker: IPC and shared memory,
CPU limits and CPU between calls, fork, signals and /proc."""

from __future__ import annotations

import os
import time

import pytest
from layer_support import alive, pwn, wait_dead

from spade_core.errors import SandboxCrashed, SandboxError
from spade_core.sandbox.limits import cpu_armed_from_outside
from spade_core.sandbox.oslayers import CAP_SYS_RESOURCE, has_capability

LIBC = "import ctypes, errno\nlibc = ctypes.CDLL(None, use_errno=True)\n"

SYSV_AND_MQ = LIBC + """
out = {}
for name, call in {
    "shmget": lambda: libc.shmget(0x5ADE, 1 << 20, 0o1666),
    "msgget": lambda: libc.msgget(0x5ADE, 0o1666),
    "semget": lambda: libc.semget(0x5ADE, 1, 0o1666),
    "mq_open": lambda: libc.mq_open(b"/spade-mq", os.O_CREAT | os.O_RDWR, 0o666, None),
}.items():
    rc = call()
    out[name] = "ALLOWED" if rc >= 0 else errno.errorcode[ctypes.get_errno()]
try:
    os.open("/dev/shm/spade-posix-shm", os.O_CREAT | os.O_RDWR, 0o666)
    out["posix_shm"] = "ALLOWED"
except OSError as exc:
    out["posix_shm"] = errno.errorcode[exc.errno]
result = out
"""


def test_seccomp_refuses_sysv_and_posix_ipc(compromised) -> None:
    worker = compromised.single_use_worker()
    try:
        got = pwn(compromised, worker, SYSV_AND_MQ)["ok"]
    finally:
        compromised.release(worker)
    shm = "ENOENT" if compromised.layers()["fsview"] == "on" else "EACCES"  # no /dev/shm in the view; or Landlock
    assert got == {"shmget": "EPERM", "msgget": "EPERM", "semget": "EPERM", "mq_open": "EPERM",
                   "posix_shm": shm}, got


CREATE_SEGMENT = LIBC + """
libc.shmat.restype = ctypes.c_void_p
shmid = libc.shmget(0x5ADE, 64 << 20, 0o1666)
assert shmid >= 0, errno.errorcode[ctypes.get_errno()]
addr = libc.shmat(shmid, None, 0)
ctypes.memmove(addr, b"SECRET-OF-RECORD-A", 18)
result = shmid
"""

FIND_SEGMENT = LIBC + """
shmid = libc.shmget(0x5ADE, 0, 0)
result = "found" if shmid >= 0 else errno.errorcode[ctypes.get_errno()]
"""


def _host_segments() -> str:
    with open("/proc/sysvipc/shm") as fh:
        return fh.read()


def test_ipc_namespace_keeps_segments_private_and_short_lived(fresh_pool) -> None:
    """Seccomp off: a worker can make a 0666 SysV segment, but no other worker sees it and it dies with its
    worker (the host's namespace never holds it)."""
    pool = fresh_pool(seccomp=False, landlock=False)
    before = _host_segments()
    owner = pool.single_use_worker()
    assert pwn(pool, owner, CREATE_SEGMENT)["ok"] >= 0
    other = pool.single_use_worker()
    try:
        assert pwn(pool, other, FIND_SEGMENT)["ok"] == "ENOENT"
        assert pwn(pool, owner, FIND_SEGMENT)["ok"] == "found"
    finally:
        pool.release(other)
    pid = owner.pid
    pool.release(owner)
    assert wait_dead(pid, 5)
    pool.shutdown()
    assert "5ade" not in _host_segments().lower() or _host_segments() == before


SPIN_BETWEEN_CALLS = """
import signal, time
signal.signal(signal.SIGXCPU, signal.SIG_IGN)
real_recv = worker.recv
def spinning_recv():                # the worker's own loop, patched: burn CPU after each reply, before reading
    end = time.process_time() + SPIN_S
    while time.process_time() < end:
        pass
    return real_recv()
worker.recv = spinning_recv
result = "spinning"
"""


def test_cpu_between_calls_is_policed(compromised) -> None:
    worker = compromised.single_use_worker()
    try:
        assert pwn(compromised, worker, SPIN_BETWEEN_CALLS.replace("SPIN_S", "0.6"))["ok"] == "spinning"
        time.sleep(0.8)
        with pytest.raises(SandboxCrashed, match="CPU outside its calls"):
            pwn(compromised, worker, "result = 1")
        assert wait_dead(worker.pid, 5)
    finally:
        compromised.release(worker)


RAISE_OWN_CPU = """
import resource
soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
outcomes = []
for new in ((hard, hard), (soft + 100, hard), (max(soft - 1, 1), hard), (resource.RLIM_INFINITY, resource.RLIM_INFINITY)):
    try:
        resource.setrlimit(resource.RLIMIT_CPU, new)
        outcomes.append("set")
    except (ValueError, OSError) as exc:
        outcomes.append(type(exc).__name__)
try:
    resource.prlimit(0, resource.RLIMIT_CPU, (hard, hard))
    outcomes.append("set")
except (ValueError, OSError) as exc:
    outcomes.append(type(exc).__name__)
result = [outcomes, [soft, hard], list(resource.getrlimit(resource.RLIMIT_CPU))]
"""


def test_seccomp_refuses_any_rlimit_change(compromised) -> None:
    worker = compromised.single_use_worker()
    try:
        outcomes, before, after = pwn(compromised, worker, RAISE_OWN_CPU)["ok"]
    finally:
        compromised.release(worker)
    assert "set" not in outcomes and before == after, (outcomes, before, after)
    if cpu_armed_from_outside(compromised.limits) and has_capability(CAP_SYS_RESOURCE):
        assert after[1] <= compromised.limits.cpu_s_per_call + 3  # the host set the hard limit near the call budget
    else:  # the host cannot move a dropped-uid worker's limits: the whole budget was set at spawn, and said so
        assert after == [compromised.limits.cpu_s_per_worker] * 2, after
        assert "CAP_SYS_RESOURCE" in compromised.layers()["rlimits"]


SPIN_IN_CALL = """
import time
end = time.process_time() + SPIN_S
while time.process_time() < end:
    pass
result = time.process_time()
"""


def test_a_worker_outlives_many_calls_whose_cpu_adds_up_past_one_call_budget(fresh_pool) -> None:
    """The per-call CPU limit bounds one call, not the worker's life: calls of 0.4 s CPU each, together far past
    ``cpu_s_per_call`` + 1, all return from the same worker (re-armed from outside before each call where the host
    may, or given its whole budget at spawn where it may not)."""
    pool = fresh_pool(cpu_s_per_call=1)
    worker = pool.single_use_worker()
    try:
        used = [pwn(pool, worker, SPIN_IN_CALL.replace("SPIN_S", "0.4"))["ok"] for _ in range(7)]
        assert used[-1] > pool.limits.cpu_s_per_call + 1.5, used
        assert alive(worker.pid)
    finally:
        pool.release(worker)


@pytest.mark.skipif(not has_capability(CAP_SYS_RESOURCE),
                    reason="setting a dropped-uid worker's hard CPU limit from outside needs CAP_SYS_RESOURCE; "
                           "without it the rlimits layer gives the whole budget at spawn (tested above)")
def test_hard_cpu_limit_set_from_outside_kills_an_idle_spinner(fresh_pool) -> None:
    """Seccomp off: the worker raises its soft limit to the hard one and ignores SIGXCPU, then spins with no
    call in flight; the hard limit the host set (one second past the call budget) kills it."""
    pool = fresh_pool(seccomp=False, cpu_s_per_call=1)
    worker = pool.single_use_worker()
    try:
        got = pwn(pool, worker, RAISE_OWN_CPU + SPIN_BETWEEN_CALLS.replace("SPIN_S", "1e9"))
        assert got["ok"] == "spinning"
        assert wait_dead(worker.pid, 8)
    finally:
        pool.release(worker)


ATTACK_OTHERS = """
import errno, signal, socket
out = {}
def attempt(name, action):
    try:
        action()
        out[name] = "ALLOWED"
    except OSError as exc:
        out[name] = errno.errorcode.get(exc.errno, str(exc.errno))
attempt("fork", lambda: os._exit(0) if os.fork() == 0 else None)
try:
    import threading
    threading.Thread(target=lambda: None).start()
    out["thread"] = "ALLOWED"
except RuntimeError:
    out["thread"] = "refused"
attempt("kill_launcher", lambda: os.kill(os.getppid(), signal.SIGKILL))
attempt("kill_host", lambda: os.kill(HOST, signal.SIGKILL))
attempt("kill_sibling", lambda: os.kill(SIBLING, signal.SIGKILL))
attempt("host_environ", lambda: open(f"/proc/{HOST}/environ", "rb").read())
attempt("sibling_mem", lambda: open(f"/proc/{SIBLING}/mem", "rb").read(1))
attempt("sibling_cwd", lambda: os.listdir(f"/proc/{SIBLING}/cwd"))
result = out
"""


@pytest.mark.parametrize("off", [{}, {"seccomp": False}, {"seccomp": False, "landlock": False}])
def test_signals_fork_and_proc_stay_inside(fresh_pool, off) -> None:
    """With every layer, then seccomp off, then Landlock off as well (the uid drop alone)."""
    pool = fresh_pool(**off)
    sibling = pool.single_use_worker()
    pwn(pool, sibling, "result = 1")
    worker = pool.single_use_worker()
    source = ATTACK_OTHERS.replace("HOST", str(os.getpid())).replace("SIBLING", str(sibling.pid))
    try:
        got = pwn(pool, worker, source)["ok"]
    except SandboxError as exc:
        pytest.fail(f"the worker could not even try: {exc}")
    assert all(outcome != "ALLOWED" for outcome in got.values()), got
    assert alive(pool.launcher_pid) and alive(sibling.pid)
    assert pwn(pool, sibling, "result = 2")["ok"] == 2
