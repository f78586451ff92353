"""Benchmark scorers run in the host process on the model's answer: none may run it as code, hang or raise.

reasoning-gym scores some datasets with ``eval(answer)`` or sympy's ``parse_expr(answer)`` (which ``eval``s): those
datasets are refused with a message that names the call; the others score hostile answers to a finite reward
within the scoring budget. Through the suite loader and the environments ``spade eval`` runs.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

pytest.importorskip("reasoning_gym", reason="the reasoning-gym suites need the 'eval' extra")

from spade_core.evaluation.errors import BenchmarkDataError
from spade_domains.benchmarks import reasoning


@pytest.mark.parametrize(("name", "call"), [
    ("countdown", "parse_expr()"), ("puzzle24", "parse_expr()"), ("spiral_matrix", "eval()"),
    ("n_queens", "eval()"), ("polynomial_multiplication", "parse_expr()"), ("bitwise_arithmetic", "eval()"),
])
def test_datasets_whose_scorer_runs_the_answer_as_code_are_refused(name: str, call: str) -> None:
    with pytest.raises(BenchmarkDataError, match=rf"{name}.*{call.replace('(', '[(]').replace(')', '[)]')}"):
        reasoning.load_single_turn(argument=name, limit=1)


def test_the_default_datasets_are_scored_and_checked() -> None:
    suite = reasoning.load_single_turn(limit=len(reasoning.DEFAULT_DATASETS))
    assert {task.metadata["dataset"] for task in suite.tasks} == set(reasoning.DEFAULT_DATASETS)
    for name in reasoning.DEFAULT_DATASETS:
        assert reasoning.code_evaluation_in_scorer(type(reasoning.dataset(name, 1))) is None


@pytest.mark.parametrize("answer", [
    "__import__('pathlib').Path({marker!r}).write_text('x')",
    "9" * 5000, "1e999", "nan", "-inf", "10**10**7", "[" * 5000, "\ud800", "(" * 300 + "1" + ")" * 300,
    "x" * 90_000,
])
@pytest.mark.parametrize("name", reasoning.DEFAULT_DATASETS)
def test_hostile_answers_score_finitely_in_bounded_time(tmp_path: Path, name: str, answer: str) -> None:
    marker = tmp_path / "ran"
    env = reasoning.make_env(name, 0, 1)
    env.reset(seed=0)
    started = time.monotonic()
    _, reward, terminated, truncated, info = env.step(f"<answer>{answer.format(marker=str(marker))}</answer>")
    assert time.monotonic() - started < reasoning.SCORE_TIMEOUT_S + 2.0
    assert math.isfinite(reward) and terminated and not truncated
    assert "sandbox_error" not in info and info["success"] is False
    assert not marker.exists()
