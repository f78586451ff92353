"""The C heap of a CPU training process: how many malloc arenas its threads may use, and giving freed pages back.

glibc gives each thread that allocates under contention an arena of its own (up to eight per core) and keeps what
is freed in it for that thread's next allocation. torch's worker threads allocate tensors in every arena in turn, so
a process that alternates sampling (key/value buffers of long prompts) and training (gradients, optimiser moments)
keeps several hundred MB of freed blocks resident per arena. Both calls are no-ops where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from typing import Any

M_ARENA_MAX = -8  # mallopt's parameter number (glibc malloc.h)
TRAINING_ARENAS = 2  # enough for the sampler and the optimiser not to contend; one would serialise every thread


@functools.cache
def _glibc() -> Any | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None  # only glibc has both


def limit_arenas(arenas: int = TRAINING_ARENAS) -> bool:
    """Let threads share at most ``arenas`` malloc arenas from now on (``MALLOC_ARENA_MAX`` for a running process).

    Call it before the first threaded work (model loading); arenas created earlier stay. True if the limit is set."""
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(M_ARENA_MAX, arenas) == 1)


def release_free_memory() -> bool:
    """Return every arena's free pages to the OS (glibc keeps freed blocks below its mmap threshold: after decoding
    a batch of long prompts, hundreds of MB of key/value buffers stay resident while an update allocates anew)."""
    libc = _glibc()
    return bool(libc is not None and libc.malloc_trim(0) == 1)
