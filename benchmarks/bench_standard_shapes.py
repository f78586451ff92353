"""The gate's precision on the field's standard shapes, tried as a new user would: ``spade validate FILE --json`` with a
fresh store per file, no document or probe, on every file of ``tests/validation/standard_shapes`` (good
environments in the field's conventions: fixed-spec code tasks, classes and parsers, any-valid-output tasks, tool
tasks with many reads, tolerances and units, small answer spaces, games with pass, resign, forfeit and draw rules).
Prints each file's verdict and seconds, then the files accepted and the median, slowest and total seconds.

    python benchmarks/bench_standard_shapes.py [--save [VARIANT]]

Every file of the corpus is a good environment, so every rejection is a false reject (its stage and message are
printed).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from saved_figures import ROOT, Figure, add_save_option, keep, save_run

CORPUS = ROOT / "tests" / "validation" / "standard_shapes"


@dataclass(frozen=True)
class FileVerdict:
    name: str
    verdict: str  # "accepted", "rejected", or why no verdict came back
    stage: str | None
    message: str
    seconds: float  # the whole command, start-up included


def spade_command() -> list[str]:
    """The ``spade`` console script beside this interpreter (the one a user's shell finds), else the module."""
    script = Path(sys.executable).with_name("spade")
    return [str(script)] if script.exists() else [sys.executable, "-m", "spade_core.cli.main"]


def validate_file(path: Path) -> FileVerdict:
    """``spade validate PATH --json`` with a store of its own, timed from start to exit."""
    with tempfile.TemporaryDirectory() as tmp:
        env = os.environ | {"SPADE_STORE": str(Path(tmp) / "store.sqlite3")}
        started = time.perf_counter()
        done = subprocess.run([*spade_command(), "validate", str(path), "--json"], env=env, capture_output=True,
                              text=True, check=False)
        seconds = time.perf_counter() - started
    try:
        record = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return FileVerdict(path.stem, f"no verdict (exit {done.returncode})", None, done.stderr.strip()[-300:],
                           seconds)
    return FileVerdict(path.stem, str(record.get("verdict")), record.get("stage"), str(record.get("message", "")),
                       seconds)


def report(verdicts: list[FileVerdict]) -> dict[str, Figure]:
    """Print each file's verdict and the totals; the figures as printed."""
    figures: dict[str, Figure] = {}
    for v in verdicts:
        where = "" if v.verdict == "accepted" else f"  [{v.stage}] {v.message[:160]!r}"
        print(f"{v.name:<28} {v.verdict:<10} {v.seconds:>6.1f} s{where}")
    seconds = [v.seconds for v in verdicts]
    slowest = max(verdicts, key=lambda v: v.seconds)
    print(f"accepted {keep(figures, 'accepted', sum(v.verdict == 'accepted' for v in verdicts), 0)} of "
          f"{keep(figures, 'files', len(verdicts), 0)}; seconds per file: median "
          f"{keep(figures, 'median_s', statistics.median(seconds), 1, ' s')}, max "
          f"{keep(figures, 'max_s', slowest.seconds, 1, ' s')} ({slowest.name}), "
          f"{keep(figures, 'total_s', sum(seconds), 0, ' s')} in all")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_save_option(parser)
    args = parser.parse_args()
    files = sorted(CORPUS.glob("*.py"))
    verdicts = []
    for n, path in enumerate(files, 1):
        print(f"[{n}/{len(files)}] {path.name}", file=sys.stderr, flush=True)
        verdicts.append(validate_file(path))
    figures = report(verdicts)
    if args.save:
        save_run("bench_standard_shapes", args.save, figures)


if __name__ == "__main__":
    main()
