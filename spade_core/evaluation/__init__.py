"""Held-out evaluation: benchmark suites as SPADE environments, ``run_suite`` and run comparison (``spade eval``)."""

from spade_core.evaluation.errors import (
    BenchmarkDataError,
    BenchmarkUnavailableError,
    EvaluationError,
    ModelSpecError,
    RunDirError,
    SuiteNotFoundError,
)
from spade_core.evaluation.results import compare_runs, read_run, write_suite_run
from spade_core.evaluation.runner import SuiteRun, SuiteSummary, TaskResult, run_suite
from spade_core.evaluation.stats import paired_comparison, two_proportion_z_test, wilson_interval
from spade_core.evaluation.suite import EvalSuiteSpec, EvalTask, Suite, load_suite, suite_specs

__all__ = [
    "BenchmarkDataError", "BenchmarkUnavailableError", "EvalSuiteSpec", "EvalTask", "EvaluationError",
    "ModelSpecError", "RunDirError", "Suite", "SuiteNotFoundError", "SuiteRun", "SuiteSummary", "TaskResult",
    "compare_runs", "load_suite", "paired_comparison", "read_run", "run_suite", "suite_specs",
    "two_proportion_z_test", "wilson_interval", "write_suite_run",
]
