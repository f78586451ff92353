"""Peak memory of reading one pack file, per input byte, in a fresh process: SPADE's reader beside a baseline that
reads the same file the plain way (``tarfile`` extracting every member to memory, ``pyarrow`` reading the whole table
into Python rows). Used by ``bench_packs.py --memory``.

    python benchmarks/pack_memory.py spade|baseline FILE
"""

from __future__ import annotations

import sys
import tarfile


def baseline(path: str) -> None:
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq

        pq.read_table(path).to_pylist()
        return
    with tarfile.open(path, "r:*") as archive:
        for member in archive:
            handle = archive.extractfile(member)
            if handle is not None:
                handle.read()


def spade(path: str) -> None:
    from spade_core.packs import PackError, open_pack

    try:
        open_pack(path)
    except PackError as exc:
        print(f"refused: {str(exc)[-120:]}", file=sys.stderr)


def status_bytes(field: str) -> int:
    """``VmRSS`` or ``VmHWM`` (the peak) of this process, from ``/proc/self/status`` (``ru_maxrss`` survives exec). Both
readers start with SPADE's pack modules and pyarrow imported, so the figures are the read alone.."""
    with open("/proc/self/status", encoding="ascii") as status:
        line = next(line for line in status if line.startswith(field + ":"))
    return int(line.split()[1]) * 1024


if __name__ == "__main__":
    import pyarrow.parquet  # noqa: F401 - both readers start with the same modules loaded, so only the read counts

    import spade_core.packs  # noqa: F401
    before = status_bytes("VmRSS")
    try:
        (baseline if sys.argv[1] == "baseline" else spade)(sys.argv[2])
    except (tarfile.TarError, MemoryError, OSError) as exc:
        print(f"failed: {type(exc).__name__}", file=sys.stderr)
    print(status_bytes("VmHWM") - before)
