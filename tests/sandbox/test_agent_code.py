"""Agent code (the code domain) runs in its own agent worker, never in the environment's, and its results are
compared by host code on canonical plain data: no forged pass, no read of the environment's hidden answer."""

from __future__ import annotations

import time

import pytest
from sandbox_support import TEST_LIMITS

from spade_core.contract.env import SpadeEnv
from spade_core.errors import SandboxTimeout
from spade_core.sandbox import run_python_code, sandboxed_handle_factory
from spade_registry.manifest import EnvManifest

ALWAYS_EQUAL = """
class Liar:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __lt__(self, other):
        return True
    def __bool__(self):
        return True
def solve(n):
    return Liar()
"""

CODE_ENV = '''
from spade_domains.code.verify import parse_code, run_tests

ENV_SPEC = {"name": "SquareIt", "domain": "code", "description": "write square(n)", "reward_range": [0, 1],
            "max_turns": 3}

HIDDEN_ANSWER = "the-hidden-answer-81"


class SquareIt:
    def reset(self, rng, options):
        self.n = rng.randint(5, 9)
        self.secret = HIDDEN_ANSWER
        return f"Write square(n). Hidden test uses n={self.n}.", {}

    def step(self, action):
        code, error = parse_code(action)
        if error is not None:
            return error, 0.0, False, False, {"success": False, "format_error": error, "action_is_valid": False}
        result = run_tests(code, [f"assert square({self.n}) == {self.n * self.n}"], 2.0)
        ok = result["error"] is None and result["passed"] == 1
        text = result["results"][0]["error"] or result["error"] or "all tests pass"
        return text, 1.0 if ok else 0.0, ok, False, {"success": ok}

    def privileged_hint(self):
        return "multiply n by itself"

    def reference_action(self):
        return "```python\\ndef square(n):\\n    return n * n\\n```"
'''


@pytest.mark.parametrize("test", [
    "assert solve(3) == 9", "assert not (solve(3) != 9)", "assert solve(3) == [1, 2]", "assert 9 == solve(3)",
    "assert solve(1) < 0",
])
def test_agent_objects_cannot_forge_a_comparison(pool, test: str) -> None:
    result = run_python_code(ALWAYS_EQUAL, tests=[test], pool=pool)
    assert not result["ok"] and result["failed"] == 1, result


def test_agent_code_cannot_rebind_the_builtins_a_test_uses(pool) -> None:
    code = ("def half(n):\n    return n // 2\n"
            "ValueError = Exception\nsorted = lambda xs: [1, 2, 3]\nlen = lambda xs: 3\n")
    tests = ["try:\n    half('x')\nexcept ValueError:\n    pass\nelse:\n    raise AssertionError('no error')",
             "assert sorted([3, half(4), 1]) == [1, 2, 3] and len([]) == 0", "assert sorted([9, 8]) == [1, 2, 3]"]
    result = run_python_code(code, tests=tests, pool=pool)
    assert [t["passed"] for t in result["tests"]] == [False, True, False], result


def test_plain_results_are_compared_with_python_semantics(pool) -> None:
    code = "def f(x):\n    return [x, (x, x), {x: 'a'}, {x}, 2.0 * x, None]\n"
    tests = ["assert f(1) == [1, (1, 1), {1: 'a'}, {1}, 2.0, None]", "assert f(2)[4] > 3.5 and f(2)[5] is None",
             "assert f(1)[1] != [1, 1]", "assert 'a' in f(3)[2].values()", "x = f(2)\nassert x[0] == 2"]
    result = run_python_code(code, tests=tests, pool=pool)
    assert result["ok"] and result["passed"] == len(tests), result


def test_agent_imports_are_limited_to_the_standard_library(pool) -> None:
    result = run_python_code("from spade_domains.code.verify import run_tests\n", tests=["assert True"], pool=pool)
    assert result["cause"] == "policy" and "not allowed" in result["error"]


def _episode(pool, action: str) -> tuple[str, float, dict]:
    manifest = EnvManifest.from_dict({"name": "SquareIt", "domain": "code", "description": "write square(n)",
                                      "reward_range": [0, 1], "max_turns": 3})
    env = SpadeEnv(manifest, sandboxed_handle_factory(CODE_ENV, env_id="spade/SquareIt-v0", pool=pool))
    try:
        env.reset(seed=1)
        obs, reward, _terminated, _truncated, info = env.step(action)
        return obs, reward, info
    finally:
        env.close()


def test_environment_verifies_through_an_agent_worker(pool) -> None:
    obs, reward, info = _episode(pool, "```python\ndef square(n):\n    return n * n\n```")
    assert reward == 1.0 and info["success"] is True, obs
    obs, reward, _ = _episode(pool, "```python\n" + ALWAYS_EQUAL + "square = solve\n```")
    assert reward == 0.0 and "is false" in obs


@pytest.mark.parametrize("attack", [
    "import spade_domains.code.verify as v\ndef square(n):\n    return v\n",
    "def square(n):\n    return HIDDEN_ANSWER\n",
    "def square(n):\n    return globals()\n",
])
def test_agent_code_cannot_read_the_environments_hidden_answer(pool, attack: str) -> None:
    obs, reward, _ = _episode(pool, "```python\n" + attack + "```")
    assert reward == 0.0 and "the-hidden-answer-81" not in obs


def test_agent_code_that_hangs_or_crashes_only_loses_its_own_worker(pool) -> None:
    obs, reward, info = _episode(pool, "```python\ndef square(n):\n    while True:\n        pass\n```")
    assert reward == 0.0 and "sandbox_error" not in info, obs
    obs, reward, info = _episode(pool, "```python\nx = ' ' * (4 * 10 ** 9)\ndef square(n):\n    return n\n```")
    assert reward == 0.0 and "sandbox_error" not in info, obs


def test_a_late_answer_to_a_workers_request_never_puts_its_channel_out_of_step(pool, monkeypatch) -> None:
    """The host answers an environment's request to run agent code later than the worker's own call timer would
    allow (a loaded host): the host's time is not charged to the worker's timer, so the call ends with its result
    (or, past the host's own deadline, as a timeout), and every later call on the worker gets its own reply, never
    the answer to the one before (a stale reply once failed the next environment's ``__init__``: "unknown op
    None")."""
    from spade_core.sandbox import pool as pool_module

    original = pool_module._SUB_HANDLERS["code"]

    def late(host, request, deadline):
        time.sleep(TEST_LIMITS.call_timeout_s + 0.3)
        return original(host, request, deadline)

    manifest = EnvManifest.from_dict({"name": "SquareIt", "domain": "code", "description": "write square(n)",
                                      "reward_range": [0, 1], "max_turns": 3})
    env = SpadeEnv(manifest, sandboxed_handle_factory(CODE_ENV, env_id="spade/SquareIt-v0", pool=pool))
    square = "```python\ndef square(n):\n    return n * n\n```"
    try:
        env.reset(seed=1)
        monkeypatch.setitem(pool_module._SUB_HANDLERS, "code", late)
        _obs, reward, _terminated, _truncated, info = env.step(square)
        assert info.get("success") is True or isinstance(info.get("sandbox_error"), SandboxTimeout), info
        monkeypatch.setitem(pool_module._SUB_HANDLERS, "code", original)
        for seed in (2, 3, 4):
            env.reset(seed=seed)
            obs, reward, _terminated, _truncated, info = env.step(square)
            assert reward == 1.0 and info["success"] is True, (obs, info)
    finally:
        env.close()
