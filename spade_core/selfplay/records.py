"""What a self-play run leaves in its run directory: the config, ``metrics.jsonl``, checkpoints, TensorBoard events,
the designer's code of every candidate and the transcripts the report shows.

Layout (relative to the run directory)::

    config.yaml                      the run's whole config (written once; --resume reads it)
    metrics.jsonl                    one IterationMetrics per finished iteration (spade_core.selfplay.metrics)
    checkpoints/iter-NNNNN/          the latest finished iteration: weights, optimiser, RNG and loop state
    tensorboard/                     scalars of every iteration
    designs/iter-NNNNN/cK-aJ.py      candidate K's attempt J (``.txt``: a completion with no code extracted)
    transcripts/iter-NNNNN/*.txt     the example episodes of the report, as text
    errors.log                       the traceback of every failed phase; its metrics line says where it starts
    registry.sqlite3                 the run's registry store, unless the config's store points at another
    small_world/records.json         the small world's comparison before the LLM loop (small_world.enabled), and
    small_world/small_world.png      its plot (spade_core.selfplay.small_world)
    report.html                      written by spade_core.selfplay.report
"""

from __future__ import annotations

import logging
import os
import shutil
import traceback
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import yaml

from spade_core import linear_re
from spade_core.selfplay.metrics import METRICS_FILE, IterationMetrics

CONFIG_FILE = "config.yaml"
CHECKPOINT_DIR = "checkpoints"
TENSORBOARD_DIR = "tensorboard"
DESIGNS_DIR = "designs"
TRANSCRIPTS_DIR = "transcripts"
ERRORS_FILE = "errors.log"
RUN_STORE_FILE = "registry.sqlite3"
SMALL_WORLD_RECORDS = "small_world/records.json"
SMALL_WORLD_PLOT = "small_world/small_world.png"
_UNSAFE_NAME = linear_re.compile(r"[^A-Za-z0-9._-]+")
log = logging.getLogger(__name__)


class Checkpointable(Protocol):
    """What the records need of a trainer: save and load whole checkpoints with the loop's state."""

    def save(self, path: Path, *, loop_state: Mapping[str, Any]) -> None: ...

    def load(self, path: Path) -> Mapping[str, Any]: ...


class ScalarWriter(Protocol):
    def add_scalar(self, tag: str, value: float, step: int) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


def iteration_dir_name(iteration: int) -> str:
    return f"iter-{iteration:05d}"


def safe_file_name(text: str, limit: int = 80) -> str:
    """``text`` as one safe path component (no separators, no dot-only names)."""
    cleaned = _UNSAFE_NAME.sub("_", text).strip("._")[:limit]
    return cleaned or "unnamed"


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader sees the old file or the whole new one."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def set_aside(run_dir: Path) -> Path | None:
    """Move an earlier run out of ``run_dir`` (``--fresh``) to ``<run_dir>-<UTC time>``, nothing deleted; returns
    where it went (None: there was nothing to move)."""
    run_dir = Path(run_dir)
    if not run_dir.exists() or not any(run_dir.iterdir()):
        return None
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    target = run_dir.with_name(f"{run_dir.name}-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = run_dir.with_name(f"{run_dir.name}-{stamp}-{n}")
    run_dir.rename(target)
    return target


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The newest finished iteration's checkpoint (each ``iter-N`` folder appears only once complete)."""
    found = sorted((Path(run_dir) / CHECKPOINT_DIR).glob("iter-[0-9]*"))
    return found[-1] if found else None


class RunRecords:
    """Writes and reads the run directory's records (see the module docstring for the layout)."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self._tensorboard: ScalarWriter | None = None

    # -- config -----------------------------------------------------------------------------------------------
    def write_config_once(self, config: Mapping[str, Any]) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        path = self.run_dir / CONFIG_FILE
        if not path.exists():
            atomic_write(path, yaml.safe_dump(dict(config), sort_keys=False))

    # -- metrics ----------------------------------------------------------------------------------------------
    def rewrite_metrics(self, history: list[IterationMetrics]) -> None:
        """``metrics.jsonl`` holding exactly ``history`` (on start and resume: the checkpoint's finished iterations)."""
        atomic_write(self.run_dir / METRICS_FILE, "".join(m.to_json() + "\n" for m in history))

    def append_metrics(self, metrics: IterationMetrics) -> None:
        with open(self.run_dir / METRICS_FILE, "a", encoding="utf-8") as handle:
            handle.write(metrics.to_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    # -- checkpoints ------------------------------------------------------------------------------------------
    def save_checkpoint(self, trainer: Checkpointable, iteration: int, loop_state: Mapping[str, Any]) -> Path:
        """The trainer's checkpoint of ``iteration`` under a new name (it appears whole or not at all); older
        checkpoints are removed once it exists."""
        root = self.run_dir / CHECKPOINT_DIR
        root.mkdir(exist_ok=True)
        name = iteration_dir_name(iteration)
        trainer.save(root / name, loop_state=loop_state)
        for old in root.glob("iter-*"):
            if old.name != name:
                shutil.rmtree(old, ignore_errors=True)
        return root / name

    def latest_checkpoint(self) -> Path | None:
        return latest_checkpoint(self.run_dir)

    # -- TensorBoard ------------------------------------------------------------------------------------------
    def open_tensorboard(self) -> None:
        from torch.utils.tensorboard import SummaryWriter  # torch: only a run that trains gets here

        self._tensorboard = SummaryWriter(str(self.run_dir / TENSORBOARD_DIR))

    def write_scalars(self, metrics: IterationMetrics) -> None:
        if self._tensorboard is None:
            return
        for tag, value in metrics.scalars().items():
            self._tensorboard.add_scalar(tag, float(value), metrics.iteration)
        self._tensorboard.flush()

    def close(self) -> None:
        if self._tensorboard is not None:
            self._tensorboard.close()
            self._tensorboard = None

    # -- failures -------------------------------------------------------------------------------------------------
    def record_failure(self, iteration: int, phase: str, error: BaseException) -> str:
        """Append ``error``'s traceback to ``errors.log`` (under a header naming the iteration and the phase), log
        it, and return the line the iteration's metrics keep: the phase, the error, and where its traceback starts."""
        path, line = self.write_traceback(iteration, phase, error)
        log.error("iteration %d: %s failed (%s:%d)", iteration, phase, path, line, exc_info=error)
        return f"{phase}: {type(error).__name__}: {error} (traceback: {ERRORS_FILE}:{line})"

    def write_traceback(self, iteration: int, phase: str, error: BaseException) -> tuple[Path, int]:
        """Append ``error``'s traceback to ``errors.log``; returns the file and the line its entry starts on."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        path = self.run_dir / ERRORS_FILE
        when = datetime.now(UTC).isoformat(timespec="seconds")
        entry = f"== iteration {iteration} | {phase} | {when} ==\n{''.join(traceback.format_exception(error))}\n"
        with open(path, "a+", encoding="utf-8", errors="backslashreplace") as handle:
            handle.seek(0)
            line = sum(1 for _ in handle) + 1
            handle.write(entry)
        return path, line

    # -- designs and transcripts ------------------------------------------------------------------------------
    def write_design(self, iteration: int, candidate: int, attempt: int, text: str, *, is_code: bool) -> str:
        """Save one attempt's code (or its raw completion); returns its path relative to the run directory."""
        folder = self.run_dir / DESIGNS_DIR / iteration_dir_name(iteration)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"c{candidate}-a{attempt}.{'py' if is_code else 'txt'}"
        atomic_write(path, text)
        return path.relative_to(self.run_dir).as_posix()

    def write_transcript(self, iteration: int, name: str, text: str) -> str:
        """Save one episode's transcript; returns its path relative to the run directory."""
        folder = self.run_dir / TRANSCRIPTS_DIR / iteration_dir_name(iteration)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{safe_file_name(name)}.txt"
        atomic_write(path, text)
        return path.relative_to(self.run_dir).as_posix()
