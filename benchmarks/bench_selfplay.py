"""Self-play on the embedded defaults: peak RSS, iterations finished within the time budget, and the time split.

Runs ``spade selfplay`` in this process with the default config (or ``--tiny``: a locally built tiny model) and
``--set`` overrides, then prints

- peak RSS of this process (what ``/usr/bin/time -v`` reports for the main job), beside the trainer's irreducible
  state (fp32 weights + gradients + two AdamW moments) and the 4 GB target, then the peak of each phase (loading,
  designing, agent rollouts, policy update; sampled every 50 ms);
- iterations finished within ``time_budget_minutes`` (target >= 3), beside the iterations asked for;
- per iteration: generate / train / validate / other seconds and the overhead share (validate + other; target
  <= 10%), the designer update's seconds and its first-update importance ratio and clip fraction (on-policy: ratio 1,
  clip 0).

    python benchmarks/bench_selfplay.py [--config configs/cpu-demo.yaml] [--tiny] [--set KEY=VALUE ...] [--save [VARIANT]]

The default config is the main job's (``scripts/main.sh`` runs ``configs/cpu-demo.yaml``). Wall-clock figures need
a quiet machine; the per-iteration CPU seconds (user + system of this process) are printed beside them.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from saved_figures import Figure, add_save_option, keep, save_run

from spade_core.selfplay.config import SelfPlayConfig
from spade_core.selfplay.loop import SelfPlay
from spade_core.selfplay.metrics import IterationMetrics, read_metrics
from spade_core.typed_config import load_config

MAIN_JOB_CONFIG = Path(__file__).resolve().parents[1] / "configs" / "cpu-demo.yaml"
RSS_TARGET_GB = 4.0
ITERATIONS_TARGET = 3


def peak_rss_gb() -> tuple[float, float]:
    """Peak RSS of this process and of its largest finished child (Linux reports KiB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    return own, children


class PhasePeaks:
    """Peak resident memory of this process per self-play phase, sampled every ``interval`` seconds."""

    def __init__(self, interval: float = 0.05) -> None:
        self.phase = "loading the model"
        self.peaks: dict[str, float] = {}
        self._interval = interval
        self._stop = threading.Event()
        self._page = os.sysconf("SC_PAGE_SIZE")
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> PhasePeaks:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(self._interval):
            with open("/proc/self/statm") as statm:
                rss = int(statm.read().split()[1]) * self._page / 2**30
            self.peaks[self.phase] = max(self.peaks.get(self.phase, 0.0), rss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(MAIN_JOB_CONFIG), help="self-play config (default: the main job's)")
    parser.add_argument("--tiny", action="store_true", help="use a tiny random model instead of SmolLM2")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a config override")
    add_save_option(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        overrides = [f"run_dir={tmp}/run", f"store={tmp}/store.sqlite3", *args.set]
        if args.tiny:
            from spade_core.models.tiny import build_tiny_model

            overrides += [f"model.spec={build_tiny_model(Path(tmp) / 'tiny')}", "designer.worked_example=false",
                          "memory.embedder=hashing"]
        config = load_config(SelfPlayConfig, args.config or None, overrides)
        started, cpu = time.perf_counter(), time.process_time()

        def progress(phase: str, iteration: int, iterations: int, eta: float | None) -> None:
            peaks.phase = phase.split(" (")[0]
            print(f"[{time.perf_counter() - started:7.1f} s wall, {time.process_time() - cpu:7.1f} s CPU] "
                  f"iteration {iteration}/{iterations}: {phase}", file=sys.stderr, flush=True)

        with PhasePeaks() as peaks:
            loop = SelfPlay(config, progress=progress)
            loop.run()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        state_gb = _training_state_gb(loop)
        metrics = read_metrics(Path(tmp) / "run")
    own, children = peak_rss_gb()
    figures = report(Outcome(own, children, state_gb, dict(peaks.peaks), len(metrics), config.iterations, wall, cpu,
                             config.time_budget_minutes))
    figures |= report_iterations(metrics)
    if args.save:
        save_run("bench_selfplay", args.save, figures)


@dataclass(frozen=True)
class Outcome:
    """What one self-play run used and finished."""

    peak_rss_gb: float  # this process
    child_rss_gb: float  # its largest finished child process
    state_gb: float  # the trainer's fp32 weights, gradients and AdamW moments
    phase_peaks_gb: dict[str, float]
    iterations: int  # finished
    asked: int  # iterations the config asks for
    wall_s: float
    cpu_s: float  # this process
    budget_min: float


def report(outcome: Outcome) -> dict[str, Figure]:
    """Print peak RSS beside the trainer's state and the iterations finished beside those asked for; the figures as
    printed."""
    figures: dict[str, Figure] = {}
    print(f"peak RSS: {keep(figures, 'peak_rss_gb', outcome.peak_rss_gb, 2, ' GB')} (largest child process "
          f"{outcome.child_rss_gb:.2f} GB); trainer state (weights + gradients + AdamW moments, fp32) "
          f"{keep(figures, 'state_gb', outcome.state_gb, 2, ' GB')}; target <= {RSS_TARGET_GB:.0f} GB")
    print("peak RSS by phase (sampled every 50 ms): " + "; ".join(f"{phase} {gb:.2f} GB"
                                                                 for phase, gb in outcome.phase_peaks_gb.items()))
    print(f"iterations finished: {keep(figures, 'iterations', outcome.iterations, 0)} of {outcome.asked} in "
          f"{keep(figures, 'wall_min', outcome.wall_s / 60, 1, ' min')} (budget {outcome.budget_min:g} min; "
          f"{keep(figures, 'cpu_min', outcome.cpu_s / 60, 1, ' CPU-min')} in this process); target >= "
          f"{ITERATIONS_TARGET}")
    return figures


def report_iterations(metrics: list[IterationMetrics]) -> dict[str, Figure]:
    """Print each iteration's time split and its designer update; the figures as printed (``iteration_<n>_s`` and
    its ``_generate_s`` and ``_train_s``)."""
    figures: dict[str, Figure] = {}
    print(f"{'iteration':>9} {'total s':>9} {'generate':>9} {'train':>8} {'validate':>9} {'other':>8} "
          f"{'overhead':>9} {'designer update s':>18} {'ratio':>7} {'clip':>6}")
    for m in metrics:
        t, n = m.time, m.iteration
        overhead = (t.validate + t.other) / t.total if t.total else 0.0
        designer = m.train.designer.metrics if m.train.designer else {}
        clip = designer.get("clip_frac_low", 0.0) + designer.get("clip_frac_high", 0.0)
        print(f"{n:>9} {keep(figures, f'iteration_{n}_s', t.total, 1):>9} "
              f"{keep(figures, f'iteration_{n}_generate_s', t.generate, 1):>9} "
              f"{keep(figures, f'iteration_{n}_train_s', t.train, 1):>8} {t.validate:>9.1f} "
              f"{t.other:>8.1f} {overhead:>9.1%} {designer.get('seconds', 0.0):>18.1f} "
              f"{designer.get('ratio_mean', float('nan')):>7.3f} {clip:>6.3f}")
    print("overhead target <= 10% (baseline: generation + optimiser time of the same run)")
    return figures


def _training_state_gb(loop: SelfPlay) -> float:
    """fp32 weights, gradients and AdamW's two moments of the trained parameters (4 copies x 4 bytes)."""
    model = getattr(loop.parts.trainer, "model", None) if loop.parts is not None else None
    if model is None:
        return 0.0
    count = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return 4 * 4 * count / 2**30


if __name__ == "__main__":
    main()
