"""The main job as a newcomer runs it: ``bash scripts/main.sh`` on a fresh clone in a fresh virtual environment,
under ``/usr/bin/time -v``; its wall time, exit status, peak RSS and the LLM iterations it finished, with each
iteration's time split beside the time spent outside the iterations (the small world and set-up).

The install is done first by the same script (``bash scripts/main.sh --help``: it installs, lists the plugins and
seeds, and prints self-play's help), so the timed run pays only the install's no-op re-check, as a second run of the
README command does. The clone gets its own data folder (``XDG_DATA_HOME``), so nothing of this machine's store is
read or written.

    python benchmarks/bench_main_job.py [--keep] [--save [VARIANT]]

The clone is of this checkout's HEAD (the commit the saved figures name); uncommitted changes are not in it.

Nothing here is timed but the main job itself; what shares the machine while it runs shows in the saved load
average.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench_selfplay import ITERATIONS_TARGET, report_iterations
from saved_figures import ROOT, Figure, add_save_option, git_output, keep, run_of, write_run

from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.metrics import IterationMetrics, read_metrics
from spade_core.typed_config import load_config

TIME = "/usr/bin/time"
RUN_DIR = Path("runs") / "selfplay"  # where scripts/main.sh runs self-play, inside the clone
RSS_TARGET_GB = 3.5
WALL_TARGET_MIN = 25.0


@dataclass(frozen=True)
class TimeReport:
    """What GNU time's ``-v`` report says about one command."""

    wall_s: float
    peak_rss_kib: int
    exit_status: int


@dataclass(frozen=True)
class MainJob:
    """One timed run of the main job."""

    time: TimeReport
    metrics: list[IterationMetrics]  # one record per LLM iteration finished
    asked: int  # iterations the run's config asks for


def parse_time_report(text: str) -> TimeReport:
    """The wall time, peak RSS and exit status of a GNU ``time -v`` report; a report without them is refused."""
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):(\d+(?:\.\d+)?)", text)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    status = re.search(r"Exit status: (\d+)", text)
    if not (wall and rss and status):
        raise ValueError(f"not a GNU time -v report (no wall time, peak RSS or exit status in {len(text)} "
                         f"characters); is {TIME} GNU time?")
    hours, minutes, seconds = wall.groups()
    return TimeReport(wall_s=int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds),
                      peak_rss_kib=int(rss.group(1)), exit_status=int(status.group(1)))


def report(job: MainJob) -> dict[str, Figure]:
    """Print the main job's wall time, exit status, iterations and peak RSS, then each iteration's time split and the
    time outside the iterations; the figures as printed."""
    figures: dict[str, Figure] = {}
    t = job.time
    print(f"main job: {keep(figures, 'wall_min', t.wall_s / 60, 1, ' min')} wall "
          f"({keep(figures, 'wall_s', t.wall_s, 0, ' s')}), exit status {keep(figures, 'exit_status', t.exit_status, 0)}, "
          f"{keep(figures, 'iterations', len(job.metrics), 0)} of {keep(figures, 'asked', job.asked, 0)} LLM iterations, "
          f"peak RSS {keep(figures, 'peak_rss_gb', t.peak_rss_kib * 1024 / 1e9, 2, ' GB')} "
          f"({keep(figures, 'peak_rss_gib', t.peak_rss_kib / 2**20, 2, ' GiB')}, "
          f"{keep(figures, 'peak_rss_kib', t.peak_rss_kib, 0, ' KiB')}); targets <= {WALL_TARGET_MIN:g} min, "
          f">= {ITERATIONS_TARGET} iterations, <= {RSS_TARGET_GB:g} GB")
    figures |= report_iterations(job.metrics)
    outside = t.wall_s - sum(m.time.total for m in job.metrics)
    print(f"outside the LLM iterations (install re-check, the small world, set-up): "
          f"{keep(figures, 'outside_iterations_s', outside, 0, ' s')}")
    return figures


def clone(into: Path) -> str:
    """A fresh clone of this checkout's HEAD; its commit."""
    sha = git_output("rev-parse", "HEAD")
    if sha is None:
        raise SystemExit(f"error: {ROOT} is not a git checkout with a commit; run from a clone of the repository")
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(into)], check=True)
    subprocess.run(["git", "checkout", "--quiet", sha], cwd=into, check=True)
    return sha


def fresh_environment(checkout: Path) -> dict[str, str]:
    """The environment of a newcomer's shell with a fresh venv activated and a data folder of its own."""
    venv = checkout / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPADE_", "PYTHON", "VIRTUAL_ENV"))}
    env |= {"VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
            "XDG_DATA_HOME": str(checkout / ".data")}
    return env


def run_main_job(checkout: Path, env: dict[str, str]) -> MainJob:
    print("installing (bash scripts/main.sh --help) ...", file=sys.stderr, flush=True)
    install = subprocess.run(["bash", "scripts/main.sh", "--help"], cwd=checkout, env=env, capture_output=True,
                             text=True, check=False)
    if install.returncode != 0:
        raise SystemExit(f"error: the install pass failed (exit {install.returncode}):\n{install.stderr[-4000:]}")
    print("running the main job under /usr/bin/time -v ...", file=sys.stderr, flush=True)
    time_file = checkout / "time-v.txt"
    subprocess.run([TIME, "-v", "-o", str(time_file), "bash", "scripts/main.sh"], cwd=checkout, env=env, check=False)
    run_dir = checkout / RUN_DIR
    asked = load_config(SelfPlayConfig, run_dir / "config.yaml").iterations
    return MainJob(parse_time_report(time_file.read_text()), read_metrics(run_dir), asked)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the clone (its run folder, logs and venv)")
    add_save_option(parser)
    args = parser.parse_args()
    if not Path(TIME).exists():
        raise SystemExit(f"error: {TIME} is missing; install GNU time (apt-get install time)")
    workdir = Path(tempfile.mkdtemp(prefix="spade-main-job-"))
    checkout = workdir / "spade"
    try:
        commit = clone(checkout)
        print(f"main job of {commit[:12]} in {checkout}", file=sys.stderr, flush=True)
        job = run_main_job(checkout, fresh_environment(checkout))
        figures = report(job)
        if args.save:  # the commit that ran, not whatever HEAD is by the time it ends
            run = dataclasses.replace(run_of("bench_main_job", args.save, figures), commit=commit, dirty=False)
            print(f"saved {len(figures)} figures to {write_run(run)}")
    finally:
        if args.keep:
            print(f"kept {checkout}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
