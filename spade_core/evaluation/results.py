"""Run directories: per-task JSONL results, a summary, and comparing two runs.

Layout of a run directory (``spade eval --out DIR``)::

    DIR/summary.json          {"format": 1, "model": ..., "suites": {suite: SuiteSummary}, "files": {suite: file}}
    DIR/<suite>.jsonl         one TaskResult per line

Writing a suite into an existing run directory replaces that suite's file and summary entry and keeps the others,
so suites can be evaluated one at a time into the same directory.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from spade_core import linear_re
from spade_core.display import json_text, text
from spade_core.evaluation.errors import RunDirError
from spade_core.evaluation.runner import SuiteRun, SuiteSummary, TaskResult
from spade_core.evaluation.stats import Comparison, paired_comparison, two_proportion_z_test

SUMMARY_FILE = "summary.json"
FORMAT_VERSION = 1

_UNSAFE_NAME = linear_re.compile(r"[^A-Za-z0-9_.-]+")


def result_file_name(suite: str) -> str:
    """A file name for a suite's results (``jsonl:data/x.jsonl`` -> ``jsonl_data_x.jsonl.jsonl``)."""
    return _UNSAFE_NAME.sub("_", suite).strip("._") + ".jsonl"


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_suite_run(run: SuiteRun, out_dir: str | Path, *, extra: Mapping[str, Any] | None = None) -> Path:
    """Write one suite's per-task JSONL and merge its summary into ``out_dir/summary.json``; return the JSONL path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    name = result_file_name(run.suite)
    # ASCII JSON: a raw U+2028 or U+0085 in model text would split the line for str.splitlines() readers
    lines = "".join(json_text(r.to_dict()) + "\n" for r in run.results)
    _atomic_write(out / name, lines)
    summary_path = out / SUMMARY_FILE
    data: dict[str, Any] = {"format": FORMAT_VERSION, "model": run.model, "suites": {}, "files": {}, "stats": {}}
    if summary_path.exists():
        try:
            data = json.loads(summary_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise RunDirError(f"{summary_path} exists but is not readable JSON ({exc}); choose another --out") from exc
        if data.get("model") != run.model:
            data["model"] = f"{data.get('model')}, {run.model}"
    data.setdefault("suites", {})[run.suite] = run.summary.to_dict()
    data.setdefault("files", {})[run.suite] = name
    data.setdefault("stats", {})[run.suite] = run.stats
    data["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    if extra:
        data.setdefault("meta", {}).update(dict(extra))
    _atomic_write(summary_path, json.dumps(data, indent=2, sort_keys=True) + "\n")
    return out / name


@dataclass
class RunRecord:
    """A run directory read back: summaries and per-task results by suite."""

    path: Path
    model: str
    summaries: dict[str, SuiteSummary]
    results: dict[str, list[TaskResult]]


def read_run(path: str | Path) -> RunRecord:
    """Read a run directory written by :func:`write_suite_run`; :class:`RunDirError` says what is missing."""
    root = Path(path)
    summary_path = root / SUMMARY_FILE
    if not summary_path.is_file():
        raise RunDirError(
            f"{root} is not an evaluation run: {SUMMARY_FILE} is missing (write one with spade eval --out)"
        )
    try:
        data = json.loads(summary_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RunDirError(f"{summary_path} is not readable JSON: {exc}") from exc
    summaries: dict[str, SuiteSummary] = {}
    results: dict[str, list[TaskResult]] = {}
    for suite, summary in data.get("suites", {}).items():
        summaries[suite] = SuiteSummary.from_dict(summary)
        file = root / data.get("files", {}).get(suite, result_file_name(suite))
        if not file.is_file():
            raise RunDirError(f"{root}: the results of suite {suite!r} ({file.name}) are missing")
        rows = []
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(TaskResult.from_dict(json.loads(line)))
            except (json.JSONDecodeError, TypeError) as exc:
                raise RunDirError(f"{file}:{number}: not a task result ({exc})") from exc
        results[suite] = rows
    return RunRecord(root, str(data.get("model", "?")), summaries, results)


@dataclass(frozen=True)
class SuiteComparison:
    """One suite in both runs: B minus A."""

    suite: str
    comparison: Comparison


def compare_runs(run_a: str | Path | RunRecord, run_b: str | Path | RunRecord) -> list[SuiteComparison]:
    """Per-suite delta (B - A) with significance, for every suite present in both runs.

    When the runs share task ids (the usual case: same suite, same tasks) the comparison is paired on the shared
    tasks (exact McNemar p-value, paired-bootstrap interval); otherwise a two-proportion z-test.
    """
    a = run_a if isinstance(run_a, RunRecord) else read_run(run_a)
    b = run_b if isinstance(run_b, RunRecord) else read_run(run_b)
    common = [s for s in a.results if s in b.results]
    if not common:
        names_a, names_b = ", ".join(a.results) or "none", ", ".join(b.results) or "none"
        raise RunDirError(f"the runs share no suite ({names_a} vs {names_b})")
    out = []
    for suite in common:
        by_a = {r.task_id: r.success for r in a.results[suite]}
        by_b = {r.task_id: r.success for r in b.results[suite]}
        shared = [t for t in by_a if t in by_b]
        if shared:
            comparison = paired_comparison([by_a[t] for t in shared], [by_b[t] for t in shared])
        elif by_a and by_b:
            comparison = two_proportion_z_test(sum(by_a.values()), len(by_a), sum(by_b.values()), len(by_b))
        else:
            continue
        out.append(SuiteComparison(suite, comparison))
    return out


def summary_table(summaries: Iterable[SuiteSummary], title: str = "Evaluation") -> Any:
    """A rich table: one row per suite with success rate and its 95% interval, mean turns, format-error rate."""
    table = Table(title=text(title))
    table.add_column("suite", overflow="fold")
    for column in ("n", "success", "95% CI", "turns", "format err", "errors"):
        table.add_column(column, justify="right", no_wrap=True)
    for s in summaries:
        table.add_row(text(s.suite), str(s.n), f"{s.success_rate:.1%}", text(f"[{s.ci_low:.1%}, {s.ci_high:.1%}]"),
                      f"{s.mean_turns:.2f}", f"{s.format_error_rate:.1%}", str(s.errors))
    return table


def comparison_table(rows: Iterable[SuiteComparison], title: str = "B vs A") -> Any:
    """A rich table of per-suite deltas (B - A) with interval, p-value and the test used."""
    table = Table(title=text(title))
    table.add_column("suite", overflow="fold")
    for column in ("n", "A", "B", "B - A", "95% CI", "p", "test"):
        table.add_column(column, justify="right" if column != "test" else "left", no_wrap=True)
    for row in rows:
        c = row.comparison
        n = str(c.paired) if c.paired else f"{c.n_a}/{c.n_b}"
        mark = " *" if c.p_value < 0.05 else ""
        test = "McNemar" if c.paired else "z-test"
        table.add_row(text(row.suite), n, f"{c.rate_a:.1%}", f"{c.rate_b:.1%}", f"{c.delta:+.1%}{mark}",
                      text(f"[{c.ci_low:+.1%}, {c.ci_high:+.1%}]"), f"{c.p_value:.3g}", test)
    return table
