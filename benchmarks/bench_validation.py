"""Validation throughput with every stage on, where the time goes, and the gate's precision/recall per flaw class.

Four figures from one run:

1. candidates per second through the whole gate (every stage runs: a grounding document, the bundled seeds as the
   novelty memory and a scripted calibration probe are given), with ``--workers`` candidates at once, beside the
   same candidates through the gate with the sample sizes of the earlier, weaker checks (10 reference seeds, one
   seed per policy, no confirmation seeds) and beside bare reset+step episodes of a bundled environment;
2. the share of validation time per stage;
3. the probe's cost per candidate (a scripted capable reader; ``--probe-model SPEC`` times a real model too);
4. per flaw class of ``tests/validation/gate`` and ``tests/validation/invariants_corpus``: flawed environments
   rejected (recall), and the good twins of that class rejected (precision), plus every good environment
   (``--bundled`` adds every bundled seed).

    python benchmarks/bench_validation.py [--candidates 20] [--workers 2] [--bundled] [--probe-model SPEC]
                                          [--save [VARIANT]]
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
from saved_figures import Figure, add_save_option, keep, save_run

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("SPADE_STORE", str(Path(tempfile.mkdtemp(prefix="spade-bench-")) / "registry.sqlite3"))

import gymnasium as gym  # noqa: E402 - SPADE_STORE must be set before spade_core registers the store

import spade_core  # noqa: E402, F401 - registers the bundled environments
from spade_core.contract.env import HINT_OPTION  # noqa: E402
from spade_core.validation import ValidationConfig, validate_many  # noqa: E402
from spade_core.validation.calibration import PROBE_SECONDS  # noqa: E402
from spade_core.validation.probe import HIDDEN_TASK  # noqa: E402

GROUNDED = ROOT / "tests" / "validation" / "grounding_corpus"
SEED_ENV = GROUNDED / "grounded_pie_scaling.py"
"""The candidates' code: a task grounded in :data:`DOCUMENT` (its answers change with the document's figures), so
every candidate passes the grounding stage and runs every stage after it."""
GATE = ROOT / "tests" / "validation" / "gate"
INVARIANTS = ROOT / "tests" / "validation" / "invariants_corpus"
EVERY = ValidationConfig()
DOCUMENT = (GROUNDED / "pie_baking.txt").read_text(encoding="utf-8")
EARLIER_SAMPLES = ValidationConfig(seeds=tuple(range(10)), screen_seeds=1, baseline_episodes=0, determinism_seeds=1,
                                   hint_episodes=2, seat_games=10)
"""The earlier gate's sample sizes (10 reference seeds, no confirmation seeds) with today's checks."""


def hint_reader() -> Any:
    """A cheap, capable calibration probe: with the hint it plays the reference; without it, the reference on about
    half the seeds (a capable agent that solves some tasks alone); with the task hidden (hint-only) a fixed guess.
    Its rates (hinted 1, unhinted about 0.5, hint-only 0) pass every probe rule, so every candidate runs every
    stage."""
    hinted: dict[int, bool] = {}

    def policy(env: Any, obs: str, info: dict[str, Any]) -> str:
        if env.turn == 0:
            hinted[id(env)] = HINT_OPTION in info
        if obs == HIDDEN_TASK:
            return "\\boxed{0}"
        return env.reference_action() if hinted.get(id(env)) or len(obs) % 2 else "\\boxed{0}"

    return policy


def bare_episode_seconds(env_id: str, n: int = 200) -> float:
    """One reset plus reference-played steps of a bundled env, in-process, no sandbox."""
    env = gym.make(env_id).unwrapped
    started = time.perf_counter()
    for seed in range(n):
        env.reset(seed=seed)
        while True:
            _, _, terminated, truncated, _ = env.step(env.reference_action())
            if terminated or truncated:
                break
    return (time.perf_counter() - started) / n


def cpu_seconds() -> float:
    """CPU time of this process and every process below it (the sandbox launcher and its workers), those that
    have exited included (a process's ``children_*`` times are those of the children it reaped: the workers the
    launcher started and retired)."""
    me = psutil.Process()
    total = 0.0
    for proc in [me, *me.children(recursive=True)]:
        try:
            times = proc.cpu_times()
            total += times.user + times.system + times.children_user + times.children_system
        except psutil.Error:
            pass
    return total


@dataclass
class Run:
    rate: float  # candidates per wall-clock second
    cpu_per_candidate: float  # CPU seconds (host and sandbox workers) per candidate
    reports: list[Any]


def throughput(sources: list[tuple[str, str]], workers: int, **kwargs: Any) -> Run:
    started, cpu = time.perf_counter(), cpu_seconds()
    reports = validate_many(sources, workers=workers, **kwargs)
    wall, used = time.perf_counter() - started, cpu_seconds() - cpu
    return Run(len(reports) / wall, used / len(reports), reports)


def expectation(path: Path) -> str:
    match = re.match(r"# expect: (\S+)", path.read_text())
    return match.group(1) if match else "accepted"


def twin(path: Path) -> str | None:
    match = re.search(r"^# twin: (\S+)", path.read_text(), re.MULTILINE)
    return match.group(1) if match else None


@dataclass(frozen=True)
class ClassRow:
    """One flaw class of a corpus: its flawed members, those rejected and those rejected at their own stage, their
    good twins and the twins rejected (false rejects), and the flawed members the gate accepted."""

    name: str
    flawed: int
    rejected: int
    at_stage: int
    twins: int
    twins_rejected: int
    accepted_flawed: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClassTable:
    corpus: str  # its figure name: "gate" or "invariants"
    rows: list[ClassRow]
    good_accepted: int
    good: int
    seeds_accepted: int | None = None  # with --bundled: bundled seeds accepted, of ...
    seeds: int | None = None
    seeds_rejected: tuple[str, ...] = ()  # "env id: message"


def class_table(corpus: Path, workers: int, bundled: bool) -> ClassTable:
    flawed = sorted(p for p in corpus.glob("*/*.py") if p.parent.name != "good")
    good = sorted((corpus / "good").glob("*.py"))
    duplicates = [p for p in flawed if p.parent.name in ("duplicate", "rewritten")]  # judged against their twins
    sources = [(str(p), p.read_text()) for p in [*flawed, *good] if p not in duplicates]
    if bundled:
        from spade_core.gym_bridge import open_store
        from spade_registry.records import Status, Trust

        store = open_store()
        sources += [(r.env_id, store.get(r.env_id).code) for r in store.query(status=Status.ACCEPTED,
                                                                              trust=Trust.BUNDLED) if r.env_id]
    reports = {r.file: r for r in validate_many(sources, workers=workers)}
    if duplicates:  # a reworded copy is judged against a memory holding the environment it copies
        from spade_core.memory.behaviour import BehaviourIndex
        from spade_core.validation.pipeline import record_outcome
        from spade_registry.store import RegistryStore

        twins = RegistryStore(Path(tempfile.mkdtemp(prefix="spade-bench-twins-")) / "twins.sqlite3")
        for name in sorted({twin(p) for p in duplicates}):
            record_outcome(twins, (corpus / "good" / f"{name}.py").read_text(), reports[str(corpus / "good" /
                                                                                          f"{name}.py")])
        reports.update({r.file: r for r in validate_many([(str(p), p.read_text()) for p in duplicates],
                                                         workers=workers, memory=BehaviourIndex(twins))})
    good_rejected = {Path(f).stem for f, r in reports.items() if f.endswith(".py") and "/good/" in f
                     and not r.accepted}
    rows = []
    for cls in sorted({p.parent.name for p in flawed}):
        members = [p for p in flawed if p.parent.name == cls]
        twins_of = {twin(p) for p in members}
        rows.append(ClassRow(cls, len(members), sum(not reports[str(p)].accepted for p in members),
                             sum(reports[str(p)].failed_stage == expectation(p) for p in members), len(twins_of),
                             sum(t in good_rejected for t in twins_of),
                             tuple(p.name for p in members if reports[str(p)].accepted)))
    seeds = [f for f in reports if not f.endswith(".py")] if bundled else []
    return ClassTable("gate" if corpus == GATE else "invariants", rows, sum(reports[str(p)].accepted for p in good),
                      len(good), sum(reports[f].accepted for f in seeds) if bundled else None,
                      len(seeds) if bundled else None,
                      tuple(f"{f}: {reports[f].message.splitlines()[0][:160]}" for f in seeds
                            if not reports[f].accepted))


def show_classes(table: ClassTable) -> dict[str, Figure]:
    """Print recall and precision per class, the totals and the good environments accepted; the figures as printed,
    named ``<corpus>_<class>_recall`` and so on."""
    figures: dict[str, Figure] = {}
    c = table.corpus
    print(f"\nper-class precision/recall on the {c} corpus ({sum(r.flawed for r in table.rows)} flawed, {table.good} "
          "good twins):")
    print(f"{'class':<18} {'flawed':>6} {'rejected':>8} {'at stage':>8} {'twins':>5} {'twins rej.':>10} "
          f"{'recall':>7} {'precision':>9}")
    for row in table.rows:
        recall = keep(figures, f"{c}_{row.name}_recall", 100 * row.rejected / row.flawed, 0, "%")
        precision = (100 * row.rejected / (row.rejected + row.twins_rejected)
                     if row.rejected or row.twins_rejected else 100.0)
        print(f"{row.name:<18} {row.flawed:>6} {row.rejected:>8} {row.at_stage:>8} {row.twins:>5} "
              f"{row.twins_rejected:>10} {recall:>7} {keep(figures, f'{c}_{row.name}_precision', precision, 0, '%'):>9}")
        for name in row.accepted_flawed:
            print(f"    accepted but flawed: {name}")
    flawed, rejected = sum(r.flawed for r in table.rows), sum(r.rejected for r in table.rows)
    print(f"{'all flawed':<18} {keep(figures, f'{c}_flawed', flawed, 0):>6} {keep(figures, f'{c}_rejected', rejected, 0):>8} "
          f"{sum(r.at_stage for r in table.rows):>8}{'':>17} "
          f"{keep(figures, f'{c}_recall', 100 * rejected / max(1, flawed), 0, '%'):>7}")
    print(f"good twins accepted: {keep(figures, f'{c}_good_accepted', table.good_accepted, 0)} of "
          f"{keep(figures, f'{c}_good', table.good, 0)}")
    if table.seeds is not None:
        print(f"bundled seed environments accepted: {keep(figures, 'seeds_accepted', table.seeds_accepted or 0, 0)} "
              f"of {keep(figures, 'seeds', table.seeds, 0)}")
        for line in table.seeds_rejected:
            print(f"    rejected: {line}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--bundled", action="store_true", help="add every bundled seed to the good set")
    parser.add_argument("--no-table", action="store_true", help="only the throughput figures")
    parser.add_argument("--probe-model", default=None, metavar="MODEL",
                        help="also time a real probe model (any model spec) on 3 candidates")
    add_save_option(parser)
    args = parser.parse_args()

    from spade_core.gym_bridge import open_store
    from spade_core.memory.behaviour import BehaviourIndex

    memory = BehaviourIndex(open_store())
    base = SEED_ENV.read_text()
    # distinct candidates (different code => different content hash), same behaviour
    sources = [(f"candidate_{i}", base + f"\n\nVARIANT = {i}\n") for i in range(args.candidates)]
    everything = {"document": DOCUMENT, "probe": hint_reader(), "memory": memory, "store": open_store()}
    validate_many(sources[:1], workers=1, **everything)  # warm the sandbox pool and the memory index
    full = throughput(sources, args.workers, **everything)
    earlier = throughput(sources, args.workers, config=EARLIER_SAMPLES, **everything)
    episode = bare_episode_seconds("spade/ArithmeticChain-v0")
    reports = full.reports
    figures = show_throughput(full, earlier, episode, min(2, os.cpu_count() or 1), args.workers)
    per_stage: dict[str, float] = defaultdict(float)
    for report in reports:
        for stage in report.stages:
            per_stage[stage.stage] += stage.seconds
    figures |= show_stages(per_stage, len(reports))
    probe_seconds = [float(s.details.get(PROBE_SECONDS, 0.0)) for r in reports for s in r.stages
                     if s.stage == "calibration" and not s.skipped]
    if probe_seconds:
        probe = keep(figures, "probe_ms", sum(probe_seconds) / len(probe_seconds) * 1e3, 0, " ms")
        print(f"\nprobe (scripted capable reader, 3 arms x {EVERY.probe.episodes} seeds): {probe} per candidate")
    if args.probe_model:
        from spade_core.validation.calibration import probe_from_spec

        model = probe_from_spec(args.probe_model)
        started = time.perf_counter()
        timed = validate_many(sources[:3], workers=1, probe=model, document=DOCUMENT)
        spent = [float(s.details.get(PROBE_SECONDS, 0.0)) for r in timed for s in r.stages if s.stage == "calibration"]
        print(f"probe model {args.probe_model}: "
              f"{keep(figures, 'probe_model_s', sum(spent) / max(1, len(spent)), 1, ' s')} of model play per candidate "
              f"({len(timed)} candidates, {time.perf_counter() - started:.1f} s in all; verdicts: "
              f"{', '.join(r.failed_stage or 'accepted' for r in timed)})")
    if not args.no_table:
        for corpus in (GATE, INVARIANTS):
            figures |= show_classes(class_table(corpus, args.workers, args.bundled and corpus == GATE))
    if args.save:
        save_run("bench_validation", args.save, figures)


def show_throughput(full: Run, earlier: Run, episode_s: float, cores: int, workers: int) -> dict[str, Figure]:
    """Print the candidates accepted, then candidates per second with every stage beside the earlier sample sizes
    and bare episodes (the baselines); the figures as printed."""
    figures: dict[str, Figure] = {}
    skipped = sorted({s.stage for r in full.reports for s in r.stages if s.skipped})
    print(f"validated {keep(figures, 'candidates', len(full.reports), 0)} candidates "
          f"({keep(figures, 'accepted', sum(r.accepted for r in full.reports), 0)} accepted; stages skipped: "
          f"{', '.join(skipped) or 'none'}) with {workers} workers; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    print(f"{'figure':<60} {'every stage':>11} {'earlier sizes':>13}  target")
    for label, key, now, then, decimals, unit in (
            ("candidates per second (wall clock, as measured)", "candidates_per_s", full.rate, earlier.rate, 2, " /s"),
            ("CPU seconds per candidate (host + sandbox workers)", "cpu_s_per_candidate", full.cpu_per_candidate,
             earlier.cpu_per_candidate, 3, " CPU s"),
            (f"candidates per second the CPU work allows on {cores} cores", "cpu_bound_per_s",
             cores / full.cpu_per_candidate, cores / earlier.cpu_per_candidate, 1, " /s")):
        print(f"{label:<60} {keep(figures, key, now, decimals, unit):>11} "
              f"{keep(figures, f'{key}_earlier', then, decimals, unit):>13}")
    print(f"{'baseline: bare reset+step episodes per second (in-process)':<60} "
          f"{keep(figures, 'bare_episodes_per_s', 1 / episode_s, 0, ' /s'):>11}")
    return figures


def show_stages(per_stage: dict[str, float], candidates: int) -> dict[str, Figure]:
    """Print each stage's share of validation time, largest first; the figures as printed (``share_<stage>``)."""
    figures: dict[str, Figure] = {}
    total = sum(per_stage.values()) or 1.0
    print("\nshare of validation time per stage (every stage on):")
    for stage, seconds in sorted(per_stage.items(), key=lambda kv: -kv[1]):
        share = keep(figures, f"share_{stage}", 100 * seconds / total, 1, "%")
        print(f"  {stage:<16} {share:>6}  ({seconds / candidates * 1e3:.1f} ms per candidate)")
    return figures

if __name__ == "__main__":
    main()
