"""Run directories, run comparison and the ``eval`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from spade_core.cli.eval_command import eval_command
from spade_core.evaluation import RunDirError, SuiteSummary, TaskResult, compare_runs, read_run, write_suite_run
from spade_core.evaluation.results import result_file_name
from spade_core.evaluation.runner import SuiteRun


def _run(suite: str, outcomes: list[bool], model: str = "m", ids: list[str] | None = None) -> SuiteRun:
    ids = ids or [f"t{i}" for i in range(len(outcomes))]
    results = [TaskResult(suite, tid, ok, float(ok), 1, 0, "terminated") for tid, ok in zip(ids, outcomes)]
    return SuiteRun(suite, model, results, SuiteSummary.from_results(suite, model, results))


def test_write_and_read_a_run_directory(tmp_path: Path) -> None:
    write_suite_run(_run("bfcl-multi-turn-base", [True, False, True]), tmp_path)
    write_suite_run(_run("jsonl:data/gsm8k.jsonl", [False]), tmp_path)
    write_suite_run(_run("bfcl-multi-turn-base", [True, True]), tmp_path)  # replaces the first one
    record = read_run(tmp_path)
    assert set(record.results) == {"bfcl-multi-turn-base", "jsonl:data/gsm8k.jsonl"}
    assert [r.success for r in record.results["bfcl-multi-turn-base"]] == [True, True]
    assert record.summaries["bfcl-multi-turn-base"].success_rate == 1.0
    assert (tmp_path / result_file_name("jsonl:data/gsm8k.jsonl")).is_file()
    assert "/" not in result_file_name("jsonl:data/gsm8k.jsonl")


def test_read_run_errors_say_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="summary.json is missing"):
        read_run(tmp_path)
    write_suite_run(_run("s", [True]), tmp_path)
    (tmp_path / "s.jsonl").unlink()
    with pytest.raises(RunDirError, match="results of suite 's'"):
        read_run(tmp_path)
    (tmp_path / "summary.json").write_text("{oops")
    with pytest.raises(RunDirError, match="not readable JSON"):
        read_run(tmp_path)


def test_compare_pairs_shared_tasks_and_falls_back_to_a_z_test(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    write_suite_run(_run("s", [False] * 30 + [True] * 10), a)
    write_suite_run(_run("s", [True] * 25 + [True] * 10 + [False] * 5), b)
    write_suite_run(_run("u", [True, False] * 10, ids=[f"a{i}" for i in range(20)]), a)
    write_suite_run(_run("u", [True] * 18 + [False] * 2, ids=[f"b{i}" for i in range(20)]), b)
    write_suite_run(_run("only-a", [True]), a)
    rows = {r.suite: r.comparison for r in compare_runs(a, b)}
    assert set(rows) == {"s", "u"}
    assert rows["s"].test.startswith("mcnemar") and rows["s"].paired == 40
    assert rows["s"].delta == pytest.approx(35 / 40 - 10 / 40) and rows["s"].p_value < 1e-4
    assert rows["u"].test == "two-proportion-z" and rows["u"].delta == pytest.approx(0.4)
    with pytest.raises(RunDirError, match="share no suite"):
        write_suite_run(_run("z", [True]), tmp_path / "c")
        compare_runs(a, tmp_path / "c")


def test_cli_compare_prints_the_delta_table_and_json(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    write_suite_run(_run("s", [False] * 10, model="base"), a)
    write_suite_run(_run("s", [True] * 10, model="tuned"), b)
    result = CliRunner().invoke(eval_command, ["--compare", str(a), str(b)])
    assert result.exit_code == 0, result.output
    assert "+100.0%" in result.output and "McNemar" in result.output
    result = CliRunner().invoke(eval_command, ["--compare", str(a), str(b), "--json"])
    data = json.loads(result.stdout)
    assert data[0]["suite"] == "s" and data[0]["delta"] == 1.0 and data[0]["p_value"] < 0.01


def test_cli_errors_are_clean_messages(tmp_path: Path) -> None:
    result = CliRunner().invoke(eval_command, ["--suite", "no-such-suite"])
    assert result.exit_code == 1 and "no evaluation suite named 'no-such-suite'" in result.output
    assert "Traceback" not in result.output
    result = CliRunner().invoke(eval_command, ["--compare", str(tmp_path), str(tmp_path)])
    assert result.exit_code == 1 and "summary.json is missing" in result.output
    result = CliRunner().invoke(eval_command, [])
    assert result.exit_code == 2 and "--suite" in result.output
    result = CliRunner().invoke(eval_command, ["--suite", "jsonl:x.jsonl", "--model", "nonsense:thing"])
    assert result.exit_code == 1


def test_cli_list_shows_every_suite() -> None:
    result = CliRunner().invoke(eval_command, ["--list"])
    assert result.exit_code == 0, result.output
    for name in ("bfcl-multi-turn-base", "bfcl-multi-turn-long-context", "reasoning-gym", "jsonl"):
        assert name in result.output


def test_cli_runs_a_suite_end_to_end(tiny_model_dir: Path, tmp_path: Path) -> None:
    data = tmp_path / "two.jsonl"
    data.write_text('{"question": "1+1?", "answer": "2"}\n{"question": "2+2?", "answer": "4"}\n')
    out = tmp_path / "run"
    result = CliRunner().invoke(eval_command, [
        "--model", f"hf:{tiny_model_dir}", "--suite", f"jsonl:{data}", "--limit", "1", "--max-new-tokens", "4",
        "--out", str(out), "--json",
    ])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary[0]["suite"] == "jsonl:two" and summary[0]["n"] == 1
    record = read_run(out)
    assert record.model == f"hf:{tiny_model_dir}" and len(record.results["jsonl:two"]) == 1
