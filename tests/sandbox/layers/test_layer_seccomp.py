"""Seccomp on its own is an allow-list: from a compromised worker, with Landlock and the namespaces switched off (the
uid drop stays on, so a failing run cannot harm the host), every system call number that is not on the list,
the whole table of the running architecture and 64 numbers past it, answers EPERM; calls on the list only
with listed arguments; and the same probe finds calls answering otherwise when seccomp is switched off."""

from __future__ import annotations

import os
import platform

import pytest
from layer_support import pwn, wait_dead

from spade_core.errors import SandboxError
from spade_core.sandbox import oslayers, syscalls

pytestmark = [pytest.mark.skipif(platform.machine() != "x86_64", reason="the numbers below are x86_64's"),
              pytest.mark.skipif(os.geteuid() != 0, reason="all-zero calls are safe to send only under the uid drop")]

NEWER = {"memfd_secret": 447, "process_mrelease": 448, "futex_waitv": 449, "set_mempolicy_home_node": 450,
         "cachestat": 451, "fchmodat2": 452, "map_shadow_stack": 453, "futex_wake": 454, "futex_wait": 455,
         "futex_requeue": 456, "statmount": 457, "listmount": 458, "lsm_get_self_attr": 459,
         "lsm_set_self_attr": 460, "lsm_list_modules": 461, "mseal": 462, "setxattrat": 463, "getxattrat": 464,
         "listxattrat": 465, "removexattrat": 466, "open_tree_attr": 467, "file_getattr": 468, "file_setattr": 469}
"""Calls newer than some libseccomp tables (numbers 424 and up are the same on every architecture)."""

NAMED = ("fchmodat2", "memfd_secret", "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd",
         "process_vm_readv", "process_vm_writev", "perf_event_open", "bpf", "keyctl", "add_key", "unshare", "setns",
         "mount", "open_tree", "fsopen", "io_setup", "modify_ldt", "memfd_create", "chmod", "fchmod", "mincore",
         "fadvise64", "preadv2", "cachestat", "flock", "socket", "kill", "execve", "fork", "ptrace")
"""Calls the sandbox issues named (new kernels' calls, namespaces, mounts, page-cache probes, the old deny-list)."""

SAFE_WITHOUT_SECCOMP = ("fchmodat2", "memfd_secret", "io_uring_setup", "userfaultfd", "process_vm_readv",
                        "perf_event_open", "bpf", "keyctl", "setns", "mount", "io_setup", "mincore")
"""Named calls that all-zero arguments leave harmless even with no filter (no blocking, no strict mode, no exit)."""

CALL_ALL = """
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
out = []
for nr in NUMBERS:
    ctypes.set_errno(0)
    rc = libc.syscall(ctypes.c_long(nr), *([ctypes.c_long(0)] * 6))
    out.append([nr, "ok" if rc >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))])
result = out
"""

KERNEL_EXEMPT = {335: "uretprobe", 336: "uprobe"}
"""Calls the kernel runs before any seccomp filter (since 6.11 / 6.16): entries of the uprobe trampolines that,
called from anywhere else, kill the caller with SIGILL (uretprobe) or fail with ENXIO (uprobe). Not probed."""

ONLY_SECCOMP = dict(landlock=False, network_namespace=False, ipc_namespace=False)


def _table() -> dict[int, str]:
    table = oslayers.seccomp_syscall_names()
    table.update({number: name for name, number in NEWER.items()})
    return table


def _number(name: str) -> int:
    return {name: number for number, name in _table().items()}[name]


def _on_the_list() -> set[int]:
    names = syscalls.allowed_names() | {entry.name for entry in syscalls.ANSWERED}
    return {number for number, name in _table().items() if name in names}


def _call(pool, numbers: list[int]) -> dict[int, str]:
    worker = pool.single_use_worker()
    try:
        got = pwn(pool, worker, CALL_ALL.replace("NUMBERS", repr(numbers)), timeout=20)
    finally:
        pool.release(worker)
    return {nr: outcome for nr, outcome in got["ok"]}


def test_every_call_off_the_list_is_eperm(fresh_pool) -> None:
    table = _table()
    numbers = [nr for nr in range(max(table) + 65) if nr not in _on_the_list() and nr not in KERNEL_EXEMPT]
    assert all(_number(name) in numbers for name in NAMED)
    pool = fresh_pool(**ONLY_SECCOMP)
    assert pool.layers()["seccomp"].startswith("on") and pool.layers()["uid"].startswith("on"), pool.layers()
    got = _call(pool, numbers)
    wrong = {f"{nr} ({table.get(nr, 'unnamed')})": outcome for nr, outcome in got.items() if outcome != "EPERM"}
    assert not wrong, wrong
    assert len(got) == len(numbers) > 450


def test_without_seccomp_the_same_probe_sees_other_answers(fresh_pool) -> None:
    """The probe above is not vacuous: with the filter off, calls it sends answer other than EPERM."""
    numbers = [_number(name) for name in SAFE_WITHOUT_SECCOMP]
    got = _call(fresh_pool(seccomp=False, **ONLY_SECCOMP), numbers)
    assert got[_number("fchmodat2")] in ("EFAULT", "ENOSYS"), got
    assert sum(outcome != "EPERM" for outcome in got.values()) >= 4, got


ARGUMENTS = """
import ctypes, errno, fcntl, os, termios
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(nr, *args):
    ctypes.set_errno(0)
    rc = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return "ok" if rc >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
limit = (ctypes.c_ulong * 2)(1, 1)
old = (ctypes.c_ulong * 2)()
w = 2                                                  # the worker's log
result = {
    "clone_fork": call(CLONE, 17, 0, 0, 0, 0),         # SIGCHLD only: a fork
    "clone_thread_newnet": call(CLONE, THREAD | 0x40000000, 0, 0, 0, 0),
    "clone3": call(CLONE3, 0, 0),
    "prlimit_set_own": call(PRLIMIT, 0, 0, ctypes.addressof(limit), 0),
    "prlimit_read_launcher": call(PRLIMIT, os.getppid(), 0, 0, ctypes.addressof(old)),
    "prlimit_read_own": call(PRLIMIT, 0, 0, 0, ctypes.addressof(old)),
    "ioctl_tiocsti": call(IOCTL, w, termios.TIOCSTI, 0),
    "ioctl_fionread": call(IOCTL, w, termios.FIONREAD, 0),
    "ioctl_high_bits": call(IOCTL, w, (1 << 32) | termios.TCGETS, 0),
    "ioctl_tcgets": call(IOCTL, w, termios.TCGETS, 0),
    "fcntl_setown": call(FCNTL, w, fcntl.F_SETOWN, os.getppid()),
    "fcntl_setlk": call(FCNTL, w, fcntl.F_SETLK, 0),
    "fcntl_dupfd": call(FCNTL, w, fcntl.F_DUPFD, 0),
    "fcntl_getfd": call(FCNTL, w, fcntl.F_GETFD, 0),
}
"""


def test_calls_on_the_list_only_with_listed_arguments(fresh_pool) -> None:
    source = ARGUMENTS
    for name, value in {"CLONE3": _number("clone3"), "CLONE": _number("clone"), "PRLIMIT": _number("prlimit64"),
                        "IOCTL": _number("ioctl"), "FCNTL": _number("fcntl"),
                        "THREAD": oslayers.CLONE_THREAD}.items():
        source = source.replace(name, str(value))
    pool = fresh_pool(**ONLY_SECCOMP)
    worker = pool.single_use_worker()
    try:
        got = pwn(pool, worker, source)["ok"]
    finally:
        pool.release(worker)
    denied = {key: outcome for key, outcome in got.items() if outcome != "EPERM"}
    assert denied == {"clone3": "ENOSYS", "prlimit_read_own": "ok", "ioctl_tcgets": "ENOTTY",
                      "fcntl_getfd": "ok"}, got


def test_a_foreign_abi_call_kills_the_worker(fresh_pool) -> None:
    """An x32 call (the x86_64 number with bit 30 set) is not answered at all: the filter kills the worker."""
    pool = fresh_pool(**ONLY_SECCOMP)
    worker = pool.single_use_worker()
    try:
        with pytest.raises(SandboxError):
            pwn(pool, worker, CALL_ALL.replace("NUMBERS", repr([0x40000000 | _number("getpid")])))
        assert wait_dead(worker.pid, 5)
    finally:
        pool.release(worker)


def test_every_entry_names_a_call_of_this_architecture_and_says_why() -> None:
    known = set(_table().values())
    for entry in (*syscalls.ALLOWED, *syscalls.ANSWERED):
        assert entry.reason.strip(), entry
        assert entry.name in known, entry.name
    assert len(syscalls.allowed_names()) == len(syscalls.ALLOWED)  # no name listed twice
