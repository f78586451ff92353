"""run_python_code: agent-written code plus test asserts in a single-use contained worker."""

from __future__ import annotations

import json

from spade_core.sandbox import run_python_code

SOLUTION = """
def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a

print("loaded")
"""


def test_passing_and_failing_tests(pool) -> None:
    result = run_python_code(SOLUTION, tests=["assert fib(10) == 55", "assert fib(1) == 2", "assert fib(0) == 0"], pool=pool)
    json.dumps(result)  # plain JSON
    assert result["passed"] == 2 and result["failed"] == 1 and not result["ok"]
    assert result["tests"][1]["cause"] == "exception" and "AssertionError" in result["tests"][1]["error"]
    assert result["stdout"] == "loaded\n"


def test_all_pass(pool) -> None:
    result = run_python_code(SOLUTION, tests=["assert fib(5) == 5"], pool=pool)
    assert result["ok"] and result["passed"] == 1 and result["error"] is None


def test_policy_refusal(pool) -> None:
    result = run_python_code("import os\nos.system('true')", tests=["assert True"], pool=pool)
    assert not result["ok"] and result["cause"] == "policy" and "line 1" in result["error"]
    assert result["failed"] == 1 and result["tests"][0]["error"].startswith("not run")


def test_hanging_test_times_out_and_others_still_run(pool) -> None:
    code = "def spin():\n    while True:\n        pass\n\ndef ok():\n    return 1\n"
    result = run_python_code(code, tests=["spin()", "assert ok() == 1"], pool=pool, timeout_s=1.0)
    assert result["tests"][0]["cause"] == "timeout"
    assert result["tests"][1]["passed"]


def test_memory_bomb(pool) -> None:
    result = run_python_code("x = 1", tests=["y = 'a' * (4 * 10 ** 9)"], pool=pool, memory_mb=256)
    assert result["tests"][0]["cause"] == "memory"
