"""Export and import of N designer environments as a pack (default 1,000), seconds, beside a raw store copy.

The source store is filled directly (accepted designer records: renamed copies of the bundled NimVersusBot seed,
each a distinct module with its own content hash), then:

- export: the pack folder (parents found in the memory), and the same as a tarball and as parquet;
- import (the only import path): the tarball read, every hash recomputed, every environment re-validated by the
  local gate with ``--workers`` at once, and stored; the part before the gate (read + hash and manifest checks) is
  also printed on its own, as a figure, never as an option;
- baseline: copying the SQLite store file (what sharing a pool costs without a pack, and without any check).

    python benchmarks/bench_packs.py [--n 1000] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = (ROOT / "plugins" / "domains" / "games" / "seeds" / "nim_vs_bot.py").read_text(encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--validate-n", type=int, default=None,
                        help="Re-validate-and-import only the first K environments (a pack of K, timed the same way); "
                             "default: all N")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-packs-"))
    os.environ["SPADE_STORE"] = str(tmp / "default.sqlite3")
    from spade_core.gym_bridge import open_store, sync_seed_environments
    from spade_core.packs import export_pack, import_pack, open_pack
    from spade_core.packs.importing import check_environment
    from spade_core.validation.pipeline import _manifest_of
    from spade_registry.records import Status, Trust

    source = open_store(tmp / "source.sqlite3")
    sync_seed_environments(source)
    for i in range(args.n):
        code = SEED.replace('"name": "NimVersusBot"', f'"name": "BenchNim{i}"', 1) + f"\nVARIANT = {i}\n"
        record, _ = source.add(code=code, manifest=_manifest_of(code), status=Status.ACCEPTED, trust=Trust.DESIGNER,
                               provenance={"source": "designer", "doc_title": f"Document {i % 50}"},
                               report={"status": "accepted"})
        source.update_stats(record.rid, {"episodes": 6, "successes": i % 7 > 3, "p_hint": 0.8, "p_nohint": 0.4,
                                         "regret": 0.4})
    source._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    t0 = time.perf_counter()
    copy = tmp / "copy.sqlite3"
    shutil.copyfile(source.path, copy)
    sqlite3.connect(copy).execute("SELECT COUNT(*) FROM records").fetchone()
    copy_s = time.perf_counter() - t0

    folder = export_pack(source, tmp / "pack", name="bench")
    tar = export_pack(source, tmp / "pack.tar.gz", name="bench", find_parents=False)
    parquet = export_pack(source, tmp / "pack-hf", name="bench", fmt="parquet", find_parents=False)

    t0 = time.perf_counter()
    pack = open_pack(str(tar.path))
    problems = [check_environment(env) for env in pack.environments]
    checks_s = time.perf_counter() - t0
    assert not any(problems), problems[:3]

    target = open_store(tmp / "target.sqlite3")
    sync_seed_environments(target)
    full = open_pack(str(tar.path))
    k = min(args.validate_n or args.n, args.n)
    subset = type(full)(header=full.header, environments=full.environments[:k], origin=full.origin)
    t0 = time.perf_counter()
    report = import_pack(subset, target, workers=args.workers)
    import_s = time.perf_counter() - t0
    summary = report.summary()
    n = args.n
    print(f"environments: {n} exported; {k} imported with re-validation: accepted {summary['accepted']}, rejected {summary['rejected']}, "
          f"duplicates {summary['duplicate']}")
    rows = [
        ("baseline: copy the SQLite store file (no check)", copy_s),
        ("export folder (with memory parents)", folder.seconds),
        ("export tarball", tar.seconds),
        ("export parquet", parquet.seconds),
        ("import: read tarball + recompute hashes + manifest checks", checks_s),
    ]
    for label, seconds in rows:
        print(f"{label:<64} {seconds:9.2f} s  {seconds / n * 1000:8.2f} ms/env  ({seconds / copy_s:,.0f}x copy)")
    for label, seconds in [(f"import: full, {k} envs (re-validated by the gate, {args.workers} workers)", import_s),
                           ("  of which the validation gate", report.validate_seconds)]:
        print(f"{label:<64} {seconds:9.2f} s  {seconds / k * 1000:8.2f} ms/env  -> {seconds / k * n:8.1f} s per {n}")
    print(f"load average during the run: {os.getloadavg()[0]:.1f} (2 cores)")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
