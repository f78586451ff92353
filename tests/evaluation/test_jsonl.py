"""Local JSONL math benchmarks scored by the math domain's verifier."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spade_core.evaluation import BenchmarkDataError, load_suite
from spade_domains.benchmarks.jsonl_math import reference_answer


def _write(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def gsm8k(tmp_path: Path) -> Path:
    return _write(tmp_path / "gsm8k_sample.jsonl", [
        {"question": "Tom has 3 apples and buys 4 more. How many apples?", "answer": "3 + 4 = 7\n#### 7"},
        {"question": "A pen costs $1,250 cents... how many?", "answer": "#### 1,250"},
        {"problem": "Simplify 2/4.", "solution": "We get $\\boxed{\\frac{1}{2}}$."},
    ])


def test_reference_answers_are_extracted_like_the_datasets_write_them() -> None:
    assert reference_answer("work\n#### 72") == "72"
    assert reference_answer("so $\\boxed{\\frac{3}{4}}$.") == "\\frac{3}{4}"
    assert reference_answer(" 12 ") == "12"
    assert reference_answer(5) == "5"


def test_equivalent_answers_succeed_and_wrong_ones_fail(gsm8k: Path) -> None:
    suite = load_suite(f"jsonl:{gsm8k}")
    assert suite.name == "jsonl:gsm8k_sample" and [t.task_id for t in suite.tasks][0] == "gsm8k_sample/1"
    verdicts = []
    for task, reply in zip(suite.tasks, ["The total is \\boxed{7}.", "Answer: 1250", "\\boxed{0.5}"]):
        env = task.make_env()
        env.reset(seed=0)
        _, reward, terminated, _, info = env.step(reply)
        assert terminated
        verdicts.append((info["success"], reward))
    assert verdicts == [(True, 1.0), (True, 1.0), (True, 1.0)]
    env = suite.tasks[0].make_env()
    env.reset(seed=0)
    assert env.step("\\boxed{8}")[4]["success"] is False
    env = suite.tasks[0].make_env()
    env.reset(seed=0)
    info = env.step("I am not sure.")[4]
    assert not info["success"] and "boxed" in info["format_error"]


def test_reference_action_succeeds(gsm8k: Path) -> None:
    for task in load_suite(f"jsonl:{gsm8k}").tasks:
        env = task.make_env()
        env.reset(seed=0)
        assert env.step(env.reference_action())[4]["success"]


def test_limit_and_ids(tmp_path: Path) -> None:
    rows = [{"id": f"q{i}", "question": f"{i}+1?", "answer": str(i + 1)} for i in range(5)]
    path = _write(tmp_path / "m.jsonl", rows)
    suite = load_suite(f"jsonl:{path}", limit=2)
    assert [t.task_id for t in suite.tasks] == ["q0", "q1"]


@pytest.mark.parametrize("rows, message", [
    (['{"question": "1+1?", "answer": "2"}', "{not json"], ":2: not valid JSON"),
    ([{"question": "1+1?"}], ":1: needs a question"),
    ([["a list"]], ":1: each line must be a JSON object"),
    ([{"id": "a", "question": "x", "answer": "1"}, {"id": "a", "question": "y", "answer": "2"}], "duplicate id"),
    ([], "holds no questions"),
])
def test_malformed_files_name_the_line(tmp_path: Path, rows: list, message: str) -> None:
    path = _write(tmp_path / "bad.jsonl", rows)
    with pytest.raises(BenchmarkDataError, match=message):
        load_suite(f"jsonl:{path}")


def test_missing_file_and_missing_argument(tmp_path: Path) -> None:
    with pytest.raises(BenchmarkDataError, match="does not exist"):
        load_suite(f"jsonl:{tmp_path / 'nope.jsonl'}")
    with pytest.raises(Exception, match="needs an argument"):
        load_suite("jsonl")
