"""Suite specs, discovery and loading."""

from __future__ import annotations

import pytest

from spade_core.evaluation import (
    BenchmarkUnavailableError,
    EvalSuiteSpec,
    EvalTask,
    EvaluationError,
    Suite,
    SuiteNotFoundError,
    load_suite,
    suite_specs,
)
from spade_core.evaluation.suite import find_suite, load_spec, split_suite_name
from spade_domains.benchmarks import plugin


def test_the_benchmarks_plugin_provides_every_suite() -> None:
    names = {s.name for s in plugin.spade_eval_suites()}
    assert names == {"bfcl-multi-turn-base", "bfcl-multi-turn-miss-func", "bfcl-multi-turn-miss-param",
                     "bfcl-multi-turn-long-context", "reasoning-gym", "reasoning-gym-retry", "jsonl"}
    assert names <= set(suite_specs())
    assert set(suite_specs(modules=[plugin])) == set(suite_specs())  # the same plugin twice is not a conflict


def test_names_with_arguments() -> None:
    assert split_suite_name("jsonl:data/a.jsonl") == ("jsonl", "data/a.jsonl")
    assert split_suite_name("bfcl-multi-turn-base") == ("bfcl-multi-turn-base", None)
    with pytest.raises(EvaluationError):
        split_suite_name(":x")


def test_unknown_suite_suggests_a_close_name() -> None:
    with pytest.raises(SuiteNotFoundError, match="did you mean 'bfcl-multi-turn-base'"):
        find_suite("bfcl-multiturn-base")


def test_missing_package_gives_the_install_command() -> None:
    spec = EvalSuiteSpec("needs-x", "d", "spade_domains.benchmarks.jsonl_math:load_jsonl_suite",
                         requires=("spade_no_such_package_xyz",), install_hint="pip install xyz")
    assert spec.missing() == ["spade_no_such_package_xyz"]
    with pytest.raises(BenchmarkUnavailableError, match="pip install xyz"):
        load_spec(spec)


def test_argument_rules() -> None:
    with pytest.raises(EvaluationError, match="takes no argument"):
        load_suite("bfcl-multi-turn-base:oops")
    with pytest.raises(EvaluationError, match="needs an argument"):
        load_suite("jsonl")


def test_suite_rejects_duplicate_ids_and_bad_limits() -> None:
    task = EvalTask("same", lambda: None)
    with pytest.raises(EvaluationError, match="duplicate task ids"):
        Suite("s", "d", (task, task))
    suite = Suite("s", "d", (task,))
    assert suite.limited(None) is suite and suite.limited(5).tasks == (task,)
    with pytest.raises(EvaluationError):
        suite.limited(0)


def test_conflicting_suites_from_two_plugins_are_reported() -> None:
    class Other:
        @staticmethod
        def spade_eval_suites():
            return [EvalSuiteSpec("jsonl", "another jsonl", "x.y:z")]

    with pytest.raises(EvaluationError, match="two plugins provide an evaluation suite named 'jsonl'"):
        suite_specs(modules=[Other])
