"""Every trusted seed environment of every domain survives adversarial model actions.

Trusted seeds run in the host process, so a model's action must never raise out of ``step()``: huge numbers,
NaN/inf, deeply nested JSON, lone surrogates, very long strings and malformed tool calls end as a format error or
an ordinary observation, with a finite reward. The seeds come from the plugin registry (a new seed is covered
automatically); each example first plays a few reference moves so that later turns are attacked too.
"""

from __future__ import annotations

import json
import math
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spade_core.contract import SpadeEnv
from spade_core.contract.inner import LocalInnerEnv, load_trusted_module
from spade_core.plugins.manager import get_plugins
from spade_registry.manifest import EnvManifest

SEED_MODULES = sorted(s.module for s in get_plugins().collect_flat("spade_seed_environments"))
DOMAINS = {module.split(".")[1] for module in SEED_MODULES}
STEP_BUDGET_S = 30.0
"""A generous bound on one step (the code domain runs agent code in a sandbox worker)."""


def make(module: str) -> SpadeEnv:
    raw, cls = load_trusted_module(module)
    manifest = EnvManifest.from_dict(raw, source=module)
    return SpadeEnv(manifest, lambda knobs: LocalInnerEnv(cls, knobs), env_id=module)


BIG_INTS = st.one_of(
    st.integers(min_value=19, max_value=6000).map(lambda n: "9" * n),
    st.integers(min_value=19, max_value=6000).map(lambda n: "-1" + "0" * n),
    st.sampled_from(["18446744073709551616", "9223372036854775808", "0x" + "f" * 300, "1_000_000_000_000_000"]),
)
FLOATS = st.one_of(
    st.sampled_from(["1e308", "-1e308", "1e999", "-1e999", "1e-400", "NaN", "Infinity", "-Infinity", "nan", "inf",
                     "-0.0", "4.9e-324", "1.7976931348623157e308", "10**10**7", "power(10, 10**7)"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
SURROGATES = st.text(st.characters(categories=["Cs"]), min_size=1, max_size=4)
JSON_VALUES = st.one_of(
    BIG_INTS, FLOATS, SURROGATES.map(lambda s: json.dumps(s)), st.just('"\\ud800"'), st.just('"\\udfff x"'),
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n), st.integers(1, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.integers(1000, 40_000).map(lambda n: json.dumps("x" * n)),
    st.sampled_from(["null", "true", "[]", "{}", '""', '"../../../etc/passwd"', '"\\u001b[2J\\u001b]52;c;aGk=\\u0007"']),
)


def tool_call(names: list[str]) -> st.SearchStrategy[str]:
    """Tool calls (several shapes) whose argument values are hostile JSON, written as raw text."""
    name = st.sampled_from(names) if names else st.text(max_size=20)
    key = st.sampled_from(["amount", "path", "expression", "account", "day", "n", "x", "query", "limit", "a"])
    args = st.lists(st.tuples(key, JSON_VALUES), max_size=4).map(
        lambda kv: "{" + ",".join(f"{json.dumps(k)}:{v}" for k, v in kv) + "}")
    one = st.builds(lambda n, a: f'{{"name":{json.dumps(n)},"arguments":{a}}}', name, args)
    return st.one_of(
        one, one.map(lambda c: f"[{c},{c}]"), one.map(lambda c: f"<tool_call>{c}</tool_call>"),
        one.map(lambda c: f"```json\n{c}\n```"), st.builds(lambda n, a: f'{{"name":{json.dumps(n)},"arguments":'
                                                               f'{json.dumps(a)}}}', name, args),
        st.sampled_from(['{"name": 5}', '{"name":"x","arguments":[1]}', "<tool_call>", "```json\n{\n```",
                         '{"tool_calls": 7}', "[" + ",".join(['{"name":"finish"}'] * 50) + "]", '{"name":"finish",'
                         '"arguments":{"answer":' + json.dumps("\x1b[31m" * 300) + "}}"]),
    )


def actions(names: list[str], max_chars: int) -> st.SearchStrategy[str]:
    return st.one_of(
        BIG_INTS, FLOATS, JSON_VALUES, tool_call(names), SURROGATES, SURROGATES.map(lambda s: "5" + s),
        st.integers(max_chars - 5, max_chars + 5).map(lambda n: "7" * n),
        st.text(max_size=300), st.builds(lambda a, b: a + b, st.sampled_from(["1 ", "a1 ", "move ", "def f():\n  "]),
                                          st.one_of(BIG_INTS, FLOATS, SURROGATES)),
    )


def test_every_domain_has_seeds_under_attack() -> None:
    assert {"math", "code", "tool_use", "games"} <= DOMAINS


@pytest.mark.parametrize("module", SEED_MODULES)
def test_trusted_seed_step_never_raises_on_hostile_actions(module: str) -> None:
    env = make(module)
    names = list(env.manifest.tools)
    examples = 12 if ".code." in module else 40

    @settings(max_examples=examples, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(seed=st.integers(0, 2**16), lead=st.integers(0, 3),
           attack=st.lists(actions(names, env.manifest.max_action_chars), min_size=1, max_size=3))
    def run(seed: int, lead: int, attack: list[str]) -> None:
        obs, info = env.reset(seed=seed)
        for _ in range(lead):  # reach a later turn with the environment's own solver
            _, reward, terminated, truncated, info = env.step(env.reference_action())
            if terminated or truncated:
                obs, info = env.reset(seed=seed)
                break
        for action in attack:
            started = time.monotonic()
            obs, reward, terminated, truncated, info = env.step(action)
            assert time.monotonic() - started < STEP_BUDGET_S
            assert isinstance(obs, str)
            assert math.isfinite(float(reward))
            assert "sandbox_error" not in info, info["sandbox_error"]  # trusted code: no contract error either
            json.dumps(info)
            if terminated or truncated:
                break

    try:
        run()
    finally:
        env.close()
