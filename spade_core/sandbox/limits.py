"""Sandbox limits and the isolation a worker applies to itself before it runs any untrusted code.

Layers, in the order a new worker applies them (each recorded as active or with the reason it is not):

=============  ==========================================================================================
fds            every inherited descriptor except the channel is closed; stdin/stdout -> /dev/null, stderr
               -> a size-capped unnamed log file the launcher opened (no path the worker could replace)
environ        ``os.environ`` is replaced by a minimal fixed mapping (no inherited secrets)
scratch        the working directory is a fresh per-worker directory, removed when the worker is reaped; with
               the filesystem view it is a tmpfs of the worker's own, sized by the scratch quota
rlimits        RLIMIT_AS (memory), RLIMIT_CPU (armed from outside by the host per message, never by the
               worker; at most the worker's lifetime CPU budget), RLIMIT_FSIZE, RLIMIT_NOFILE, RLIMIT_CORE=0,
               RLIMIT_NPROC=0, RLIMIT_MEMLOCK=0
ipcns          (root only) a fresh IPC namespace per worker: SysV shared memory, queues and semaphores and POSIX
               message queues of other workers are invisible, and the worker's own die with it
fsview         (root only) a private mount namespace whose root is a small read-only tmpfs holding only the
               read paths (read-only bind mounts) and the worker's scratch, a tmpfs of its own whose size and
               inode count are the scratch quota (the kernel refuses a write past it with ENOSPC): other host
               paths do not exist, and nothing the worker writes reaches a filesystem anyone else sees
uid            (root only) setgroups([]) + setresgid/setresuid to a per-worker unprivileged id; as root,
               RLIMIT_NPROC alone does not stop fork (docs/design.md §7)
netns          (in the launcher, inherited) a fresh network namespace: no interfaces but a down loopback
no_new_privs   PR_SET_NO_NEW_PRIVS, PR_SET_DUMPABLE=0, PR_SET_PDEATHSIG=SIGKILL
landlock       reads only under the Python installation and system library dirs, writes only in scratch;
               TCP bind/connect refused (ABI >= 4); signals/abstract sockets outside the worker refused (ABI >= 6)
seccomp        an allow-list (``syscalls.py``): every call not on it fails with EPERM, whatever its number
               (fork/exec, sockets, signals, ptrace, namespaces, mounts, IPC, setting any rlimit, page-cache
               probes, and calls newer than the list); clone only for threads, ioctl/fcntl/madvise/prlimit64
               only with listed arguments; compiled once in the launcher, loaded per worker as raw BPF
=============  ==========================================================================================
"""

from __future__ import annotations

import errno
import os
import resource
import signal
import sys
from dataclasses import asdict, dataclass, fields
from typing import Any

from spade_core.sandbox import oslayers, scratch, syscalls

LAYERS = ("fds", "environ", "scratch", "rlimits", "ipcns", "fsview", "uid", "netns", "no_new_privs", "landlock", "seccomp")

SAFE_ENVIRON = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0"}
"""The whole environment of the launcher and workers (``HOME``/``TMPDIR`` point at the scratch dir)."""


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits and isolation switches for sandbox workers (plain data; crosses to the launcher as JSON).

    Times are seconds of wall clock unless named ``cpu``. ``memory_mb`` is the worker's whole address space
    (RLIMIT_AS), including the ~40-60 MB the interpreter itself maps. ``scratch_check_s`` is the launcher's
    scratch-quota tick: each tick it measures the workers that ran since their last measurement (an idle worker
    cannot have written anything); ``scratch_check_idle`` measures every worker every tick instead (the fixed
    police of before, kept as the idle benchmark's baseline).
    """

    call_timeout_s: float = 5.0
    load_timeout_s: float = 20.0
    episode_budget_s: float = 60.0
    memory_mb: int = 1024
    cpu_s_per_call: int = 10
    cpu_s_per_worker: int = 3600
    max_file_mb: int = 16
    max_scratch_mb: int = 64
    scratch_check_s: float = 0.1
    scratch_check_idle: bool = False
    max_open_files: int = 32
    max_reply_bytes: int = 16 * 1024 * 1024
    max_reply_elements: int = 250_000
    spawn_timeout_s: float = 20.0
    drop_uid: bool = True
    uid_base: int = 200_000
    network_namespace: bool = True
    ipc_namespace: bool = True
    filesystem_view: bool = True
    landlock: bool = True
    seccomp: bool = True

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value <= 0:
                raise ValueError(f"SandboxLimits.{f.name} must be positive, got {value!r}")
        if self.cpu_s_per_worker < self.cpu_s_per_call:
            raise ValueError(f"SandboxLimits.cpu_s_per_worker ({self.cpu_s_per_worker}) must be at least "
                             f"cpu_s_per_call ({self.cpu_s_per_call})")
        if self.memory_mb < 128:
            raise ValueError(f"SandboxLimits.memory_mb must be at least 128 (the interpreter needs ~60), got {self.memory_mb}")

    @property
    def worker_memory_mb(self) -> int:
        """The memory one worker may hold: its address space (``memory_mb``) plus its scratch (``max_scratch_mb``),
        which under the filesystem view is a tmpfs, memory outside the address space. A pool reserves this much of
        its budget before the worker starts."""
        return self.memory_mb + self.max_scratch_mb

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SandboxLimits:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def python_read_paths() -> list[str]:
    """Directories a worker may read: the interpreter's installation and the system's libraries."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)),
             "/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/share/zoneinfo", "/dev/null", "/dev/urandom"}
    return sorted(p for p in paths if p and os.path.exists(p))


def seccomp_rules() -> list[oslayers.Rule]:
    """The worker's seccomp allow-list as libseccomp rules (pid-independent, so it is compiled once in the
    launcher); whatever no rule matches is answered with :data:`SECCOMP_DEFAULT`."""
    allow = oslayers.SCMP_ACT_ALLOW
    rules: list[oslayers.Rule] = []
    for entry in syscalls.ALLOWED:
        if not entry.when:
            rules.append((entry.name, allow, ()))
        for tests in entry.when:
            rules.append((entry.name, allow, tuple(_comparison(test) for test in tests)))
    rules += [(entry.name, oslayers.SCMP_ACT_ERRNO(entry.errno), ()) for entry in syscalls.ANSWERED]
    return rules


SECCOMP_DEFAULT = oslayers.SCMP_ACT_ERRNO(errno.EPERM)
"""What the filter answers to every call not on the allow-list, whatever its number."""


def _comparison(test: syscalls.ArgIs) -> tuple[int, int, int, int]:
    if test.mask:
        return (test.index, oslayers.SCMP_CMP_MASKED_EQ, test.mask, test.value)
    return (test.index, oslayers.SCMP_CMP_EQ, test.value, 0)


FSVIEW_ROOT = ".root"
"""The empty directory in a worker's scratch that its private root (a tmpfs) is mounted on before ``pivot_root``."""


def scratch_tmpfs_options(limits: SandboxLimits, uid: int) -> str:
    """Mount options of a worker's scratch tmpfs: the scratch quota (``max_scratch_mb`` bytes,
    :data:`scratch.MAX_ENTRIES` entries besides its top directory), owned by the worker's ``uid``, mode 700."""
    return f"size={limits.max_scratch_mb}m,nr_inodes={scratch.MAX_ENTRIES + 1},mode=0700,uid={uid},gid={uid}"


def _filesystem_view(limits: SandboxLimits, scratch_dir: str, uid: int, required: bool) -> str:
    if not limits.filesystem_view:
        return "off: disabled by SandboxLimits.filesystem_view"
    if os.geteuid() != 0:
        return "off: not running as root (a mount namespace needs CAP_SYS_ADMIN)"
    try:
        oslayers.private_root(os.path.join(scratch_dir, FSVIEW_ROOT), python_read_paths(), scratch_dir,
                              scratch_tmpfs_options(limits, uid))
    except OSError as exc:  # LayerUnavailable, or a path that could not be placed: the host's tree stays
        if required:  # the launcher does not police this worker's disk: it must not run on the host's
            raise
        return f"off: {exc.strerror or exc}"
    os.chdir(scratch_dir)
    return "on"


def filesystem_view_works(limits: SandboxLimits, probe_dir: str) -> bool:
    """Whether a worker forked from this process gets the filesystem view: a child sets one up on ``probe_dir`` (a
    fresh directory) and exits. The launcher asks once; where it holds, it leaves scratch quotas to the kernel."""
    if not limits.filesystem_view or os.geteuid() != 0:
        return False
    pid = os.fork()
    if pid == 0:
        try:
            oslayers.private_root(os.path.join(probe_dir, FSVIEW_ROOT), python_read_paths(), probe_dir,
                                  scratch_tmpfs_options(limits, 0))
        except BaseException:  # any failure is the answer "no"
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def cpu_armed_from_outside(limits: SandboxLimits) -> bool:
    """Whether the host can set a worker's ``RLIMIT_CPU`` with ``prlimit`` while it runs: always for a worker of
    the host's own uid, and for a worker whose uid was dropped only with ``CAP_SYS_RESOURCE`` (a container may run
    the host as root without it). Computed alike by the host and, before its uid drop, by the worker."""
    drops_uid = limits.drop_uid and os.geteuid() == 0
    return not drops_uid or oslayers.has_capability(oslayers.CAP_SYS_RESOURCE)


def seccomp_program(limits: SandboxLimits) -> tuple[bytes | None, str]:
    """Compile the seccomp filter once (in the launcher); returns ``(program or None, status)``."""
    if not limits.seccomp:
        return None, "off: disabled by SandboxLimits.seccomp"
    try:
        program, unknown = oslayers.seccomp_compile(seccomp_rules(), SECCOMP_DEFAULT)
    except oslayers.LayerUnavailable as exc:
        return None, f"off: {exc.strerror}"
    return program, "on" + (f" (unknown here: {', '.join(unknown)})" if unknown else "")


def apply_worker_isolation(
    limits: SandboxLimits,
    *,
    keep_fd: int,
    scratch: str,
    launcher_pid: int,
    seccomp: tuple[bytes | None, str] | None = None,
    log_fd: int | None = None,
    scratch_tmpfs_required: bool = False,
) -> dict[str, str]:
    """Isolate the calling (freshly forked) worker process; return ``{layer: "on" | "off: reason"}``.

    Must run before any untrusted code and before anything that needs privileges is dropped. Raises only when
    a layer that is switched on and available fails in a way that would leave the worker weaker than reported,
    and when ``scratch_tmpfs_required`` (the launcher leaves this worker's disk quota to the kernel) and the
    filesystem view, which holds its scratch tmpfs, cannot be set up.
    """
    status: dict[str, str] = {}
    pid = os.getpid()
    uid = limits.uid_base + pid if (limits.drop_uid and os.geteuid() == 0) else os.geteuid()

    # scratch dir and fds
    os.makedirs(scratch, mode=0o700, exist_ok=True)
    if uid != os.geteuid():
        os.chown(scratch, uid, uid)
    devnull = os.open("/dev/null", os.O_RDWR)
    log = log_fd if log_fd is not None else os.dup(devnull)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.dup2(log, 2)
    keep = {0, 1, 2, keep_fd}
    for fd in (devnull, log):
        if fd not in keep:
            os.close(fd)
    os.closerange(3, keep_fd)
    os.closerange(keep_fd + 1, 65536)
    status["fds"] = "on"

    os.environ.clear()
    os.environ.update(SAFE_ENVIRON)
    os.environ.update({"HOME": scratch, "TMPDIR": scratch})
    os.chdir(scratch)
    status["environ"] = "on"
    status["scratch"] = "on"

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails with EFBIG instead of killing us
    mem = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    fsize = limits.max_file_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_MEMLOCK, (0, 0))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    # The host re-arms RLIMIT_CPU from outside before each message (prlimit on this pid); as root it moves the
    # hard limit too (with CAP_SYS_RESOURCE, which raising a hard limit needs), so a worker that ignores SIGXCPU is killed one second past its budget. A host that cannot
    # re-arm it (the worker runs as another user and the host lacks CAP_SYS_RESOURCE) gives the worker its whole
    # CPU budget at once: each call is then bounded by its wall-clock deadline alone.
    if cpu_armed_from_outside(limits):
        cpu_hard = (min(limits.cpu_s_per_call + 1, limits.cpu_s_per_worker)
                    if oslayers.has_capability(oslayers.CAP_SYS_RESOURCE) else limits.cpu_s_per_worker)
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s_per_call, cpu_hard))
        status["rlimits"] = "on"
    else:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s_per_worker, limits.cpu_s_per_worker))
        status["rlimits"] = ("on (CPU: the worker's whole budget; the host lacks CAP_SYS_RESOURCE to re-arm it per "
                             "call, so calls are bounded by their wall-clock deadline)")

    if not limits.ipc_namespace:
        status["ipcns"] = "off: disabled by SandboxLimits.ipc_namespace"
    else:
        try:
            oslayers.unshare_ipc()
            status["ipcns"] = "on"
        except oslayers.LayerUnavailable as exc:
            status["ipcns"] = f"off: {exc.strerror}"

    status["fsview"] = _filesystem_view(limits, scratch, uid, scratch_tmpfs_required)
    status["scratch"] = (f"on (its own tmpfs of {limits.max_scratch_mb} MB: the kernel enforces the quota)"
                         if status["fsview"] == "on" else "on (a host directory: the launcher polices the quota)")

    if uid != os.geteuid():
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        status["uid"] = f"on (uid {uid})"
    elif not limits.drop_uid:
        status["uid"] = "off: disabled by SandboxLimits.drop_uid"
    else:
        status["uid"] = "off: not running as root, so the worker keeps the host's uid"

    oslayers.prctl(oslayers.PR_SET_PDEATHSIG, signal.SIGKILL)  # after setuid: credential changes clear it
    if os.getppid() != launcher_pid:
        os._exit(70)  # the launcher died while we were starting
    oslayers.prctl(oslayers.PR_SET_NO_NEW_PRIVS, 1)
    oslayers.prctl(oslayers.PR_SET_DUMPABLE, 0)
    status["no_new_privs"] = "on"

    if not limits.landlock:
        status["landlock"] = "off: disabled by SandboxLimits.landlock"
    else:
        try:
            abi = oslayers.landlock_restrict(python_read_paths(), [scratch, "/dev/null"])
            status["landlock"] = f"on (ABI {abi})"
        except oslayers.LayerUnavailable as exc:
            status["landlock"] = f"off: {exc.strerror}"

    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.max_open_files, limits.max_open_files))

    program, seccomp_status = seccomp if seccomp is not None else seccomp_program(limits)
    if program is not None and limits.seccomp:
        try:
            oslayers.seccomp_load_bpf(program)
        except oslayers.LayerUnavailable as exc:
            seccomp_status = f"off: {exc.strerror}"
    elif not limits.seccomp:
        seccomp_status = "off: disabled by SandboxLimits.seccomp"
    status["seccomp"] = seccomp_status
    return status
