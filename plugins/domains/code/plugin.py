"""The code domain plugin: designer guidance, sandbox helpers, topic weights and seed environments."""

from __future__ import annotations

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import DomainSpec, SeedEnvironment

VERIFY_MODULE = "spade_domains.code.verify"
SANDBOX_HELPERS = (
    "extract_code", "parse_code", "check_syntax", "defined_names", "run_tests", "equality_test", "raises_test",
    "describe_results",
)

SEEDS = (
    "implement_function",
    "fix_the_bug",
    "regex_writer",
    "data_pipeline",
    "class_design",
    "string_edge_cases",
    "algorithms",
    "parse_format",
    "spec_evolution",
)

GUIDANCE = """\
Write a CODE environment: the agent writes Python that is run against tests, over several turns, with test
feedback between turns.

The contract (one module): an ENV_SPEC dict and ONE plain class with __init__(**difficulty knobs),
reset(rng, options) -> (observation, info), step(action) -> (observation, reward, terminated, truncated, info),
privileged_hint() -> str and reference_action() -> str. Use rng (never the random module) to draw the task instance.

Verification (the helpers of spade_domains.code.verify, listed with their exact signatures below; nothing else runs
agent code, so never exec, eval or import the agent's code yourself):
- Parse every action with parse_code(text): it returns (code, None), or (None, message) -- put that message in
  info["format_error"], set info["action_is_valid"] = False and tell the agent what to fix. Check with
  defined_names(code) that the required function or class exists before running anything.
- Build the tests at reset, as strings: equality_test(call, expected) checks a return value (compute expected with
  your own trusted helper function); raises_test(call, exception) checks that a call raises the exception class the
  specification promises (e.g. raises_test("parse_age('-3')", "ValueError")); any other single statement or
  try/except block works as a test too.
- run_tests(code, tests, timeout_s) runs them in the sandbox and returns {"passed", "failed", "results", "error"}.
- describe_results(result, visible, labels) turns that into feedback: the failing visible tests (shown by their
  labels, e.g. "to_base(255, 16) == 'ff'") with their errors, and a count of failing hidden tests. Keep some tests
  hidden so the agent cannot special-case the ones it sees.

Reward 1.0 and terminated=True once every test passes (info["success"] = True); otherwise reward 0.0, a feedback
observation, and the episode goes on until max_turns (use at least 3 turns). reference_action() returns a correct
```python block. Difficulty knobs should change the task: more or trickier hidden tests, fewer shown examples,
more bugs to find, more edge cases, more requirements.

A good privileged hint names the approach or the edge case to watch ("merge when the next start is <= the current
end, after sorting by start"), never the code and never the expected outputs. Trivial: the shown tests are all
the tests and they can be hard-coded, or the answer is in the prompt. Impossible: the specification does not
determine the outputs the hidden tests expect (ties, ordering, rounding, error types must be stated).
"""


TOPICS = {"Technology": 6.0, "Mathematics": 4.0, "Physical sciences": 1.5, "*": 0.25}  # the wiki corpus's topics


@hookimpl
def spade_domains() -> list[DomainSpec]:
    return [
        DomainSpec(
            name="code",
            description="Write, fix and complete Python code checked by hidden tests run in the sandbox.",
            designer_guidance=GUIDANCE,
            worked_examples=("spade_domains.code.seeds.implement_function", "spade_domains.code.seeds.fix_the_bug"),
            sandbox_modules=(VERIFY_MODULE,),
            answer_kind="text",
            topics=TOPICS,
        )
    ]


@hookimpl
def spade_seed_environments() -> list[SeedEnvironment]:
    return [SeedEnvironment(f"spade_domains.code.seeds.{name}") for name in SEEDS]


@hookimpl
def spade_sandbox_modules() -> dict[str, dict[str, str]]:
    return {VERIFY_MODULE: {name: f"{VERIFY_MODULE}:{name}" for name in SANDBOX_HELPERS}}
