"""The static policy and runtime guards, exercised in-process (fast): what ordinary code may do, what it may not,
and that the rewrites keep Python's semantics."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.contract.rng import EpisodeRandom
from spade_core.sandbox import guards, violations
from spade_core.sandbox.allowlist import BASE_ALLOWLIST, build_standins, exposed_names
from spade_core.sandbox.policy import PolicyRejection, compile_env_source, is_private_name, policy_problems

STANDINS, PROBLEMS = build_standins(BASE_ALLOWLIST)
ALLOWED = {name: set(exposed_names(mod)) for name, mod in STANDINS.items()}
BUILTINS = guards.make_builtins(STANDINS)


def run(source: str, name: str = "policy_test_mod") -> dict[str, Any]:
    code = compile_env_source(source, allowed_modules=ALLOWED)
    module = guards.make_module(BUILTINS, name)
    guards.reset_call_state()
    try:
        exec(code, module.__dict__)  # restricted code under test
    finally:
        guards.drop_module(name)
    return module.__dict__


def test_base_allowlist_resolves_without_modules() -> None:
    assert PROBLEMS == {}
    assert {"math", "re", "json", "collections", "itertools", "heapq", "bisect", "fractions"} <= set(STANDINS)
    assert "enum" not in ALLOWED["re"] and "sys" not in ALLOWED["typing"]


def test_augmented_assignment_targets_are_rewritten_with_python_semantics() -> None:
    ns = run(
        "class A:\n"
        "    def __init__(self):\n"
        "        self.steps = 0\n"
        "        self.items = []\n"
        "a = A()\n"
        "alias = a.items\n"
        "a.steps += 1\n"
        "a.items += [1, 2]\n"
        "d = {'k': 1}\n"
        "d['k'] += 4\n"
        "calls = []\n"
        "def key():\n"
        "    calls.append(1)\n"
        "    return 'k'\n"
        "d[key()] *= 3\n"
        "grid = [[0, 0], [0, 0]]\n"
        "grid[1][0] -= 5\n"
        "x: int = 3\n"
    )
    a = ns["a"]
    assert a.steps == 1 and a.items == [1, 2] and ns["alias"] is a.items
    assert ns["d"] == {"k": 15} and ns["calls"] == [1]
    assert ns["grid"] == [[0, 0], [-5, 0]] and ns["x"] == 3


@given(st.lists(st.tuples(st.sampled_from(["+=", "-=", "*=", "|=", "^="]), st.integers(-50, 50)), max_size=12))
def test_augassign_matches_plain_python(ops: list[tuple[str, int]]) -> None:
    lines = ["class Box:\n    pass\n", "b = Box()\n", "b.v = 7\n", "d = {'a': 7}\n", "xs = [7]\n"]
    for op, n in ops:
        lines += [f"b.v {op} {n}\n", f"d['a'] {op} {n}\n", f"xs[0] {op} {n}\n"]
    source = "".join(lines)
    plain: dict[str, Any] = {}
    exec(compile(source, "<plain>", "exec"), plain)  # test-generated arithmetic
    ns = run(source)
    assert ns["b"].v == plain["b"].v == ns["d"]["a"] == ns["xs"][0]


def test_private_helpers_and_super_init() -> None:
    ns = run(
        "class Base:\n"
        "    def __init__(self, k):\n"
        "        self._k = k\n"
        "    def _twice(self):\n"
        "        return 2 * self._k\n"
        "class Env(Base):\n"
        "    def __init__(self):\n"
        "        super().__init__(4)\n"
        "        self._cache = None\n"
        "    def _get_obs(self):\n"
        "        return super()._twice() + self._twice()\n"
        "    def __repr__(self):\n"
        "        return 'Env'\n"
        "_helper = lambda: 1\n"
        "out = Env()._get_obs() + _helper()\n"
        "has = hasattr(Env(), '_cache')\n"
    )
    assert ns["out"] == 17 and ns["has"] is True and repr(ns["Env"]()) == "Env"


def test_private_name_rule() -> None:
    assert is_private_name("_get_obs") and is_private_name("_x1")
    for name in ("_getattr_", "__class__", "_tmp0", "_print", "_", "__init__", "_spade_aug"):
        assert not is_private_name(name)


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("import os", "line 1: import of 'os' is not allowed; allowed modules:"),
        ("\n\nimport random", "line 3: import of 'random' is not allowed; use the rng passed to reset"),
        ("from json import load", "'load' is not available from sandbox module 'json'"),
        ("x = ().__class__", "line 1: attribute '__class__' is not allowed"),
        ("def f(_getattr_, /):\n    pass", "name '_getattr_' is not allowed"),
        ("open('f')", "'open' is not available in the sandbox"),
        ("class A(metaclass=type): pass", "metaclass"),
        ("def __getattr__(self, n): pass", "name '__getattr__' is not allowed"),
        ("g = (x for x in [])\ng.gi_frame", "line 2: attribute 'gi_frame' is not allowed"),
    ],
)
def test_rejections_name_line_and_rule(source: str, fragment: str) -> None:
    problems = policy_problems(source, ALLOWED)
    assert any(fragment in p for p in problems), problems


def test_user_defined_names_shadowing_unavailable_builtins_are_fine() -> None:
    assert run("def compile(x):\n    return x\ny = compile(3)\n")["y"] == 3


def test_rejection_lists_every_problem() -> None:
    with pytest.raises(PolicyRejection) as info:
        compile_env_source("import os\nimport sys\nx = y.__dict__\n", allowed_modules=ALLOWED)
    assert [p.split(":")[0] for p in info.value.problems] == ["line 1", "line 2", "line 3"]


@pytest.mark.parametrize(
    "source",
    [
        "getattr((), '__cla' + 'ss__')",
        "'{0.__class__}'.format(1)",
        "str.format_map('{x}', {'x': 1})",
        "type('X', (), {})",
        "from fractions import Fraction\nFraction.register(int)",
        "import typing\ntyping.Mapping.register(int)",
        "import json\njson.dumps = None",
        "import re\nre.enum",
        "setattr(len, 'x', 1)",
        "type(1).mro()",
        "from fractions import Fraction\nFraction(1, 2)._numerator",
    ],
)
def test_runtime_guards_refuse(source: str) -> None:
    with pytest.raises(violations.PolicyViolation):
        run(source)


def test_rng_private_state_is_unreachable() -> None:
    ns = run("def peek(rng):\n    return rng._r\ndef draw(rng):\n    return rng.randint(1, 6)\n")
    rng = EpisodeRandom(3)
    assert 1 <= ns["draw"](rng) <= 6
    with pytest.raises(violations.PolicyViolation):
        ns["peek"](rng)


def test_caught_violation_is_still_recorded() -> None:
    run("try:\n    getattr(1, '__class__')\nexcept:\n    pass\n")
    assert violations.VIOLATIONS and "__class__" in violations.VIOLATIONS[0]
