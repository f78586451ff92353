"""No page-cache probe: seccomp on its own (Landlock, the namespaces and the filesystem view off; the uid drop
stays) refuses every call that tells whether a page of a shared file is cached, or drops or loads it without
reading it, on a file every worker can read (a system library file in the read set). With seccomp off the same calls
work, so two workers of different records could signal through the page cache (the sandbox issue measured 64 of
64 bits); what is left is the timing of ordinary reads (docs/sandbox.md, "Known limits")."""

from __future__ import annotations

import os
import platform

import pytest
from layer_support import pwn

PROBES = """
import ctypes, errno, mmap, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def outcome(rc):
    return "ok" if rc >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
def call(nr, *args):
    ctypes.set_errno(0)
    return outcome(libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args]))
fd = os.open(SHARED_FILE, os.O_RDONLY)
size = 4096
buf = ctypes.create_string_buffer(size)
vec = (ctypes.c_void_p * 2)(ctypes.addressof(buf), size)
pages = ctypes.create_string_buffer(1)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
mapped = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
cache_range = (ctypes.c_ulong * 2)(0, size)
cache_stat = (ctypes.c_ulong * 8)()
result = {
    "fadvise_dontneed": call(221, fd, 0, size, 4),                    # POSIX_FADV_DONTNEED: evict
    "fadvise_willneed": call(221, fd, 0, size, 3),                    # POSIX_FADV_WILLNEED: load
    "readahead": call(187, fd, 0, size),
    "mincore": call(27, mapped, size, ctypes.addressof(pages)),       # is it cached?
    "cachestat": call(451, fd, ctypes.addressof(cache_range), ctypes.addressof(cache_stat), 0),
    "preadv2_nowait": call(327, fd, ctypes.addressof(vec), 1, 0, 0, 8),  # RWF_NOWAIT: EAGAIN when not cached
    "madvise_pageout": call(28, mapped, size, 21),                    # MADV_PAGEOUT: evict
    "madvise_cold": call(28, mapped, size, 20),
    "madvise_willneed": call(28, mapped, size, 3),
    "madvise_populate_read": call(28, mapped, size, 22),
    "madvise_dontneed": call(28, mapped, size, 4),                    # zaps this mapping only: allowed
    "read": "ok" if os.pread(fd, 16, 0) else "empty",
}
"""

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="the numbers above are x86_64's")

ALONE = dict(landlock=False, network_namespace=False, ipc_namespace=False, filesystem_view=False)


def _shared_file() -> str:
    """A world-readable file of at least a page in the read set (every worker of every record can read it)."""
    for path in ("/usr/lib/os-release", "/usr/share/zoneinfo/UTC", "/lib/x86_64-linux-gnu/libc.so.6"):
        if os.path.isfile(path) and os.stat(path).st_mode & 0o004:
            return os.path.realpath(path)
    pytest.skip("no world-readable file in the read set")


def _probe(pool) -> dict[str, str]:
    worker = pool.single_use_worker()
    try:
        return pwn(pool, worker, PROBES.replace("SHARED_FILE", repr(_shared_file())))["ok"]
    finally:
        pool.release(worker)


def test_no_call_probes_drops_or_loads_a_shared_page(fresh_pool) -> None:
    got = _probe(fresh_pool(**ALONE))
    allowed = {name for name, outcome in got.items() if outcome != "EPERM"}
    assert allowed == {"madvise_dontneed", "read"}, got


def test_without_seccomp_the_probes_work(fresh_pool) -> None:
    got = _probe(fresh_pool(seccomp=False, **ALONE))
    assert got["fadvise_dontneed"] == got["mincore"] == got["readahead"] == "ok", got
    assert got["preadv2_nowait"] in ("ok", "EAGAIN"), got
