"""A benchmark run's named figures saved beside the command that printed them, so the README's figures have one
source: ``benchmarks/results/<benchmark>-<variant>.json`` holds the command line, the date, the machine's load
average and CPU count, the git commit (and whether tracked files other than the README and the results had uncommitted changes) and the figures by name.

A benchmark adds the option with :func:`add_save_option`, prints each figure through :func:`keep` (which records it
and returns its text) and, after printing, calls :func:`save_run` when the option was given; ``benchmarks/readme_figures.py`` checks the README's rows against the files. Runs with a different size or
mode save under their own variant name (``--save against``), never over the default run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "benchmarks" / "results"
SCHEMA = 1
NOT_CODE = (":!README.md", ":!benchmarks/results")  # edited with a run's figures, so no sign of a changed benchmark
NAME = re.compile(r"[a-z0-9_]+")  # benchmark, variant and figure names: a file name and an HTML comment both hold it


@dataclass(frozen=True)
class Figure:
    """One printed figure: its value, the decimals it is shown with and the unit written after it (with its own
    leading space where the text has one), so ``text`` is what the README must say."""

    value: float
    decimals: int = 2
    unit: str = ""

    @property
    def text(self) -> str:
        return f"{self.value:,.{self.decimals}f}{self.unit}"


@dataclass(frozen=True)
class SavedRun:
    benchmark: str
    variant: str
    command: tuple[str, ...]
    date: str  # ISO 8601, UTC, when the figures were saved
    load_average: tuple[float, float, float]  # 1, 5 and 15 minutes, when the figures were saved
    cpus: int
    commit: str | None  # None outside a git checkout
    dirty: bool  # uncommitted changes to tracked files (other than NOT_CODE) when the run was saved
    figures: dict[str, Figure] = field(default_factory=dict)

    @property
    def file_name(self) -> str:
        return results_file_name(self.benchmark, self.variant)


def keep(figures: dict[str, Figure], key: str, value: float, decimals: int = 2, unit: str = "") -> str:
    """Keep ``value`` in ``figures`` as ``key`` and return its text, so the line that prints it says exactly what is
    saved."""
    figure = Figure(float(value), decimals, unit)
    figures[key] = figure
    return figure.text


def results_file_name(benchmark: str, variant: str) -> str:
    for what, name in (("benchmark", benchmark), ("variant", variant)):
        if not NAME.fullmatch(name):
            raise ValueError(f"{what} name {name!r} is not lower-case letters, digits and '_'; rename it")
    return f"{benchmark}-{variant}.json"


def add_save_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--save", nargs="?", const="default", default=None, metavar="VARIANT",
                        help="save the named figures to benchmarks/results/<benchmark>-VARIANT.json "
                             "(VARIANT 'default' when left out)")


def git_output(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def run_of(benchmark: str, variant: str, figures: dict[str, Figure]) -> SavedRun:
    """The figures of the run in progress with its command line, date, load, CPUs and commit."""
    for key in figures:
        if not NAME.fullmatch(key):
            raise ValueError(f"figure name {key!r} is not lower-case letters, digits and '_'; rename it")
    one, five, fifteen = os.getloadavg()
    return SavedRun(
        benchmark=benchmark, variant=variant, command=("python", *sys.argv),
        date=datetime.now(UTC).isoformat(timespec="seconds"), load_average=(one, five, fifteen),
        cpus=os.cpu_count() or 0, commit=git_output("rev-parse", "HEAD"),
        dirty=bool(git_output("status", "--porcelain", "--untracked-files=no", "--", ".", *NOT_CODE)),
        figures=dict(figures),
    )


def save_run(benchmark: str, variant: str, figures: dict[str, Figure], folder: Path = RESULTS_DIR) -> Path:
    path = write_run(run_of(benchmark, variant, figures), folder)
    print(f"saved {len(figures)} figures to {path}")
    return path


def write_run(run: SavedRun, folder: Path = RESULTS_DIR) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / run.file_name
    path.write_text(json.dumps(to_json(run), indent=2, ensure_ascii=False) + "\n")
    return path


def to_json(run: SavedRun) -> dict[str, object]:
    return {
        "schema": SCHEMA, "benchmark": run.benchmark, "variant": run.variant, "command": list(run.command),
        "date": run.date, "load_average": list(run.load_average), "cpus": run.cpus, "commit": run.commit,
        "dirty": run.dirty,
        "figures": {k: {"value": float(f.value), "decimals": f.decimals, "unit": f.unit} for k, f in run.figures.items()},
    }


def load_run(path: Path) -> SavedRun:
    """Read a results file, refusing one whose fields are missing or of the wrong type."""
    try:
        data = json.loads(path.read_text())
        if data["schema"] != SCHEMA:
            raise ValueError(f"schema {data['schema']!r}, expected {SCHEMA}")
        figures = {str(k): Figure(float(v["value"]), int(v["decimals"]), str(v["unit"]))
                   for k, v in data["figures"].items()}
        one, five, fifteen = (float(x) for x in data["load_average"])
        run = SavedRun(
            benchmark=str(data["benchmark"]), variant=str(data["variant"]),
            command=tuple(str(x) for x in data["command"]), date=str(data["date"]),
            load_average=(one, five, fifteen), cpus=int(data["cpus"]),
            commit=None if data["commit"] is None else str(data["commit"]), dirty=bool(data["dirty"]),
            figures=figures,
        )
    except (KeyError, TypeError, ValueError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a saved benchmark run ({type(exc).__name__}: {exc}); "
                         "re-run the benchmark with --save to write it again") from exc
    if run.file_name != path.name:
        raise ValueError(f"{path}: holds {run.benchmark} variant {run.variant}, which saves as {run.file_name}; "
                         "re-run the benchmark with --save instead of renaming files")
    return run
