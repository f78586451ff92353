"""Linux kernel isolation primitives reached through ctypes: network namespaces, prctl, Landlock and seccomp.

Python 3.11 has no ``os.unshare``; Landlock has no stdlib binding; seccomp goes through the system's
``libseccomp.so.2`` (a maintained C library; its Python bindings are not on PyPI, and the ctypes wrapper there is
unmaintained, so the five functions needed are bound here). Each function raises :class:`LayerUnavailable` with
the reason when the kernel or library does not offer the feature, so callers can fall back and record why.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import platform
from collections.abc import Iterable

CLONE_NEWNET = 0x40000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWUSER, CLONE_NEWPID = 0x02000000, 0x04000000, 0x10000000, 0x20000000
CLONE_NAMESPACES = CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWUSER | CLONE_NEWPID
CLONE_THREAD = 0x00010000
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38

_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_RULE_PATH_BENEATH = 1

# Landlock filesystem rights, by the ABI version that introduced them.
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
FS_REMOVE_DIR, FS_REMOVE_FILE, FS_MAKE_CHAR, FS_MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
FS_MAKE_REG, FS_MAKE_SOCK, FS_MAKE_FIFO, FS_MAKE_BLOCK, FS_MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1
FS_READ = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR


class LayerUnavailable(OSError):
    """The kernel, library or privileges needed for an isolation layer are missing; the message says which."""


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]


CAP_SYS_RESOURCE = 24
"""The capability ``prlimit`` needs to set the limits of a process running as another user (a worker after its uid
drop)."""


def effective_capabilities() -> int | None:
    """This process's effective capability set (``CapEff`` in ``/proc/self/status``); None when it cannot be read."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError, IndexError):
        pass
    return None


def has_capability(cap: int) -> bool:
    """Whether this process holds ``cap`` in its effective set (False when unknown)."""
    caps = effective_capabilities()
    return caps is not None and bool(caps >> cap & 1)


def _fail(what: str) -> LayerUnavailable:
    err = ctypes.get_errno()
    return LayerUnavailable(err, f"{what}: {os.strerror(err)} (errno {errno.errorcode.get(err, err)})")


def unshare_network() -> None:
    """Move this process into a fresh, empty network namespace (only a down loopback device)."""
    if _libc.unshare(CLONE_NEWNET) != 0:
        raise _fail("unshare(CLONE_NEWNET)")


def unshare_ipc() -> None:
    """Move this process into a fresh IPC namespace: no SysV segment, queue or semaphore set (and no POSIX
    message queue) of any other process is visible, and all of this one's die with it."""
    if _libc.unshare(CLONE_NEWIPC) != 0:
        raise _fail("unshare(CLONE_NEWIPC)")


MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE, MS_RELATIME = 1024, 2048, 4096, 16384, 1 << 18, 1 << 21
MNT_DETACH = 2
_ST_RELATIME = 4096
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def enc(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)

    if _libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)) != 0:
        raise _fail(f"mount({source}, {target}, {fstype}, {flags:#x})")


def _locked_flags(path: str) -> int:
    """The mount flags of ``path``'s mount that a bind remount must keep (a container may lock them)."""
    f_flag = os.statvfs(path).f_flag
    flags = f_flag & (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME)
    return flags | (MS_RELATIME if f_flag & _ST_RELATIME else 0)


def _place(root: str, path: str) -> None:
    """Make ``path`` appear at the same path under ``root``: a link as the same link (and its target), anything
    else as a read-only bind mount."""
    if not os.path.lexists(path):
        return
    target = root + path
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.islink(path):
        if not os.path.lexists(target):
            os.symlink(os.readlink(path), target)
        real = os.path.realpath(path)
        if real != path:
            _place(root, real)
        return
    if os.path.isdir(path):
        os.makedirs(target, exist_ok=True)
    elif not os.path.exists(target):
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o600))
    _mount(path, target, None, MS_BIND)
    _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_NOSUID | _locked_flags(path) | MS_RDONLY)


def private_root(root: str, read_paths: Iterable[str], scratch: str, scratch_options: str) -> None:
    """Give this process a filesystem with nothing but ``read_paths`` (read-only) and its own ``scratch`` in it.

    A fresh mount namespace (nothing propagates to or from the host's), a small tmpfs on ``root`` (an empty
    directory) with each read path bind-mounted at its own path and a fresh tmpfs of its own at ``scratch``
    (``scratch_options``: its size, inode count, owner), then ``pivot_root`` into it and the host's tree detached.
    Paths keep their names, so nothing else changes; every other host path is simply absent, so ``stat``,
    ``readlink``, ``getxattr`` and listings of it fail with ENOENT like ``open`` does. What the process writes lives
    only in its scratch tmpfs: the kernel refuses a write past its size (ENOSPC), no other mount namespace sees it,
    and it is freed when the last process in the namespace ends. Needs root (CAP_SYS_ADMIN); call before dropping it.
    """
    number = _SYS_PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise LayerUnavailable(errno.ENOSYS, f"pivot_root's number is not known on {platform.machine()}")
    if _libc.unshare(CLONE_NEWNS) != 0:
        raise _fail("unshare(CLONE_NEWNS)")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    os.makedirs(root, mode=0o755, exist_ok=True)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=256k,nr_inodes=256,mode=0755")
    for path in read_paths:
        _place(root, path)
    os.makedirs(root + scratch, exist_ok=True)
    _mount("tmpfs", root + scratch, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, scratch_options)
    os.chdir(root)
    if _libc.syscall(ctypes.c_long(number), b".", b".") != 0:
        raise _fail("pivot_root")
    if _libc.umount2(b".", MNT_DETACH) != 0:
        raise _fail("umount2(old root)")
    os.chdir("/")
    _mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)


def prctl(option: int, arg2: int = 0) -> None:
    if _libc.prctl(option, arg2, 0, 0, 0) != 0:
        raise _fail(f"prctl({option})")


# -- Landlock --------------------------------------------------------------------------------------------------
class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0 when Landlock is unavailable)."""
    if platform.system() != "Linux":
        return 0
    version = _libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                            ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION))
    return max(int(version), 0)


def landlock_restrict(read_paths: Iterable[str], write_paths: Iterable[str]) -> int:
    """Confine this process: read (and execute) only beneath ``read_paths``, write only beneath ``write_paths``.

    Where the ABI allows it also refuses TCP bind/connect (ABI 4) and signals or abstract unix sockets that reach
    outside this process's Landlock domain (ABI 6). Requires no-new-privs. Returns the ABI version used.
    """
    abi = landlock_abi()
    if abi < 1:
        raise LayerUnavailable(errno.ENOSYS, "Landlock is not supported by this kernel")
    fs_all = _FS_BY_ABI[max(v for v in _FS_BY_ABI if v <= abi)]
    attr = _RulesetAttr(handled_access_fs=fs_all)
    size = ctypes.sizeof(ctypes.c_uint64)
    if abi >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 2 * ctypes.sizeof(ctypes.c_uint64)
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = ctypes.sizeof(_RulesetAttr)
    ruleset = _libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise _fail("landlock_create_ruleset")
    try:
        read_rights = FS_READ & fs_all
        write_rights = fs_all & ~FS_EXECUTE
        for paths, rights in ((read_paths, read_rights), (write_paths, write_rights | read_rights)):
            for path in paths:
                _landlock_allow(int(ruleset), path, rights)
        if _libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise _fail("landlock_restrict_self")
    finally:
        os.close(int(ruleset))
    return abi


def _landlock_allow(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path that does not exist grants nothing
    try:
        if not os.path.isdir(path):
            rights &= FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
        rule = _PathBeneathAttr(allowed_access=rights, parent_fd=fd)
        if _libc.syscall(_SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_LANDLOCK_RULE_PATH_BENEATH),
                         ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
            raise _fail(f"landlock_add_rule({path})")
    finally:
        os.close(fd)


# -- seccomp (through libseccomp) -----------------------------------------------------------------------------
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_NE, SCMP_CMP_EQ, SCMP_CMP_MASKED_EQ = 1, 4, 7


def SCMP_ACT_ERRNO(code: int) -> int:  # mirrors the C macro
    return 0x00050000 | (code & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


_seccomp_lib: ctypes.CDLL | None = None


def _libseccomp() -> ctypes.CDLL:
    global _seccomp_lib
    if _seccomp_lib is None:
        name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
        try:
            lib = ctypes.CDLL(name, use_errno=True)
        except OSError as exc:
            raise LayerUnavailable(errno.ENOENT, f"libseccomp not found ({exc}); install libseccomp2") from None
        lib.seccomp_init.restype = ctypes.c_void_p
        lib.seccomp_init.argtypes = [ctypes.c_uint32]
        lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                               ctypes.POINTER(_ArgCmp)]
        lib.seccomp_load.argtypes = [ctypes.c_void_p]
        lib.seccomp_release.argtypes = [ctypes.c_void_p]
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
        _seccomp_lib = lib
    return _seccomp_lib


Rule = tuple[str, int, tuple[tuple[int, int, int, int], ...]]
"""``(syscall name, action, ((arg index, op, datum_a, datum_b), ...))``; comparisons are AND-ed."""


def seccomp_compile(rules: Iterable[Rule], default: int) -> tuple[bytes, list[str]]:
    """Compile a filter with ``rules`` that answers ``default`` to every other call (any number, known or not) to
    raw BPF (once, in the launcher: libseccomp takes ~10 ms). A call from another architecture's ABI (x32, i386
    on x86_64) kills the process (libseccomp's default for a foreign architecture).

    Returns the program and the syscall names this libseccomp does not know (skipped).
    """
    lib = _libseccomp()
    ctx = lib.seccomp_init(default)
    if not ctx:
        raise LayerUnavailable(errno.EINVAL, "seccomp_init failed")
    unknown: list[str] = []
    try:
        for name, action, comparisons in rules:
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr < 0:
                unknown.append(name)
                continue
            cmps = (_ArgCmp * max(len(comparisons), 1))(*[_ArgCmp(*c) for c in comparisons])
            rc = lib.seccomp_rule_add_array(ctx, action, nr, len(comparisons), cmps)
            if rc < 0:
                raise LayerUnavailable(-rc, f"seccomp_rule_add({name}) failed: {os.strerror(-rc)}")
        read_fd, write_fd = os.pipe()
        try:
            rc = lib.seccomp_export_bpf(ctx, write_fd)
            os.close(write_fd)
            write_fd = -1
            if rc < 0:
                raise LayerUnavailable(-rc, f"seccomp_export_bpf failed: {os.strerror(-rc)}")
            chunks = []
            while chunk := os.read(read_fd, 1 << 16):
                chunks.append(chunk)
        finally:
            os.close(read_fd)
            if write_fd >= 0:
                os.close(write_fd)
    finally:
        lib.seccomp_release(ctx)
    program = b"".join(chunks)
    if not program or len(program) % 8:
        raise LayerUnavailable(errno.EINVAL, f"seccomp_export_bpf produced {len(program)} bytes")
    return program, unknown


def seccomp_syscall_names(upto: int = 1024) -> dict[int, str]:
    """The native architecture's system call table as this libseccomp knows it: ``{number: name}`` below ``upto``."""
    lib = _libseccomp()
    lib.seccomp_syscall_resolve_num_arch.restype = ctypes.c_void_p
    lib.seccomp_syscall_resolve_num_arch.argtypes = [ctypes.c_uint32, ctypes.c_int]
    _libc.free.argtypes = [ctypes.c_void_p]
    names: dict[int, str] = {}
    for number in range(upto):
        pointer = lib.seccomp_syscall_resolve_num_arch(0, number)  # 0: SCMP_ARCH_NATIVE
        if pointer:
            names[number] = ctypes.string_at(pointer).decode()
            _libc.free(pointer)
    return names


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


def seccomp_load_bpf(program: bytes) -> None:
    """Install a compiled filter in this process (needs no-new-privs or CAP_SYS_ADMIN); costs microseconds."""
    buffer = ctypes.create_string_buffer(program, len(program))
    prog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0) != 0:
        raise _fail("prctl(PR_SET_SECCOMP)")
