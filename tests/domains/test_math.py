"""The math domain: answer verification, action parsing, the plugin's hooks and every seed environment."""

from __future__ import annotations

import ast
import builtins
import math
import re
import time
import warnings
from fractions import Fraction
from typing import Any

import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from RestrictedPython import compile_restricted

from spade_core.contract.env import SpadeEnv
from spade_core.contract.inner import LocalInnerEnv, load_trusted_module
from spade_core.designer.domain_material import domain_guidance
from spade_core.plugins.contributions import SeedEnvironment
from spade_domains.math import plugin
from spade_domains.math.verify import (
    MAX_EXPONENT,
    MathParseError,
    answers_match,
    extract_answer,
    mentions_answer,
    normalize_answer,
    parse_math,
    safe_echo,
    to_number,
)
from spade_registry.manifest import EnvManifest

SEEDS = [f"spade_domains.math.seeds.{name}" for name in plugin.SEED_MODULES]
MULTI_TURN = [m for m in SEEDS if not m.endswith("arithmetic_chain")]
STDLIB_STAND_INS = {"math", "re", "json", "string", "itertools", "collections", "heapq", "bisect", "fractions",
                    "statistics", "copy", "functools"}
CURATED_BUILTINS = {"abs", "all", "any", "bool", "dict", "divmod", "enumerate", "float", "int", "isinstance", "len",
                    "list", "max", "min", "pow", "range", "reversed", "round", "set", "sorted", "str", "sum",
                    "tuple", "zip"}
FORBIDDEN_CALLS = {"print", "open", "eval", "exec", "getattr", "setattr", "delattr", "type", "compile", "input",
                   "globals", "locals", "vars", "__import__"}
MALFORMED = ["", " ", "\n\n", "{not json", '{"name": "calc", "arguments": {"x": [1, 2]}}', "\ud800", "a\ud800b",
             "\\boxed{", "\\boxed{}", "Answer:", "\x00\x01\x02", "nan", "inf", "1e999999", "9" * 5000,
             "\\boxed{" * 200, "<tool_call>{\"name\": \"nope\"}</tool_call>"]
PARSE_SETTINGS = settings(derandomize=True, deadline=None, max_examples=50)


def make_env(module: str, **knobs: Any) -> SpadeEnv:
    raw, cls = load_trusted_module(module)
    manifest = EnvManifest.from_dict(raw, source=module)
    return SpadeEnv(manifest, lambda k: LocalInnerEnv(cls, k), knobs=knobs)


def run_episode(env: SpadeEnv, seed: int, policy) -> tuple[dict, list[str], list[str], float]:
    """Play to the end; return the last info, the hints and reference actions seen each turn, and the return."""
    obs, info = env.reset(seed=seed)
    hints, refs, total = [], [], 0.0
    while True:
        hints.append(env.privileged_hint())
        refs.append(env.reference_action())
        obs, reward, terminated, truncated, info = env.step(policy(env, obs))
        total += reward
        if terminated or truncated:
            return info, hints, refs, total


def reference(env: SpadeEnv, obs: str) -> str:
    return env.reference_action()


def boxed_value(action: str) -> str:
    return extract_answer(action) or action


# -- verify: equivalence ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("given", "expected", "match"),
    [
        ("42", "42", True), ("42.0", "42", True), ("1,000", "1000", True), ("-7", "-7.000", True),
        ("1/2", "0.5", True), ("\\frac{1}{2}", "0.5", True), ("\\dfrac{3}{4}", "0.75", True),
        ("-\\frac{3}{4}", "-0.75", True), ("2\\sqrt{2}", "sqrt(8)", True), ("\\sqrt{8}", "2*sqrt(2)", True),
        ("\\frac{\\sqrt{3}}{2}", "sqrt(3)/2", True), ("\\sqrt[3]{27}", "3", True), ("e^{i\\pi}", "-1", True),
        ("x^2+2x+1", "(x+1)^2", True), ("(x+1)(x-1)", "x^2 - 1", True), ("2^{n+1}", "2\\cdot 2^n", True),
        ("\\pi", "pi", True), ("2\\pi", "6.283185307179586", True), ("x = 5", "5", True), ("50\\%", "50", True),
        ("90^\\circ", "90", True), ("12 \\text{ cm}", "12", True), ("(1, 2)", "(1,2)", True), ("Yes", "yes", True),
        ("$\\frac{7}{2}$", "3.5", True), ("1e3", "1000", True), ("\\infty", "oo", True),
        ("0.3333", "1/3", False), ("3.14", "\\pi", False), ("x^2", "x^3", False), ("x", "y", False),
        ("(1,2)", "(2,1)", False), ("2", "-2", False), ("1/3", "0.33", False), ("", "0", False), ("7", "", False),
    ],
)
def test_answers_match(given: str, expected: str, match: bool) -> None:
    assert answers_match(given, expected) is match
    assert answers_match(expected, given) is match


def test_answers_match_tolerance_is_relative_to_the_expected_size() -> None:
    assert answers_match("3.1416", "pi", rel_tol=1e-4)
    assert not answers_match("3.15", "pi", rel_tol=1e-4)
    assert answers_match("1000.4", "1000", rel_tol=1e-3)


def test_to_number_is_exact() -> None:
    assert to_number("\\frac{-3}{4}") == Fraction(-3, 4)
    assert to_number("-\\frac{3}{4}") == Fraction(-3, 4)
    assert to_number("0.1") == Fraction(1, 10)
    assert to_number("2,500") == 2500
    assert to_number("1/0") is None
    assert to_number("sqrt(2)") is None
    assert to_number("1e999999") is None  # exponent too long: never builds a huge integer


def test_extract_answer_forms() -> None:
    assert extract_answer("so \\boxed{\\frac{1}{2}} done") == "\\frac{1}{2}"
    assert extract_answer("first \\boxed{1} then \\boxed{2}") == "2"
    assert extract_answer("Final answer: 12.") == "12"
    assert extract_answer("The answer is 42") == "42"
    assert extract_answer("  17 ") == "17"
    assert extract_answer("no number here") is None
    assert extract_answer("\\boxed{unclosed") is None
    assert extract_answer(None) is None  # type: ignore[arg-type]


def test_normalize_and_mentions_answer() -> None:
    assert normalize_answer("$x = \\dfrac{1}{2}$.") == "\\frac{1}{2}"
    assert mentions_answer("the value is 0.5", "1/2")
    assert mentions_answer("it is -12 here", "12")
    assert not mentions_answer("square the previous residue", "7")
    assert safe_echo("a\ud800" + "b" * 100).startswith("a?b")
    assert len(safe_echo("x" * 10_000)) <= 43


@pytest.mark.parametrize(
    "text",
    ["9^9^9^9", "2^(2^(2^(2^5)))", "((2^64)^64)^64", "x^100000", "10^1000", "sin(2^4096)", "(" * 150 + "1" + ")" * 150,
     "2^(64*64*64*x)", "__import__('os').system('true')", "().__class__", "lambda: 1", "open('x')", "a.b",
     "x" * 300, "\\input{/etc/passwd}", "1" + "^1" * 90],
)
def test_parse_math_refuses_expensive_or_foreign_input_quickly(text: str) -> None:
    start = time.monotonic()
    with pytest.raises(MathParseError):
        parse_math(text)
    assert not answers_match(text, "1")
    assert time.monotonic() - start < 1.0


def test_parse_math_accepts_small_powers() -> None:
    assert parse_math(f"2^{MAX_EXPONENT}") == 2**MAX_EXPONENT
    assert parse_math("(x+1)^3").expand() == parse_math("x^3 + 3x^2 + 3x + 1").expand()


@PARSE_SETTINGS
@given(st.text(max_size=300))
def test_answers_match_never_raises_and_is_fast(text: str) -> None:
    start = time.monotonic()
    assert answers_match(text, "12") in (True, False)
    assert answers_match("x^2", text) in (True, False)
    assert time.monotonic() - start < 1.0


@PARSE_SETTINGS
@given(st.integers(-10**6, 10**6), st.integers(1, 10**4))
def test_fractions_match_their_decimal_and_latex_forms(num: int, den: int) -> None:
    value = Fraction(num, den)
    assert answers_match(f"\\frac{{{num}}}{{{den}}}", f"{value.numerator}/{value.denominator}")
    assert answers_match(f"{float(value)!r}", f"{value.numerator}/{value.denominator}", rel_tol=1e-12)
    if value != 0:
        assert not answers_match(f"{num + den}/{den}", f"{num}/{den}")


# -- plugin hooks -------------------------------------------------------------------------------------------
def test_plugin_hooks() -> None:
    (domain,) = plugin.spade_domains()
    assert domain.name == "math" and domain.answer_kind == "numeric" and domain.selfplay_default
    assert domain.sandbox_modules == ("spade_domains.math.verify",) and domain.topics["Mathematics"] > 1
    assert len(domain.worked_examples) == 2 and set(domain.worked_examples) <= set(SEEDS)
    for needle in ("answers_match", "format_error", "mentions_answer(", "HINT:"):  # the contract is prompts.py's
        assert needle in domain_guidance(domain)
    seeds = plugin.spade_seed_environments()
    assert [s.module for s in seeds] == SEEDS and len(MULTI_TURN) >= 8
    assert all(isinstance(s, SeedEnvironment) and s.source() for s in seeds)
    modules = plugin.spade_sandbox_modules()
    exposed = modules["spade_domains.math.verify"]
    assert {"extract_answer", "answers_match", "to_number"} <= set(exposed)
    from spade_core.plugins.contributions import load_object

    assert all(callable(load_object(ref)) for ref in exposed.values())


# -- every seed ---------------------------------------------------------------------------------------------
def _exposed_names() -> dict[str, set[str]]:
    return {mod: set(names) for mod, names in plugin.spade_sandbox_modules().items()}


@pytest.mark.parametrize("module", MULTI_TURN)
def test_seed_is_valid_sandboxed_code(module: str) -> None:
    source = SeedEnvironment(module).source()
    compile_restricted(source, module, "exec")  # raises SyntaxError on anything RestrictedPython refuses
    tree = ast.parse(source)
    exposed = _exposed_names()
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert len(classes) == 1 and not classes[0].bases
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert all(a.name in STDLIB_STAND_INS for a in node.names), ast.dump(node)
        elif isinstance(node, ast.ImportFrom):
            if node.module in exposed:
                assert {a.name for a in node.names} <= exposed[node.module]
            else:
                assert node.module in STDLIB_STAND_INS, node.module
        elif isinstance(node, ast.Global):
            pytest.fail("global statement")
        elif isinstance(node, ast.Attribute):
            assert node.attr != "format", "str.format is refused by the sandbox"
        elif isinstance(node, ast.Name) and node.id in dir(builtins):
            assert node.id not in FORBIDDEN_CALLS, node.id
            if node.id[0].islower():
                assert node.id in CURATED_BUILTINS, node.id


@pytest.mark.parametrize("module", SEEDS)
def test_seed_passes_the_validation_pipeline_in_the_sandbox(module: str) -> None:
    """Seeds are valid designer code: the full validation pipeline (sandboxed) accepts each one."""
    from spade_core.validation import validate_source

    report = validate_source(SeedEnvironment(module).source(), file=f"{module.rsplit('.', 1)[-1]}.py")
    assert report.status == "accepted", report.repair_message()


@pytest.mark.parametrize("module", SEEDS)
def test_seed_passes_check_env(module: str) -> None:
    env = make_env(module)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*spec.*")
        check_env(env)
    assert env.manifest.domain == "math" and env.manifest.grounding


@pytest.mark.parametrize("module", MULTI_TURN)
def test_seed_quality_bar(module: str) -> None:
    env = make_env(module)
    assert env.manifest.max_turns >= 3 and env.manifest.difficulty
    low, high = env.manifest.reward_range
    solved = 0
    for seed in range(20):
        info, hints, refs, total = run_episode(env, seed, reference)
        solved += info["success"]
        assert low - 1e-9 <= total <= high + 1e-9
        answers = [boxed_value(r) for r in refs]
        for hint in hints:
            for answer in answers:
                assert not mentions_answer(hint, answer), (module, seed, hint, answer)
    assert solved >= 18
    env.action_space.seed(0)
    assert sum(run_episode(env, s, lambda e, o: e.action_space.sample())[0]["success"] for s in range(20)) < 2
    assert not any(run_episode(env, s, lambda e, o: "0")[0]["success"] for s in range(20))
    assert not any(run_episode(env, s, lambda e, o: e.privileged_hint())[0]["success"] for s in range(20))


@pytest.mark.parametrize("module", MULTI_TURN)
def test_seed_knobs_change_the_task_and_stay_solvable(module: str) -> None:
    raw, _ = load_trusted_module(module)
    for name, spec in raw["difficulty"].items():
        easy, hard = make_env(module, **{name: spec["min"]}), make_env(module, **{name: spec["max"]})
        differs = False
        for seed in range(6):
            a, b = easy.reset(seed=seed)[0], hard.reset(seed=seed)[0]
            ref_a, ref_b = easy.reference_action(), hard.reference_action()
            differs = differs or a != b or ref_a != ref_b
        assert differs, f"{module}: knob {name} changes nothing"
        for env in (easy, hard):
            solved = sum(run_episode(env, s, reference)[0]["success"] for s in range(5))
            assert solved >= 4, f"{module}: {name} extreme is not solvable by the reference"


@pytest.mark.parametrize("module", MULTI_TURN)
def test_seed_wrong_answer_gets_feedback_and_a_retry(module: str) -> None:
    env = make_env(module)
    env.reset(seed=3)
    right = boxed_value(env.reference_action())
    value = to_number(right)
    if value is None:
        wrong_value: Any = 12345
    elif 0 < value < 1:  # a probability: stay inside [0, 1] but far from the answer
        wrong_value = value / 2 if value > Fraction(1, 2) else (value + 1) / 2
    else:
        wrong_value = value * 3 + 7
    wrong = f"\\boxed{{{wrong_value}}}"
    obs, reward, terminated, truncated, info = env.step(wrong)
    assert not info["success"] and info["format_error"] is None
    assert not terminated and not truncated
    assert obs and len(obs) > 20
    assert env.reference_action()  # the episode goes on


@PARSE_SETTINGS
@given(st.sampled_from(MULTI_TURN), st.one_of(st.text(max_size=200), st.sampled_from(MALFORMED)), st.integers(0, 50))
def test_seed_malformed_actions_never_raise(module: str, action: str, seed: int) -> None:
    env = make_env(module)
    obs0, _ = env.reset(seed=seed)
    obs, reward, terminated, truncated, info = env.step(action)
    assert isinstance(obs, str) and obs
    if extract_answer(action) is None:
        assert info["format_error"], (module, action)
        assert not terminated and not truncated
        assert not info["success"]
    if not (terminated or truncated):
        nxt = env.step(env.reference_action())  # a usable next observation: the episode continues normally
        assert isinstance(nxt[0], str)


@pytest.mark.parametrize("module", MULTI_TURN)
def test_seed_inner_class_survives_huge_and_odd_actions(module: str) -> None:
    _, cls = load_trusted_module(module)
    handle = LocalInnerEnv(cls, make_env(module).knobs)
    handle.reset(1, {})
    for action in ("x" * 1_000_000, "\\boxed{" + "9" * 100_000 + "}", "\ud800\\boxed{\ud800}", "\\boxed{1e999999}"):
        start = time.monotonic()
        obs, reward, terminated, truncated, info = handle.step(action)
        assert isinstance(obs, str) and len(obs) < 4000
        assert time.monotonic() - start < 1.0


@pytest.mark.parametrize("module", MULTI_TURN)
def test_seed_is_deterministic(module: str) -> None:
    def trace(env: SpadeEnv) -> list[Any]:
        out: list[Any] = [env.reset(seed=11)[0]]
        for action in ("\\boxed{1}", "hello", env.reference_action(), "\\boxed{2}"):
            step = env.step(action)
            out.append((step[0], step[1], step[2], step[3]))
            if step[2] or step[3]:
                break
        return out

    assert trace(make_env(module)) == trace(make_env(module))


# -- behaviour of particular seeds ----------------------------------------------------------------------------
def test_word_problem_reports_direction_and_gives_credit_per_step() -> None:
    env = make_env("spade_domains.math.seeds.word_problem_steps", steps=3)
    env.reset(seed=5)
    right = to_number(boxed_value(env.reference_action()))
    obs, reward, *_ = env.step(f"\\boxed{{{right + 1}}}")
    assert "too high" in obs and reward == 0
    obs, reward, *_ = env.step(f"Answer: {right}")
    assert reward == pytest.approx(1 / 3) and "Correct" in obs


def test_unit_conversion_accepts_rounded_values_within_tolerance() -> None:
    env = make_env("spade_domains.math.seeds.unit_conversion_chain")
    env.reset(seed=2)
    exact = to_number(boxed_value(env.reference_action()))
    obs, reward, *_ = env.step(f"\\boxed{{{float(exact) * 1.0004:.6g}}}")
    assert "Correct" in obs and reward > 0


def test_bayes_update_accepts_decimal_within_a_thousandth() -> None:
    env = make_env("spade_domains.math.seeds.bayes_urn_update")
    env.reset(seed=4)
    exact = to_number(boxed_value(env.reference_action()))
    obs, *_ = env.step(f"\\boxed{{{float(exact) + 0.0008:.4f}}}")
    assert obs.startswith("Correct")


def test_secret_number_feedback_has_direction_and_gcd() -> None:
    env = make_env("spade_domains.math.seeds.secret_number_clues", digits=2)
    env.reset(seed=9)
    obs, *_ = env.step("\\boxed{50}")
    assert ("higher" in obs or "lower" in obs or "Solved" in obs) and ("gcd" in obs or "Solved" in obs)


def test_linear_system_reports_the_residual() -> None:
    env = make_env("spade_domains.math.seeds.linear_system_steps", size=2)
    env.reset(seed=1)
    env.step(env.reference_action())
    x = to_number(boxed_value(env.reference_action()))
    obs, *_ = env.step(f"\\boxed{{{x + 1}}}")
    assert "off by" in obs


def test_counting_gives_partial_credit() -> None:
    env = make_env("spade_domains.math.seeds.counting_complements", parts=3)
    env.reset(seed=0)
    total = 0.0
    total += env.step("\\boxed{1}")[1] + env.step("\\boxed{2}")[1]  # part 1 lost after two tries
    while True:
        obs, reward, terminated, truncated, info = env.step(env.reference_action())
        total += reward
        if terminated or truncated:
            break
    assert total == pytest.approx(2 / 3) and info["correct"] == 2 and info["success"] is False


def test_euclid_accepts_any_small_bezout_coefficient() -> None:
    env = make_env("spade_domains.math.seeds.euclid_remainders", digits=2)
    obs, _ = env.reset(seed=0)
    a, b = (int(v) for v in re.search(r"gcd\((\d+), (\d+)\)", obs).groups())
    g = math.gcd(a, b)
    steps = 0
    x, y = a, b
    while x % y:
        x, y = y, x % y
        steps += 1
    for _ in range(steps + 1):  # every remainder, then the gcd
        env.step(env.reference_action())
    x_ref = int(boxed_value(env.reference_action()))
    alternative = x_ref - b // g if x_ref > 0 else x_ref + b // g
    obs, reward, terminated, truncated, info = env.step(f"\\boxed{{{alternative}}}")
    assert (a * alternative - g) % b == 0
    assert info["success"] is (abs(alternative) * g <= b)


def test_modular_power_rejects_zero_with_a_reason() -> None:
    env = make_env("spade_domains.math.seeds.modular_power_steps")
    env.reset(seed=0)
    obs, *_ = env.step("\\boxed{0}")
    assert "prime" in obs
