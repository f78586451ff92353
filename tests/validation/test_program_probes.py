"""Probes for fixed-spec code tasks, whose seed and knobs change only the hidden tests: a size-limited reference
program (right on small inputs, None past a size) and the wrong programs in place of the reference's answer."""

from __future__ import annotations

from spade_core.validation.mutations import size_limited, wrong_program_steps

REFERENCE = "```python\ndef depth(src):\n    best = level = 0\n    for ch in src:\n        level += (ch == '(') - (ch == ')')\n        best = max(best, level)\n    return best\n```"


def _function(action: str, name: str):
    code = action.split("```python\n", 1)[1].rsplit("```", 1)[0]
    namespace: dict = {}
    exec(compile(code, "<probe>", "exec"), namespace)  # the test's own program, not untrusted input
    return namespace[name]


def test_a_size_limited_program_is_right_below_the_size_and_answers_none_past_it() -> None:
    steps = size_limited(["look", REFERENCE], 24)
    assert steps is not None and steps[0] == "look"
    depth = _function(steps[-1], "depth")
    assert depth("(a (b))") == 2
    assert depth("(" * 30 + ")" * 30) is None
    assert _function(size_limited([REFERENCE], 64)[-1], "depth")("(" * 20 + ")" * 20) == 20


def test_only_a_program_answer_gets_program_probes() -> None:
    assert size_limited(["\\boxed{42}"], 24) is None
    assert wrong_program_steps(["\\boxed{42}"]) == []
    probes = wrong_program_steps(["look", REFERENCE])
    assert len(probes) == 2 and all(p[0] == "look" and p[-1] != REFERENCE for p in probes)
