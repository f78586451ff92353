"""Export and import of N designer environments as a pack (default 1,000), seconds, beside a raw store copy.

The source store is filled directly (accepted designer records: renamed copies of the bundled NimVersusBot seed,
each a distinct module with its own content hash), then:

- export: the pack folder (parents found in the memory), and the same as a tarball and as parquet;
- import (the only import path): the tarball read, every hash recomputed, every environment re-validated by the
  local gate with ``--workers`` at once, and stored; the part before the gate (read + hash and manifest checks) is
  also printed on its own, as a figure, never as an option;
- baseline: copying the SQLite store file (what sharing a pool costs without a pack, and without any check).

- ``--memory``: the importer's peak memory per input byte, reading a normal pack tarball and parquet file and three
  hostile files (a tar header declaring a 1.5 GiB long name; a 1 MB tarball with a 1,000 MiB member the pack never
  uses; a parquet file with a 190k-character module in 6,000 rows), each in a fresh process, beside a baseline that
  reads the same file the plain way (``tarfile``/``pyarrow``). ``--scale`` shrinks the hostile sizes.

    python benchmarks/bench_packs.py [--n 1000] [--workers 2] [--validate-n K] [--save [VARIANT]]
    python benchmarks/bench_packs.py --memory [--n 300] [--scale 1.0]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from saved_figures import Figure, add_save_option, keep, save_run

ROOT = Path(__file__).resolve().parents[1]
SEED = (ROOT / "plugins" / "domains" / "games" / "seeds" / "nim_vs_bot.py").read_text(encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--validate-n", type=int, default=None,
                        help="Re-validate-and-import only the first K environments (a pack of K, timed the same way); "
                             "default: all N")
    parser.add_argument("--memory", action="store_true", help="Peak reader memory per input byte (see above)")
    parser.add_argument("--scale", type=float, default=1.0, help="Size of the hostile --memory inputs (1.0: full)")
    add_save_option(parser)
    args = parser.parse_args()
    if args.save and args.memory:
        parser.error("--save keeps the export and import figures; --memory prints its table without saving")
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
    if args.memory:
        memory(source, tmp, args.scale)
        shutil.rmtree(tmp, ignore_errors=True)
        return

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
    print(f"environments: {args.n} exported; {k} imported with re-validation: accepted {summary['accepted']}, "
          f"rejected {summary['rejected']}, duplicates {summary['duplicate']}")
    timings = Timings(args.n, k, args.workers, copy_s, folder.seconds, tar.seconds, parquet.seconds, checks_s,
                      import_s, report.validate_seconds)
    figures = show(timings)
    print(f"load average during the run: {os.getloadavg()[0]:.1f} (2 cores)")
    shutil.rmtree(tmp, ignore_errors=True)
    if args.save:
        save_run("bench_packs", args.save, figures)


@dataclass(frozen=True)
class Timings:
    """Seconds of each step of one run: ``n`` environments exported, ``k`` of them imported."""

    n: int
    k: int
    workers: int
    copy_s: float
    export_folder_s: float
    export_tar_s: float
    export_parquet_s: float
    import_checks_s: float
    import_full_s: float
    import_gate_s: float


def show(t: Timings) -> dict[str, Figure]:
    """Print every step beside the store copy (the baseline); the figures as printed."""
    figures: dict[str, Figure] = {}
    rows = [
        ("baseline: copy the SQLite store file (no check)", "copy_s", t.copy_s),
        ("export folder (with memory parents)", "export_folder_s", t.export_folder_s),
        ("export tarball", "export_tar_s", t.export_tar_s),
        ("export parquet", "export_parquet_s", t.export_parquet_s),
        ("import: read tarball + recompute hashes + manifest checks", "import_checks_s", t.import_checks_s),
    ]
    for label, key, seconds in rows:
        text = keep(figures, key, seconds, 3 if key == "copy_s" else 2, " s")
        print(f"{label:<64} {text:>11}  {seconds / t.n * 1000:8.2f} ms/env  ({seconds / t.copy_s:,.0f}x copy)")
    for label, key, seconds in [(f"import: full, {t.k} envs (re-validated by the gate, {t.workers} workers)",
                                 "import_full_s", t.import_full_s),
                                ("  of which the validation gate", "import_gate_s", t.import_gate_s)]:
        text = keep(figures, key, seconds, 1, " s")
        per_env = keep(figures, f"{key.removesuffix('_s')}_per_env_s", seconds / t.k, 2, " s")
        print(f"{label:<64} {text:>11}  {per_env} per env  -> {seconds / t.k * t.n:8.1f} s per {t.n}")
    return figures

MiB = 1024 * 1024


def _header(name: str, size: int, kind: bytes) -> bytes:
    info = tarfile.TarInfo(name)
    info.size, info.type = size, kind
    return info.tobuf(format=tarfile.GNU_FORMAT)[:512]


def hostile_files(tmp: Path, scale: float) -> dict[str, Path]:
    """The three hostile inputs of the module docstring, at ``scale`` of their full size."""
    longname, unused = tmp / "longname.tar.gz", tmp / "unused.tar.gz"
    name_bytes = int(1536 * MiB * scale)
    with gzip.open(longname, "wb", compresslevel=9) as out:
        out.write(_header("././@LongLink", name_bytes, tarfile.GNUTYPE_LONGNAME))
        for _ in range(0, name_bytes, 16 * MiB):
            out.write(b"n" * 16 * MiB)
        out.write(bytes(2048))
    member = int(1000 * MiB * scale)
    with gzip.open(unused, "wb", compresslevel=9) as out:
        out.write(_header("unused.bin", member, tarfile.REGTYPE))
        for _ in range(0, member, 16 * MiB):
            out.write(bytes(16 * MiB))
        out.write(bytes(2048))
    sys.path.insert(0, str(ROOT / "tests" / "packs"))
    from test_pack_budgets import hostile_parquet

    repeat = hostile_parquet(tmp / "repeat.parquet", int(6000 * scale), "x = 1\n" * 31_667)
    return {"tar: 1.5 GiB GNU long name": longname, "tar: 1,000 MiB unused member": unused,
            "parquet: 190k-char module x 6,000 rows": repeat}


def memory(source: object, tmp: Path, scale: float) -> None:
    from spade_core.packs import export_pack

    tar = export_pack(source, tmp / "pack.tar.gz", name="bench", find_parents=False).path
    export_pack(source, tmp / "hf", name="bench", fmt="parquet", find_parents=False)
    cases = {"normal pack tarball": tar, "normal pack parquet": tmp / "hf" / "data" / "environments.parquet",
             **hostile_files(tmp, scale)}
    print(f"{'input (scale ' + str(scale) + ')':<44} {'bytes':>11} {'spade peak':>11} {'/byte':>7} "
          f"{'baseline peak':>14} {'/byte':>7}")
    for label, path in cases.items():
        size = path.stat().st_size
        peaks = [_peak(reader, path) for reader in ("spade", "baseline")]
        print(f"{label:<44} {size:>11,} {peaks[0] / MiB:>9.1f}MB {peaks[0] / size:>7.1f} {peaks[1] / MiB:>12.1f}MB "
              f"{peaks[1] / size:>7.1f}")
    print(json.dumps({"note": "peak = growth of the reading process's max RSS while it reads the file"}))


def _peak(reader: str, path: Path) -> int:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "pack_memory.py"), reader, str(path)],
                          capture_output=True, text=True, check=True)
    return int(done.stdout.split()[-1])


if __name__ == "__main__":
    main()
