"""The C heap controls a CPU training process uses (``spade_core.heap``), checked in a fresh interpreter so the test
process's own allocator settings stay as they are."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

GLIBC = platform.libc_ver()[0] == "glibc"

SCRIPT = """
import ctypes, sys, threading
from spade_core.heap import limit_arenas, release_free_memory

if sys.argv[1] == "limit":
    assert limit_arenas(1)
blocks = []

def allocate():
    blocks.append([bytearray(64 * 1024) for _ in range(64)])

threads = [threading.Thread(target=allocate) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(release_free_memory())
ctypes.CDLL(None).malloc_stats()  # one "Arena N:" block per arena, on stderr
"""


def arenas(mode: str) -> tuple[int, str]:
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=60, check=True)
    return out.stderr.count("Arena "), out.stdout.strip()


@pytest.mark.skipif(not GLIBC, reason="mallopt and malloc_trim are glibc's")
def test_limit_arenas_keeps_threads_out_of_arenas_of_their_own() -> None:
    unlimited, _ = arenas("default")
    limited, trimmed = arenas("limit")
    assert unlimited > 1  # glibc's default: allocating threads get arenas of their own
    assert limited == 1
    assert trimmed in ("True", "False")  # malloc_trim answers whether it released anything


MAPPED = """
import ctypes, sys
from spade_core.heap import fix_mmap_threshold

libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.mallinfo2.restype = type("Info", (ctypes.Structure,), {"_fields_": [(n, ctypes.c_size_t) for n in (
    "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]})
if sys.argv[1] == "fixed":
    assert fix_mmap_threshold(4)
libc.free(libc.malloc(16 << 20))  # glibc's default raises its threshold to the largest mapped block freed
before = libc.mallinfo2().hblkhd
block = libc.malloc(8 << 20)
print(libc.mallinfo2().hblkhd - before)  # bytes newly mapped for the 8 MiB block (0: it came from the heap)
"""


def mapped_bytes(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", MAPPED, mode], capture_output=True, text=True, timeout=60, check=True)
    return int(out.stdout.strip())


@pytest.mark.skipif(not GLIBC, reason="mallopt is glibc's")
def test_a_fixed_mmap_threshold_maps_blocks_the_heap_would_keep() -> None:
    assert mapped_bytes("default") == 0  # served from the heap, where it would stay resident once freed
    assert mapped_bytes("fixed") >= 8 << 20  # a mapping of its own, returned to the OS when freed


def test_the_calls_are_harmless_without_glibc(monkeypatch: pytest.MonkeyPatch) -> None:
    from spade_core import heap

    monkeypatch.setattr(heap, "_glibc", lambda: None)
    assert heap.limit_arenas(2) is False
    assert heap.fix_mmap_threshold(4) is False
    assert heap.release_free_memory() is False
