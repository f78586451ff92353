"""The byte budget of one pack read: every decompressed byte (headers, names, members, parquet cells) is charged
before it is read, so a pack of N bytes on disk costs the reader at most :func:`pack_budget` (N) bytes."""

from __future__ import annotations

from spade_core.packs.errors import PackRefusedError
from spade_core.packs.schema import MAX_PACK_BYTES

EXPANSION_LIMIT = 256
"""A pack may unpack to this many times its size on disk (an exported pack of 300 near-identical environments is 50x
as a tarball, 87x as parquet; gzip reaches ~1,000x on hostile input)."""
MIN_BUDGET_BYTES = 16 * 1024 * 1024
"""Every pack may unpack to this much, however small it is on disk (one highly repetitive module)."""


def pack_budget(size_on_disk: int) -> int:
    """Decompressed bytes a pack file of ``size_on_disk`` bytes may cost in all."""
    return min(MAX_PACK_BYTES, max(MIN_BUDGET_BYTES, EXPANSION_LIMIT * size_on_disk))


class ByteBudget:
    """Bytes a pack read may still cost; :meth:`charge` refuses the pack before the bytes are read."""

    def __init__(self, limit: int, origin: str) -> None:
        self.limit = limit
        self.used = 0
        self.origin = origin

    @property
    def left(self) -> int:
        return self.limit - self.used

    def charge(self, size: int, what: str) -> None:
        """Count ``size`` bytes of ``what`` against the budget; :class:`PackRefusedError` if they do not fit."""
        self.check(size, what)
        self.used += size

    def check(self, size: int, what: str) -> None:
        """:class:`PackRefusedError` unless ``size`` bytes of ``what`` fit in what is left (nothing is counted)."""
        if size < 0 or size > self.left:
            raise PackRefusedError(
                f"{self.origin}: {what} declares {size} bytes, but only {self.left} of the pack's {self.limit} byte "
                f"budget are left (a pack may unpack to {EXPANSION_LIMIT}x its size on disk, at least "
                f"{MIN_BUDGET_BYTES} and at most {MAX_PACK_BYTES} bytes); refusing the pack")
