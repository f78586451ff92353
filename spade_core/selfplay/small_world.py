"""The small world's comparison before the LLM loop (``small_world.enabled``): the objective at work where a model
can learn in minutes.

A model too small to design or solve leaves the LLM loop's curves flat, which says nothing about the objective. So
the run first plays the small world (:mod:`spade_core.smallworld`: every real part of SPADE but the model's size):
each arm of ``small_world.arms`` (by default the defended designer and a fixed pool) for ``small_world.iterations``
iterations on ``small_world.seeds`` seeds, from one format-trained tiny policy. Its records land in
``<run_dir>/small_world/records.json`` (:data:`~spade_core.selfplay.records.SMALL_WORLD_RECORDS`) with a plot beside them, and the report shows them above the LLM loop's.
A resumed run that already has them does not play them again. Under a deadline (the run's time budget gives the small
world its part, :mod:`spade_core.selfplay.budget`) no arm's run starts past it: the records hold the runs that were
played (none: no records, and a resumed run plays it again).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from spade_core.deadlines import NO_DEADLINE, Deadline
from spade_core.selfplay.config import SmallWorldSection
from spade_core.selfplay.records import SMALL_WORLD_PLOT, SMALL_WORLD_RECORDS, atomic_write
from spade_core.smallworld.policy import build_policy
from spade_core.smallworld.summary import Run, plot
from spade_core.smallworld.world import ARMS, DESIGNED_ARMS, WorldConfig, run_world


def run_comparison(section: SmallWorldSection, run_dir: Path, progress: Callable[[str], None] = lambda phase: None,
                   *, deadline: Deadline = NO_DEADLINE) -> dict[str, list[Run]]:
    """Play every arm on every seed until ``deadline`` (or read what an earlier start of this run left); returns
    the runs by arm (only arms that were played)."""
    path = Path(run_dir) / SMALL_WORLD_RECORDS
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8"))
    unknown = [arm for arm in section.arms if arm not in ARMS]
    if unknown:
        raise ValueError(f"small_world.arms: {unknown} unknown; the arms are {list(ARMS)}")
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    progress("small world: teaching the tiny policy the formats")
    policy = build_policy(folder / "policy", seed=0)
    runs: dict[str, list[Run]] = {arm: [] for arm in section.arms}
    for seed in range(section.seeds):
        for arm in section.arms:
            if deadline.expired():
                break
            progress(f"small world: {arm}, seed {seed}")
            work = folder / f"{arm}-{seed}"
            runs[arm].append(run_world(WorldConfig(arm=arm, seed=seed, iterations=section.iterations), policy, work))
            shutil.rmtree(work, ignore_errors=True)  # its registry store and trainer state: the records are kept
    runs = {arm: played for arm, played in runs.items() if played}
    if not runs:
        return runs
    plot(runs, Path(run_dir) / SMALL_WORLD_PLOT, designers=[arm for arm in runs if arm in DESIGNED_ARMS])
    atomic_write(path, json.dumps(runs))
    return runs
