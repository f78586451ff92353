"""Every parse of model text in the bundled environments is linear: the longest action a manifest allows, built
from the prefixes that make backtracking parsers blow up (unclosed tags and fences, repeated labels, separators),
steps every bundled seed within a per-step time bound. (Before the parsers moved to RE2, 4 kB of such text held
``spade/Algorithms-v0`` for 18-31 s and 1.4 kB ``spade/LedgerReconcile-v0`` for 8 s.)"""

from __future__ import annotations

import time

import pytest

from spade_core.contract import SpadeEnv
from spade_core.contract.inner import LocalInnerEnv, load_trusted_module
from spade_core.plugins.manager import get_plugins
from spade_registry.manifest import EnvManifest

SEED_MODULES = sorted(s.module for s in get_plugins().collect_flat("spade_seed_environments"))
STEP_BOUND_S = 3.0
"""Far above a linear parse of the longest action (milliseconds), far below a quadratic or cubic one (seconds+)."""

SHAPES = (  # (head, filler repeated to the length limit, tail)
    ("```", " ", "`"), ("```", " \t", ""), ("~~~", " ", "~`"), ("```json", " ", "\n{"), ("", "<tool_call>", ""),
    ("", "<tool_call>{", ""), ("", "```", ""), ("", '{"name":', ""), ("", '[{"name":"', ""), ("", "answer: ", ""),
    ("", "final answer is ", ""), ("", "\\boxed{", ""), ("", "\\text{", ""), ("x", " = ", ""), ("", "a1 ", ""),
    ("Move:", " ", ":"), ("", "-1", ""), ("", "1/", ""), ("def f():\n", "    ", "`"), ("", "\t ", "x"),
)


def _long(head: str, filler: str, tail: str, chars: int) -> str:
    body = chars - len(head) - len(tail)
    return head + (filler * (body // len(filler) + 1))[:body] + tail


@pytest.mark.parametrize("module", SEED_MODULES)
def test_longest_adversarial_actions_parse_in_bounded_time(module: str) -> None:
    raw, cls = load_trusted_module(module)
    manifest = EnvManifest.from_dict(raw, source=module)
    env = SpadeEnv(manifest, lambda knobs: LocalInnerEnv(cls, knobs), env_id=module)
    chars = min(manifest.max_action_chars, 4096)
    try:
        for head, filler, tail in SHAPES:
            env.reset(seed=1)
            started = time.perf_counter()
            env.step(_long(head, filler, tail, chars))
            elapsed = time.perf_counter() - started
            assert elapsed < STEP_BOUND_S, (f"{module}: {chars} chars of {head!r} + {filler!r}... + {tail!r} took "
                                            f"{elapsed:.1f} s")
    finally:
        env.close()
