"""The README's benchmark rows tied to their saved runs: each table row under ``## Benchmarks`` names its source in an
HTML comment, either a results file and the figure keys it shows,

    | `bench_x.py`: what it measures <!-- source: bench_x-default.json p50_us steps_per_s --> | 59.4 µs | ... |

and each named figure's text (:attr:`saved_figures.Figure.text`) must appear in the row. A row without a saved run
has no source: every figure in the table comes from a run kept under ``benchmarks/results/``.

    python benchmarks/readme_figures.py     # the problems (exit 1 when there are any)
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from saved_figures import RESULTS_DIR, SavedRun, load_run

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "## Benchmarks"
SOURCE = re.compile(r"<!--\s*source:\s*(.*?)\s*-->")
SAVED = re.compile(r"([a-z0-9_]+-[a-z0-9_]+\.json)((?:\s+[a-z0-9_]+)+)")


@dataclass(frozen=True)
class SavedSource:
    file_name: str
    keys: tuple[str, ...]


@dataclass(frozen=True)
class Row:
    line: int  # 1-based line of the README
    text: str  # the row without its source comment
    source: SavedSource | None

    @property
    def title(self) -> str:
        return self.text.strip("| ").split("|")[0].strip()[:80]


@dataclass(frozen=True)
class Check:
    problems: list[str]


def benchmark_rows(readme: str) -> list[Row]:
    """Every table row of the ``## Benchmarks`` section but the header and its rule."""
    lines = readme.splitlines()
    if SECTION not in lines:
        raise ValueError(f"the README has no line {SECTION!r}; the benchmark table lives under that heading")
    start = lines.index(SECTION) + 1
    rows, table_line = [], 0
    for number, line in enumerate(lines[start:], start + 1):
        if line.startswith("## "):
            break
        if not line.startswith("|"):
            table_line = 0
            continue
        table_line += 1
        if table_line > 2:  # the header and the |---| rule come first
            rows.append(_row(number, line))
    return rows


def _row(number: int, line: str) -> Row:
    found = SOURCE.search(line)
    text = SOURCE.sub("", line)
    if found is None:
        return Row(number, text, None)
    if saved := SAVED.fullmatch(found.group(1)):
        return Row(number, text, SavedSource(saved.group(1), tuple(saved.group(2).split())))
    return Row(number, text, None)


def check(readme: str, results: Path = RESULTS_DIR) -> Check:
    problems: list[str] = []
    runs: dict[str, SavedRun] = {}
    for row in benchmark_rows(readme):
        where = f"README line {row.line} ({row.title})"
        if row.source is None:
            problems.append(f"{where}: no source; end its first cell with <!-- source: FILE.json KEY ... --> "
                            "naming the saved run (benchmarks/results/) and the figures the row shows")
        else:
            problems.extend(f"{where}: {p}" for p in _saved_problems(row, row.source, results, runs))
    return Check(problems)


def _saved_problems(row: Row, source: SavedSource, results: Path, runs: dict[str, SavedRun]) -> list[str]:
    path = results / source.file_name
    if source.file_name not in runs:
        if not path.is_file():
            return [f"names {path.name}, which is not in {results}; run the benchmark with --save"]
        try:
            runs[source.file_name] = load_run(path)
        except ValueError as exc:
            return [str(exc)]
    run = runs[source.file_name]
    problems = []
    for key in source.keys:
        if key not in run.figures:
            problems.append(f"names figure {key!r}, which {path.name} does not hold (it holds "
                            f"{', '.join(sorted(run.figures)) or 'none'})")
        elif not says(row.text, run.figures[key].text):
            problems.append(f"{key} is {run.figures[key].text} in {path.name} (saved {run.date}), "
                            "which the row does not say; copy the saved figure into the row")
    return problems


def says(text: str, figure: str) -> bool:
    """Whether ``text`` shows ``figure`` as a number of its own (1.3 s is not said by 11.3 s or 1.35 s)."""
    return re.search(rf"(?<![\d.,]){re.escape(figure)}(?![\d])", text) is not None


def main() -> int:
    result = check(README.read_text())
    for problem in result.problems:
        print(problem)
    return 1 if result.problems else 0


def quiet_when_piped_off() -> None:
    """After a reader such as ``head`` closes stdout early: point stdout at /dev/null, so that Python's final flush
    does not report the closed pipe (the lines the reader wanted were written)."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_when_piped_off()
        code = 0
    sys.exit(code)
