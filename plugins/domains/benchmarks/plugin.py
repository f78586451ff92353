"""The benchmarks plugin: evaluation suites for ``spade eval`` (BFCL v4 multi-turn, reasoning-gym, local JSONL).

Suites are offered through the ``spade_eval_suites`` hook. Listing them imports nothing heavy; each suite's loader
(and the benchmark package it needs) is imported only when the suite is loaded.
"""

from __future__ import annotations

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import EvalSuiteSpec

_BFCL_INSTALL = "pip install 'spade-rl[eval]' && pip install --no-deps bfcl-eval"
_RG_INSTALL = "pip install 'spade-rl[eval]'   (or: pip install reasoning-gym)"
_BFCL_REQUIRES = ("bfcl_eval", "mpmath")

_BFCL = {
    "base": "user requests that the tools can serve directly",
    "miss_func": "a needed function is held out until a later turn; the model must not fake it",
    "miss_param": "a request lacks a required value; the model must ask instead of guessing",
    "long_context": "the API state is padded with long, distracting content",
}


@hookimpl
def spade_eval_suites() -> list[EvalSuiteSpec]:
    """The evaluation suites this plugin provides."""
    specs = [
        EvalSuiteSpec(
            name=f"bfcl-multi-turn-{category.replace('_', '-')}",
            description=f"BFCL v4 multi-turn, {category} (200 tasks): {what}. Success by BFCL's state and "
                        "execution-result checks against the ground-truth run.",
            loader=f"spade_domains.benchmarks.bfcl:load_{category}",
            requires=_BFCL_REQUIRES, install_hint=_BFCL_INSTALL, tags=("bfcl", "tool_use", "multi_turn"),
        )
        for category, what in _BFCL.items()
    ]
    specs += [
        EvalSuiteSpec(
            name="reasoning-gym",
            description="reasoning-gym generators (basic_arithmetic, chain_sum, letter_counting, simple_equations, "
                        "propositional_logic; or NAME:<dataset>), one answer each, scored by reasoning-gym's scorers.",
            loader="spade_domains.benchmarks.reasoning:load_single_turn", requires=("reasoning_gym",),
            install_hint=_RG_INSTALL, argument="reasoning-gym dataset name(s), comma-separated",
            tags=("reasoning", "math", "logic"),
        ),
        EvalSuiteSpec(
            name="reasoning-gym-retry",
            description="The reasoning-gym suite with up to 3 attempts: a wrong answer gets the score as feedback.",
            loader="spade_domains.benchmarks.reasoning:load_multi_turn", requires=("reasoning_gym",),
            install_hint=_RG_INSTALL, argument="reasoning-gym dataset name(s), comma-separated",
            tags=("reasoning", "math", "logic", "multi_turn"),
        ),
        EvalSuiteSpec(
            name="jsonl",
            description="A local JSONL benchmark (question/answer per line, e.g. GSM8K or MATH exported by you), "
                        "scored by the math domain's answer verifier.",
            loader="spade_domains.benchmarks.jsonl_math:load_jsonl_suite", argument="path to a .jsonl file",
            argument_required=True, tags=("math",),
        ),
    ]
    return specs

