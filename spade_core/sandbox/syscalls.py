"""The system calls a sandbox worker may make once its seccomp filter is loaded: an allow-list, everything else EPERM.

Generated from traces of the test suites' workers (``scripts/seccomp_trace.py``), then reviewed: each entry says
why the interpreter, the worker or an allowed module needs the call, and which argument values it may carry where
that matters. The filter built from it (``limits.seccomp_rules``) answers ``EPERM`` for every other number, including
numbers no kernel had when this list was written, so a new kernel's call is denied without a change here. The
review notes, with what was left out and why, are in ``docs/sandbox.md`` ("System calls").

Names are the kernel's; a name the running architecture lacks (``unlink`` on aarch64) is skipped when compiling.
"""

from __future__ import annotations

import errno
import fcntl
import mmap
import termios
from dataclasses import dataclass

from spade_core.sandbox.oslayers import CLONE_NAMESPACES, CLONE_THREAD


@dataclass(frozen=True)
class ArgIs:
    """Argument ``index`` masked with ``mask`` equals ``value`` (``mask`` 0: compared whole)."""

    index: int
    value: int
    mask: int = 0


@dataclass(frozen=True)
class Allowed:
    """One allowed call. ``when``: alternatives, each a set of argument tests that must all hold; empty: any
    arguments."""

    name: str
    reason: str
    when: tuple[tuple[ArgIs, ...], ...] = ()


@dataclass(frozen=True)
class Answered:
    """A call answered with ``errno`` instead of EPERM, so that the C library falls back to an allowed one."""

    name: str
    errno: int
    reason: str


def _one_of(index: int, values: tuple[int, ...]) -> tuple[tuple[ArgIs, ...], ...]:
    return tuple((ArgIs(index, value),) for value in values)


IOCTLS = (termios.FIONBIO, termios.TCGETS, termios.FIOCLEX, termios.FIONCLEX)
"""``socket.setblocking`` on the channel (FIONBIO); ``open()``'s isatty check for buffering (TCGETS);
``os.set_inheritable`` (FIOCLEX/FIONCLEX)."""

FCNTLS = (fcntl.F_GETFD, fcntl.F_SETFD, fcntl.F_GETFL, fcntl.F_SETFL)
"""Descriptor and status flags (``os.get/set_blocking``, ``get/set_inheritable``'s fallback). Not F_SETOWN/F_SETSIG
(signals to another process), F_SETLK/F_OFD_*/F_SETLEASE (locks and leases on files other workers can read are a
channel between records), F_NOTIFY, F_DUPFD (dup is not needed)."""

MADVICE = (mmap.MADV_DONTNEED, mmap.MADV_HUGEPAGE, mmap.MADV_NOHUGEPAGE)
"""glibc's malloc trimming and thread-stack release (DONTNEED), numpy's huge-page hint for large arrays; all act
on the caller's own mapping. Not PAGEOUT/COLD (evict a shared file's pages), WILLNEED/POPULATE_* (load them),
REMOVE, HWPOISON, MERGEABLE and the rest."""

ALLOWED: tuple[Allowed, ...] = (
    # memory
    Allowed("brk", "malloc's main heap"),
    Allowed("mmap", "malloc's large blocks and arenas, thread stacks, a lazily imported extension module's pages"),
    Allowed("munmap", "freeing what mmap mapped"),
    Allowed("mprotect", "thread stack guard pages; ld.so relocating a lazily imported extension module"),
    Allowed("mremap", "realloc of a large block (a growing list, bytes or str) without copying"),
    Allowed("madvise", "only " + ", ".join(str(advice) for advice in MADVICE) + ": see MADVICE",
            _one_of(2, MADVICE)),
    # files (paths are confined by Landlock: reads under the Python installation, writes in scratch)
    Allowed("openat", "lazy imports (importlib), files in scratch; every open() of the C library is openat"),
    Allowed("close", "closing what was opened"),
    Allowed("read", "reading module sources on a lazy import and files in scratch"),
    Allowed("pread64", "ld.so reads an extension module's ELF notes with pread on a lazy import"),
    Allowed("write", "the stderr log (tracebacks), files in scratch"),
    Allowed("lseek", "io.open's FileIO/BufferedReader position and tell()"),
    Allowed("newfstatat", "importlib's stat of path entries and files; fstat() of the C library (glibc >= 2.33)"),
    Allowed("fstat", "fstat() of C libraries before glibc 2.33; tells nothing newfstatat on the descriptor does not"),
    Allowed("getdents64", "importlib's FileFinder lists a sys.path directory once on a lazy import"),
    Allowed("getcwd", "os.getcwd(): the '' entry of sys.path and scratch-relative paths"),
    Allowed("unlink", "removing a file the worker wrote in scratch (a temporary file, an unlinked-but-open one)"),
    Allowed("unlinkat", "unlink on architectures without it (aarch64); the same operation"),
    Allowed("ioctl", "only " + ", ".join(hex(cmd) for cmd in IOCTLS) + ": see IOCTLS", _one_of(1, IOCTLS)),
    Allowed("fcntl", "only " + ", ".join(str(cmd) for cmd in FCNTLS) + ": see FCNTLS", _one_of(1, FCNTLS)),
    # the channel: an already connected socketpair end (socket creation is not allowed)
    Allowed("recvfrom", "socket.recv on the channel to the host"),
    Allowed("sendto", "socket.send on the channel to the host"),
    Allowed("getsockname", "socket.socket(fileno=...) reads the channel's family when the worker starts serving"),
    Allowed("getsockopt", "socket.socket(fileno=...) reads the channel's SO_TYPE and SO_PROTOCOL"),
    # signals and timers
    Allowed("rt_sigaction", "signal.signal: the worker's SIGALRM call timer, SIGXCPU/SIGXFSZ handling"),
    Allowed("rt_sigprocmask", "the C library blocks signals around thread creation and in abort paths"),
    Allowed("rt_sigreturn", "returning from a signal handler (the call timer)"),
    Allowed("restart_syscall", "the kernel resumes a sleep interrupted by a handled signal (the call timer)"),
    Allowed("setitimer", "the worker's per-call timer (ITIMER_REAL), armed and cleared around every call"),
    Allowed("getitimer", "reading the call timer (signal.getitimer)"),
    # time
    Allowed("clock_gettime", "time.process_time/thread_time (the CPU clocks are not in the vDSO)"),
    Allowed("clock_nanosleep", "time.sleep"),
    # own identity and limits
    Allowed("getpid", "os.getpid (the worker's hello, scratch names)"),
    Allowed("getppid", "os.getppid (the worker checks its launcher is alive)"),
    Allowed("gettid", "threading.get_native_id; the C library's own locks"),
    Allowed("getuid", "os.getuid: a worker's own uid (the layer tests check the uid drop from inside)"),
    Allowed("getrandom", "os.urandom, random.Random() without a seed, tempfile names"),
    Allowed("prlimit64", "resource.getrlimit: only reading its own limits (pid 0, no new limit); the host sets them",
            ((ArgIs(0, 0), ArgIs(2, 0)),)),
    # threads: refused by RLIMIT_NPROC=0 under the uid drop, policed by the host's idle-CPU check otherwise
    Allowed("clone", "threads only: CLONE_THREAD set and no namespace flag (a fork is refused)",
            ((ArgIs(0, CLONE_THREAD, CLONE_THREAD | CLONE_NAMESPACES),),)),
    Allowed("futex", "the GIL, locks and condition variables; joining a thread"),
    Allowed("set_robust_list", "the C library registers each new thread's robust futex list"),
    Allowed("rseq", "the C library (glibc >= 2.35) registers each new thread's restartable sequences area"),
    Allowed("exit", "a thread ends"),
    Allowed("exit_group", "the worker ends (os._exit, sys.exit)"),
)

ANSWERED: tuple[Answered, ...] = (
    Answered("clone3", errno.ENOSYS, "glibc tries clone3 first for a thread and falls back to clone (filtered by "
                                     "flags above) on ENOSYS; clone3's flags live in memory a filter cannot read"),
)


def allowed_names() -> frozenset[str]:
    return frozenset(entry.name for entry in ALLOWED)
