"""The code domain: action parsing, the sandbox-backed test runner, the plugin hooks and the seed environments.

Tests named ``test_sandbox_*`` run agent-style code through ``spade_core.sandbox``; they FAIL (never skip) when
the sandbox's ``run_python_code`` is missing, because without it the domain cannot verify anything.

Some tests check the seeds' *test generation* by running the seeds' own reference solutions (and hand-written
naive or buggy variants of them) in this process with ``exec``. That code is ours and trusted; agent code is only
ever run by the sandbox.
"""

from __future__ import annotations

import ast
import re
import sys
import time

import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_core.contract.env import SpadeEnv
from spade_core.contract.inner import LocalInnerEnv, load_trusted_module
from spade_core.errors import SandboxError
from spade_core.plugins import get_plugins
from spade_core.plugins.contributions import DomainSpec, SeedEnvironment, load_object
from spade_domains.code import plugin
from spade_domains.code.verify import (
    MAX_CODE_CHARS,
    check_syntax,
    defined_names,
    describe_results,
    equality_test,
    extract_code,
    parse_code,
    run_tests,
)
from spade_registry.manifest import EnvManifest

SEED_MODULES = [f"spade_domains.code.seeds.{name}" for name in plugin.SEEDS]
FAST = settings(derandomize=True, deadline=None, max_examples=50)


# -- helpers -------------------------------------------------------------------------------------------------------
def require_sandbox():
    """The sandbox's runner, or a loud failure naming what is missing."""
    try:
        from spade_core.sandbox import run_python_code
    except ImportError as exc:
        pytest.fail(
            f"spade_core.sandbox.run_python_code is not available ({exc}); the code domain cannot verify agent code "
            "without it",
            pytrace=False,
        )
    return run_python_code


def make_env(module: str, **knobs) -> SpadeEnv:
    raw, cls = load_trusted_module(module)
    manifest = EnvManifest.from_dict(raw, source=module)
    return SpadeEnv(manifest, lambda k: LocalInnerEnv(cls, k), knobs=knobs)


def inner_of(env: SpadeEnv):
    return env._ensure_handle()._env


def knob_settings(env: SpadeEnv) -> list[dict]:
    knobs = env.manifest.difficulty
    return [{}, {k.name: int(k.min) for k in knobs}, {k.name: int(k.max) for k in knobs}]


def exec_trusted(code: str, tests: list[str]) -> list[bool]:
    """Run OUR OWN reference (or hand-written variant) code and the seed's tests in-process; never agent code."""
    namespace: dict = {}
    exec(compile(code, "<trusted reference>", "exec"), namespace)  # trusted, ours
    outcomes = []
    for test in tests:
        try:
            exec(compile(test, "<test>", "exec"), namespace)  # trusted, ours
            outcomes.append(True)
        except Exception:  # any failure is a failed test
            outcomes.append(False)
    return outcomes


def trusted_program(env: SpadeEnv, code: str) -> str:
    """The full program a seed sends to the sandbox for ``code`` (some seeds add a driver or an import)."""
    inner = inner_of(env)
    return code + "\nimport re\n" + getattr(inner, "driver", "")


def stub_for(reference_code: str) -> str:
    """Code defining the same top-level names as the reference, all wrong: a function/class/pattern that fails."""
    lines = []
    for node in ast.parse(reference_code).body:
        if isinstance(node, ast.FunctionDef):
            lines.append(f"def {node.name}(*args, **kwargs):\n    return None\n")
        elif isinstance(node, ast.ClassDef):
            lines.append(f"class {node.name}:\n    pass\n")
        elif isinstance(node, ast.Assign):
            lines.append(f"{node.targets[0].id} = '(?!)'\n")
    return "\n".join(lines)


# -- parsing ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Here you go:\n```python\ndef f(x):\n    return x + 1\n```\nDone.",
        "```py\ndef f(x):\n    return x + 1\n```",
        "```Python3\ndef f(x):\n    return x + 1\n```",
        "```\ndef f(x):\n    return x + 1\n```",
        "1. Solution:\n   ```python\n   def f(x):\n       return x + 1\n   ```",
        "```python\ndef f(x):\n    return x + 1```",
        "~~~python\ndef f(x):\n    return x + 1\n~~~",
        "def f(x):\n    return x + 1\n",
        "\ufeffdef f(x):\n    return x + 1\n",
        "```python\ndef f(x):\n    return x + 1\n",
    ],
    ids=lambda value: repr(value)[:24],
)
def test_extract_code_accepts_common_forms(text: str) -> None:
    assert extract_code(text) == "def f(x):\n    return x + 1"


def test_extract_code_takes_the_last_python_block_and_prefers_tagged_blocks() -> None:
    text = "```python\nx = 1\n```\nthen\n```text\nnot code\n```\n```\ny = 0\n```\n```python\nx = 2\n```"
    assert extract_code(text) == "x = 2"
    assert extract_code("```python x = 3```") == "x = 3"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty action"),
        ("   \n\t", "empty action"),
        ("I think the answer is to sort the list.", "no ```python block found"),
        ('{"name": "run", "arguments": {"code": ', "no ```python block found"),
        ("```javascript\nfunction f() { return 1; }\n```", "tagged javascript"),
        ("```python\n\n```", "block is empty"),
        ("```python\ndef f(:\n    pass\n```", "code does not parse: line 1"),
        ("```python\nx = 1\ny = (\n```", "line 2"),
        ("```python\ndef f(\n", "never closed"),
        ("\ud800", "not valid Unicode"),
        ("```python\nx = '\ud800'\n```", "not valid Unicode"),
        ("x = 1\x00", "null"),
        ("-" * 50_000 + "1", "nested too deeply"),
        ("(" * 5000, "no ```python block found"),
        ("x" * (MAX_CODE_CHARS + 1), "characters"),
    ],
    ids=lambda value: repr(value)[:24],
)
def test_parse_code_errors_are_clear(text: str, fragment: str) -> None:
    code, error = parse_code(text)
    assert code is None
    assert fragment in error


def test_one_megabyte_action_is_refused_quickly() -> None:
    started = time.perf_counter()
    code, error = parse_code("def f():\n    return 1\n" * 50_000)
    assert code is None and "characters" in error
    assert time.perf_counter() - started < 0.1


def test_check_syntax_reports_line_and_message() -> None:
    assert check_syntax("x = 1\n") is None
    assert check_syntax("x = 1\nif x\n    pass\n").startswith("line 2:")
    assert check_syntax(123) == "code must be a string, got int"  # type: ignore[arg-type]
    assert check_syntax('pattern = "\\d+"\n') is None  # an invalid escape only warns; it must not print or fail


@FAST
@given(
    st.one_of(
        st.text(max_size=300),
        st.text(alphabet=st.characters(categories=["Cs", "Cc", "Lu", "Ll", "Nd", "Po", "Zs"]), max_size=50),
        st.sampled_from(["```", "```python", "```\n```", "~~~\n", "````python\nx=1\n````", "\ud800```python\n"]),
    )
)
def test_parse_code_never_raises_and_returns_code_or_error(text: str) -> None:
    code, error = parse_code(text)
    assert (code is None) != (error is None)
    if code is not None:
        assert check_syntax(code) is None
    else:
        assert isinstance(error, str) and error


@FAST
@given(
    values=st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=8),
    tag=st.sampled_from(["python", "py", "Python", "python3", ""]),
    prose=st.text(alphabet=st.characters(categories=["L", "Zs"]), max_size=40),
)
def test_fenced_code_round_trips(values: list[int], tag: str, prose: str) -> None:
    code = "\n".join(f"x{i} = {v}" for i, v in enumerate(values))
    assert extract_code(f"{prose}\n```{tag}\n{code}\n```\n{prose}") == code


def test_defined_names_lists_top_level_bindings_only() -> None:
    code = "import re\nfrom math import gcd as g\nA, (b, c) = 1, (2, 3)\nn: int = 4\ndef f():\n    inner = 1\nclass K:\n    y = 2\n"
    assert defined_names(code) == ["re", "g", "A", "b", "c", "n", "f", "K"]
    assert defined_names("def (") == []


@FAST
@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20)),
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)),
        max_leaves=12,
    )
)
def test_equality_test_is_one_valid_assert(expected) -> None:
    test = equality_test("f('a\"b', [1, 2])", expected)
    assert check_syntax(test) is None
    tree = ast.parse(test)
    assert len(tree.body) == 1 and isinstance(tree.body[0], ast.Assert)
    assert ast.literal_eval(tree.body[0].test.comparators[0]) == expected


def test_describe_results_separates_shown_and_hidden_failures() -> None:
    result = {
        "passed": 1, "failed": 3, "error": None,
        "results": [
            {"test": "t1", "ok": True, "error": None},
            {"test": "t2", "ok": False, "error": "AssertionError: got 3"},
            {"test": "t3", "ok": False, "error": "AssertionError: got 4"},
            {"test": "t4", "ok": False, "error": None},
        ],
    }
    text = describe_results(result, visible=["t1", "t2"], labels=["f(1) == 1", "f(2) == 2", "f(3) == 3", "f(4) == 4"])
    assert "1 of 4 tests pass." in text
    assert "FAILED: f(2) == 2" in text and "got 3" in text
    assert "f(3)" not in text and "2 hidden test(s) fail." in text
    everything = describe_results(result)
    assert "FAILED: t2" in everything and "FAILED: t3" in everything and "hidden" not in everything
    assert describe_results({"results": [{"test": "t", "ok": True, "error": None}], "error": None}) == "All 1 tests pass."
    broken = {"results": [{"test": "t", "ok": False, "error": "not run"}], "error": "line 1: import of 'os' is not allowed"}
    assert describe_results(broken).startswith("Your code did not run: line 1: import of 'os'")


def test_run_tests_checks_its_arguments() -> None:
    with pytest.raises(TypeError):
        run_tests(None, ["assert True"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        run_tests("x = 1", "assert True")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        run_tests("x = 1", ["assert True"], timeout_s=0)
    with pytest.raises(ValueError):
        run_tests("x = 1", ["assert True"], timeout_s=True)
    with pytest.raises(ValueError):
        run_tests("x = 1", ["assert True"] * 1000)


def test_run_tests_reports_syntax_errors_without_running_anything() -> None:
    result = run_tests("def f(:\n", ["assert f() == 1", "assert True"])
    assert result["passed"] == 0 and result["failed"] == 2
    assert result["error"].startswith("code does not parse: line 1")


def test_run_tests_never_falls_back_to_running_code_in_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the sandbox gone, run_tests refuses (SandboxError); the code's side effect never happens here."""
    monkeypatch.setitem(sys.modules, "spade_core.sandbox", None)
    marker: list[int] = []
    sys.modules["__main__"].__dict__["spade_code_domain_marker"] = marker
    try:
        with pytest.raises(SandboxError, match="sandbox is not available"):
            run_tests("import __main__\n__main__.spade_code_domain_marker.append(1)\n", ["assert True"])
    finally:
        sys.modules["__main__"].__dict__.pop("spade_code_domain_marker", None)
    assert marker == []


# -- plugin -----------------------------------------------------------------------------------------------------------
def test_plugin_hooks() -> None:
    [domain] = plugin.spade_domains()
    assert isinstance(domain, DomainSpec) and domain.name == "code"
    assert "run_tests" in domain.designer_guidance and "HINT:" in domain.designer_guidance  # the contract: prompts.py
    assert domain.answer_kind == "program" and not domain.selfplay_default
    assert len(domain.worked_examples) == 2
    for module in domain.worked_examples:
        load_trusted_module(module)
    seeds = plugin.spade_seed_environments()
    assert len(seeds) >= 8 and all(isinstance(s, SeedEnvironment) for s in seeds)
    assert [s.module for s in seeds] == SEED_MODULES
    modules = plugin.spade_sandbox_modules()
    assert set(modules) == {"spade_domains.code.verify"}
    for name, target in modules["spade_domains.code.verify"].items():
        assert callable(load_object(target)) and not name.startswith("_")


def test_plugin_is_discovered_through_its_entry_point() -> None:
    plugins = get_plugins()
    assert "code" in [p.name for p in plugins.loaded]
    assert not [f for f in plugins.failures if f.plugin == "code"]
    names = [d.name for d in plugins.collect_flat("spade_domains")]
    assert "code" in names





# -- seed environments (no sandbox needed) ---------------------------------------------------------------------------
@pytest.mark.parametrize("module", SEED_MODULES)
def test_seed_manifest(module: str) -> None:
    env = make_env(module)
    manifest = env.manifest
    assert manifest.domain == "code" and manifest.players == 1
    assert manifest.max_turns >= 3 and manifest.reward_range == (0.0, 1.0)
    assert manifest.difficulty and manifest.grounding and manifest.tags


@pytest.mark.parametrize("module", SEED_MODULES)
def test_seed_check_env(module: str) -> None:
    check_env(make_env(module), skip_render_check=True)


@pytest.mark.parametrize("module", SEED_MODULES)
def test_seed_reference_passes_its_own_tests(module: str) -> None:
    """Every generated expected value agrees with the reference solution (run in-process: it is our code)."""
    env = make_env(module)
    for knobs in knob_settings(env):
        env = make_env(module, **knobs)
        for seed in range(8):
            env.reset(seed=seed)
            code = extract_code(env.reference_action())
            assert code is not None
            tests = inner_of(env).tests
            outcomes = exec_trusted(trusted_program(env, code), tests)
            failing = [t for t, ok in zip(tests, outcomes) if not ok]
            assert not failing, f"{module} {knobs} seed {seed}: reference fails {failing[:2]}"


@pytest.mark.parametrize("module", SEED_MODULES)
def test_seed_baselines_and_hint_fail_without_running_code(module: str) -> None:
    """Random strings, the constant '0' and the hint itself are format errors: nothing reaches the sandbox."""
    env = make_env(module)
    for seed in range(20):
        obs, _ = env.reset(seed=seed)
        hint = env.privileged_hint()
        reference = extract_code(env.reference_action())
        assert "```" not in hint and not re.search(r"\d", hint)
        assert " ".join(reference.split()).lower() not in " ".join(hint.split()).lower()
        env.action_space.seed(seed)
        for action in (hint, "0", env.action_space.sample(), env.action_space.sample()):
            obs, reward, terminated, truncated, info = env.step(action)
            assert info["format_error"] and not info["success"] and reward == 0.0
            assert not terminated
            if truncated:
                break


MALFORMED = [
    "",
    "   ",
    "\ud800",
    "```python\nx = '\ud800'\n```",
    '{"name": "run_tests", "arguments": {"code": 5}}',
    '{"name": "run_tests", "arguments": ',
    '{"name": "unknown_tool", "arguments": {}}',
    "```python\ndef broken(:\n    pass\n```",
    "```javascript\nfunction f() { return 1; }\n```",
    "print('hello')",
    "```",
    "x" * 1_000_000,
]


@pytest.mark.parametrize("module", SEED_MODULES)
def test_seed_malformed_actions_give_format_error_and_a_usable_observation(module: str) -> None:
    env = make_env(module)
    first, _ = env.reset(seed=0)
    for action in MALFORMED:
        obs, reward, terminated, truncated, info = env.step(action)
        assert isinstance(info["format_error"], str) and info["format_error"]
        assert info["action_is_valid"] is False and not terminated and reward == 0.0
        assert isinstance(obs, str) and obs
        if truncated:
            env.reset(seed=0)
    # The inner environment itself (without SpadeEnv's length cap) refuses a 1 MB action with a clear message.
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = inner_of(env).step("y = 1\n" * 200_000)
    assert "characters" in info["format_error"] and "```python" in obs and not terminated


@pytest.mark.parametrize("module", SEED_MODULES[:3])
@FAST
@given(actions=st.lists(st.text(max_size=60), min_size=1, max_size=5))
def test_seed_random_text_never_raises(module: str, actions: list[str]) -> None:
    env = make_env(module)
    env.reset(seed=1)
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        assert isinstance(obs, str) and obs and not info["success"]
        if terminated or truncated:
            break


def test_fix_the_bug_shows_exactly_the_injected_bugs_and_a_truly_failing_test() -> None:
    for bugs in (1, 2, 3):
        env = make_env("spade_domains.code.seeds.fix_the_bug", bugs=bugs)
        for seed in range(6):
            obs, _ = env.reset(seed=seed)
            inner = inner_of(env)
            buggy = re.search(r"```python\n(.*?)```", obs, re.S).group(1)
            fixed = extract_code(env.reference_action()) + "\n"
            assert sum(a != b for a, b in zip(buggy.splitlines(), fixed.splitlines())) == bugs
            shown = inner.visible[0]
            assert exec_trusted(buggy, [shown]) == [False], "the shown test must fail on the buggy code"
            assert exec_trusted(fixed, [shown]) == [True]


def test_class_design_scenarios_explain_the_first_wrong_call() -> None:
    env = make_env("spade_domains.code.seeds.class_design", methods=4)
    for seed in range(12):
        env.reset(seed=seed)
        if inner_of(env).spec["name"] == "BankAccount":
            break
    reference = extract_code(env.reference_action())
    broken = reference.replace("self.amount = self.amount + amount", "self.amount = self.amount + amount + 1")
    namespace: dict = {}
    exec(compile(broken + inner_of(env).driver, "<trusted>", "exec"), namespace)  # ours
    messages = [namespace[f"spade_explain_{i + 1}"](namespace[f"spade_check_{i + 1}"]())
                for i in range(len(inner_of(env).tests))]
    wrong = [m for m in messages if m != "ok"]
    assert wrong and all("acct.deposit(" in m and "expected" in m for m in wrong)


def _solved_fraction(module: str, code_for_task, knobs: dict, want: str) -> float:
    solved = total = 0
    for seed in range(60):
        env = make_env(module, **knobs)
        env.reset(seed=seed)
        inner = inner_of(env)
        task = getattr(inner, "task", None) or getattr(inner, "fmt", None)
        if task["name"] != want:
            continue
        total += 1
        solved += all(exec_trusted(code_for_task, inner.tests))
    assert total >= 3
    return solved / total


def test_string_edge_case_knob_catches_naive_solutions() -> None:
    naive = "def reverse_words(s):\n    return ' '.join(s.split(' ')[::-1])\n"
    module = "spade_domains.code.seeds.string_edge_cases"
    assert _solved_fraction(module, naive, {"edge_cases": 0}, "reverse_words") == 1.0
    assert _solved_fraction(module, naive, {"edge_cases": 4}, "reverse_words") == 0.0


def test_parse_format_feature_knob_catches_naive_parsers() -> None:
    naive = "def parse_duration(text):\n    return int(text[:-1]) * {'h': 3600, 'm': 60, 's': 1}[text[-1]]\n"
    module = "spade_domains.code.seeds.parse_format"
    assert _solved_fraction(module, naive, {"features": 0}, "parse_duration") == 1.0
    assert _solved_fraction(module, naive, {"features": 4}, "parse_duration") == 0.0


@pytest.mark.parametrize(
    ("module", "knob", "grows"),
    [
        ("spade_domains.code.seeds.implement_function", "hidden_tests", "tests"),
        ("spade_domains.code.seeds.regex_writer", "hidden_examples", "tests"),
        ("spade_domains.code.seeds.class_design", "scenarios", "tests"),
        ("spade_domains.code.seeds.algorithms", "hidden_tests", "tests"),
        ("spade_domains.code.seeds.data_pipeline", "stages", "stages"),
        ("spade_domains.code.seeds.string_edge_cases", "edge_cases", "tests"),
        ("spade_domains.code.seeds.parse_format", "features", "tests"),
        ("spade_domains.code.seeds.spec_evolution", "stages", "stages"),
        ("spade_domains.code.seeds.fix_the_bug", "bugs", "bugs"),
    ],
)
def test_difficulty_knob_changes_the_task(module: str, knob: str, grows: str) -> None:
    spec = {k.name: k for k in make_env(module).manifest.difficulty}[knob]
    low, high = make_env(module, **{knob: int(spec.min)}), make_env(module, **{knob: int(spec.max)})
    for seed in range(5):
        assert low.reset(seed=seed)[1][grows] < high.reset(seed=seed)[1][grows]


def test_algorithm_tiers_pick_different_problems() -> None:
    names = {}
    for tier in (1, 2, 3):
        env = make_env("spade_domains.code.seeds.algorithms", tier=tier)
        names[tier] = {env.reset(seed=s)[1]["function"] for s in range(12)}
    assert names[1].isdisjoint(names[2]) and names[2].isdisjoint(names[3]) and names[1].isdisjoint(names[3])


# -- with the sandbox (these FAIL when spade_core.sandbox.run_python_code is missing) -------------------------------
def test_sandbox_run_tests_passes_fails_and_explains() -> None:
    require_sandbox()
    code = "def add(a, b):\n    return a + b\n"
    result = run_tests(code, ["assert add(2, 3) == 5", equality_test("add(1, 1)", 3), "assert add(None, 1) == 1"])
    assert result["passed"] == 1 and result["failed"] == 2 and result["error"] is None
    assert [r["ok"] for r in result["results"]] == [True, False, False]
    assert "got 2" in result["results"][1]["error"]
    assert "TypeError" in result["results"][2]["error"]


def test_sandbox_contains_hostile_code() -> None:
    require_sandbox()
    escaped = run_tests("import os\nos.system('touch /tmp/spade-code-domain-pwned')\n", ["assert True"])
    assert escaped["passed"] == 0 and "import of 'os' is not allowed" in escaped["error"]
    opened = run_tests("def f():\n    return open('/etc/passwd').read()\n", ["assert f()"])
    assert opened["passed"] == 0
    started = time.perf_counter()
    looping = run_tests("def f():\n    while True:\n        pass\n", ["assert f() is None", "assert True"], timeout_s=1.0)
    assert not looping["results"][0]["ok"] and "limit" in looping["results"][0]["error"]
    assert time.perf_counter() - started < 10


@pytest.mark.parametrize("module", SEED_MODULES)
def test_sandbox_reference_solves_every_seed(module: str) -> None:
    require_sandbox()
    env = make_env(module)
    for seed in range(10):
        env.reset(seed=seed)
        while True:
            obs, reward, terminated, truncated, info = env.step(env.reference_action())
            assert info["format_error"] is None, obs
            if terminated or truncated:
                break
        assert info["success"] and reward == 1.0 and terminated and not truncated, f"{module} seed {seed}: {obs}"


@pytest.mark.parametrize("module", SEED_MODULES)
def test_sandbox_wrong_code_gets_feedback_then_the_fix_succeeds(module: str) -> None:
    require_sandbox()
    env = make_env(module)
    env.reset(seed=4)
    wrong = stub_for(extract_code(env.reference_action()))
    obs, reward, terminated, truncated, info = env.step(f"```python\n{wrong}```")
    assert info["format_error"] is None and info["action_is_valid"] is True
    assert not info["success"] and reward == 0.0 and not terminated and not truncated
    assert re.search(r"tests pass|did not run|not passed", obs) and "Turns left" in obs
    assert ("FAILED" in obs) or ("hidden test(s) fail" in obs) or ("did not run" in obs)
    while True:
        obs, reward, terminated, truncated, info = env.step(env.reference_action())
        if terminated or truncated:
            break
    assert info["success"]


def test_sandbox_spec_evolution_reveals_one_stage_per_pass() -> None:
    require_sandbox()
    env = make_env("spade_domains.code.seeds.spec_evolution", stages=3)
    env.reset(seed=2)
    for stage in (1, 2):
        obs, reward, terminated, _, info = env.step(env.reference_action())
        assert f"Stage {stage} passed." in obs and f"Stage {stage + 1} of 3" in obs and not terminated
    obs, reward, terminated, _, info = env.step(env.reference_action())
    assert terminated and info["success"] and reward == 1.0


def test_sandbox_fix_the_bug_reveals_the_next_failing_test() -> None:
    require_sandbox()
    env = make_env("spade_domains.code.seeds.fix_the_bug", bugs=3)
    obs, _ = env.reset(seed=7)
    buggy = re.search(r"```python\n(.*?)```", obs, re.S).group(1)
    obs, _, terminated, _, info = env.step(f"```python\n{buggy}```")
    assert not info["success"] and not terminated
    assert "Newly revealed failing test:" in obs and len(inner_of(env).visible) == 2


def test_sandbox_regex_writer_checks_patterns_in_the_sandbox() -> None:
    require_sandbox()
    env = make_env("spade_domains.code.seeds.regex_writer")
    env.reset(seed=3)
    obs, _, _, _, info = env.step('```python\nPATTERN = r".*"\n```')
    assert not info["success"] and "should NOT match" in obs
    obs, _, terminated, _, info = env.step(env.reference_action())
    assert terminated and info["success"]
