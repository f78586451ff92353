"""The README's benchmark figures have one source: every row of its benchmark table names the saved run it shows
(``benchmarks/results/``) and says each named figure as saved; a saved run reads back as written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))

from readme_figures import README, check, says  # noqa: E402
from saved_figures import RESULTS_DIR, Figure, SavedRun, load_run, save_run, write_run  # noqa: E402

HEADER = "## Benchmarks\n\n| benchmark | figure | baseline | target |\n|---|---|---|---|\n"


def table(*rows: str) -> str:
    return HEADER + "".join(f"{row}\n" for row in rows) + "\n## Next\n"


@pytest.fixture
def results(tmp_path: Path) -> Path:
    save_run("bench_x", "default", {"p50_us": Figure(59.4, 1, " µs"), "steps": Figure(42000, 0, " steps/s")},
             folder=tmp_path)
    return tmp_path


def test_the_readme_figures_agree_with_their_saved_runs() -> None:
    result = check(README.read_text())
    assert result.problems == []


def test_every_results_file_reads_back() -> None:
    for path in sorted(RESULTS_DIR.glob("*.json")):
        run = load_run(path)
        assert run.figures, f"{path.name} saves no figures"


def test_a_row_saying_its_saved_figures_passes(results: Path) -> None:
    row = "| `bench_x.py`: step <!-- source: bench_x-default.json p50_us steps --> | 59.4 µs; 42,000 steps/s | - | - |"
    assert check(table(row), results).problems == []


def test_a_row_disagreeing_with_its_saved_output_fails(results: Path) -> None:
    row = "| `bench_x.py`: step <!-- source: bench_x-default.json p50_us --> | 61.0 µs | - | - |"
    (problem,) = check(table(row), results).problems
    assert "p50_us is 59.4 µs in bench_x-default.json" in problem


def test_a_row_naming_a_missing_output_fails(results: Path) -> None:
    row = "| `bench_y.py`: step <!-- source: bench_y-default.json p50_us --> | 59.4 µs | - | - |"
    (problem,) = check(table(row), results).problems
    assert "names bench_y-default.json, which is not in" in problem


def test_a_row_naming_a_figure_its_output_lacks_fails(results: Path) -> None:
    row = "| `bench_x.py`: step <!-- source: bench_x-default.json p99_us --> | 59.4 µs | - | - |"
    (problem,) = check(table(row), results).problems
    assert "names figure 'p99_us'" in problem and "holds p50_us, steps" in problem


def test_a_row_without_a_source_fails(results: Path) -> None:
    rows = ("| `bench_x.py`: step | 59.4 µs | - | - |",
            "| `bench_x.py`: step <!-- source: somewhere --> | 59.4 µs | - | - |")
    problems = check(table(*rows), results).problems
    assert len(problems) == 2 and all("no source" in p for p in problems)


def test_a_row_with_a_date_instead_of_a_saved_run_has_no_source(results: Path) -> None:
    old = "| `bench_x.py`: step <!-- source: measured before saved outputs existed (2026-12-02) --> | 33 µs | - | - |"
    (problem,) = check(table(old), results).problems
    assert problem.startswith("README line 5") and "no source" in problem and "FILE.json" in problem


def test_a_results_file_renamed_or_damaged_is_refused(results: Path) -> None:
    (results / "bench_x-default.json").rename(results / "bench_x-other.json")
    with pytest.raises(ValueError, match="saves as bench_x-default.json"):
        load_run(results / "bench_x-other.json")
    damaged = results / "bench_z-default.json"
    damaged.write_text(json.dumps({"schema": 1, "benchmark": "bench_z"}))
    row = "| `bench_z.py`: step <!-- source: bench_z-default.json p50_us --> | 59.4 µs | - | - |"
    (problem,) = check(table(row), results).problems
    assert "not a saved benchmark run" in problem


figures = st.dictionaries(
    st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True),
    st.builds(Figure, st.floats(-1e9, 1e9, allow_nan=False), st.integers(0, 4), st.sampled_from(["", " s", " µs", "%"])),
    max_size=5,
)


def run_with(figures: dict[str, Figure]) -> SavedRun:
    return SavedRun("bench_h", "default", ("python", "bench_h.py", "--save"), "2026-12-06T12:00:00+00:00",
                    (1.5, 1.0, 0.5), 2, "0" * 40, False, figures)


def test_save_run_records_the_command_load_and_commit(results: Path) -> None:
    run = load_run(results / "bench_x-default.json")
    assert run.command[0] == "python" and len(run.load_average) == 3 and run.cpus >= 1
    assert run.commit is None or len(run.commit) == 40


@given(figures=figures)
def test_a_saved_run_reads_back_as_written(tmp_path_factory: pytest.TempPathFactory, figures: dict[str, Figure]) -> None:
    run = run_with(figures)
    assert load_run(write_run(run, tmp_path_factory.mktemp("results"))) == run


@given(value=st.floats(0, 1e6, allow_nan=False), other=st.floats(0, 1e6, allow_nan=False))
def test_a_row_passes_exactly_when_it_says_the_saved_text(tmp_path_factory: pytest.TempPathFactory, value: float,
                                                          other: float) -> None:
    folder = tmp_path_factory.mktemp("results")
    saved, shown = Figure(value, 2, " ms"), Figure(other, 2, " ms")
    write_run(run_with({"p50_ms": saved}), folder)
    row = f"| `bench_h.py`: p50 <!-- source: bench_h-default.json p50_ms --> | {shown.text} | - | - |"
    assert (check(table(row), folder).problems == []) == (saved.text == shown.text)


@pytest.mark.parametrize("shown", ["11.30 s", "1.305 s", "21.30 s"])
def test_a_figure_inside_a_longer_number_is_not_said(shown: str) -> None:
    assert not says(f"| {shown} |", "1.30 s") and says("| 1.30 s; |", "1.30 s")


def test_the_script_stops_quietly_when_its_reader_stops_reading() -> None:
    """``python benchmarks/readme_figures.py | head`` ends without a BrokenPipeError traceback."""
    script = Path(__file__).parents[1] / "benchmarks" / "readme_figures.py"
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # before the script writes: every write finds the pipe closed
    _, err = proc.communicate(timeout=120)
    assert b"BrokenPipeError" not in err and b"Traceback" not in err, err.decode()
