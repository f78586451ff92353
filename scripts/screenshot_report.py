"""Render a self-play run's ``report.html`` in headless Chromium and save a PNG, to look at the report as a reader
would (layout, plots, escaping) without a desktop.

    python scripts/screenshot_report.py runs/selfplay [--out report.png] [--width 1200] [--height 4000]

Needs a Chromium or Chrome binary (``apt-get install -y chromium``; or pass ``--browser PATH``). The report is
rewritten from ``metrics.jsonl`` first, so the screenshot shows what the current code makes of the run.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from spade_core.selfplay.report import write_report

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser(explicit: str | None) -> str:
    for name in ([explicit] if explicit else BROWSERS):
        found = shutil.which(name) if name else None
        if found:
            return found
    raise SystemExit(f"no browser found (tried {', '.join([explicit] if explicit else BROWSERS)}); "
                     "install one with: apt-get install -y chromium, or pass --browser PATH")


def screenshot(report: Path, out: Path, *, browser: str, width: int, height: int, timeout_s: float = 120) -> Path:
    with tempfile.TemporaryDirectory(prefix="spade-chromium-") as profile:
        command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                   f"--user-data-dir={profile}", f"--window-size={width},{height}", f"--screenshot={out}",
                   report.resolve().as_uri()]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    if done.returncode != 0 or not out.exists():
        raise SystemExit(f"{browser} exited with {done.returncode} and wrote no screenshot:\n{done.stderr[-2000:]}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="PNG path (default: RUN_DIR/report.png)")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=4000)
    parser.add_argument("--browser", default=None)
    args = parser.parse_args(argv)
    if not (args.run_dir / "metrics.jsonl").exists():
        raise SystemExit(f"{args.run_dir} has no metrics.jsonl: pass the run directory of a self-play run")
    report = write_report(args.run_dir)
    out = screenshot(report, args.out or args.run_dir / "report.png", browser=find_browser(args.browser),
                     width=args.width, height=args.height)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
