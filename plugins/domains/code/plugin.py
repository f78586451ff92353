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
WHAT TO BUILD: the agent writes Python that is run against tests, over several turns (max_turns >= 3), with test
feedback between turns.

VERIFICATION (spade_domains.code.verify, see the API REFERENCE; nothing else runs agent code, so never exec, eval
or import it yourself):
- Parse every action with parse_code(text): it returns (code, None), or (None, message); put that message in
  info["format_error"], set info["action_is_valid"] = False and say what to fix. Check with defined_names(code)
  that the required function or class exists before running anything.
- Build the tests at reset, as strings: equality_test(call, expected) checks a return value (compute expected with
  your own trusted helper); raises_test(call, exception) checks a promised exception (e.g.
  raises_test("parse_age('-3')", "ValueError")); any other single statement or try/except block is a test too.
- run_tests(code, tests, timeout_s) runs them in the sandbox and returns {"passed", "failed", "results", "error"};
  describe_results(result, visible, labels) turns that into feedback: the failing visible tests by label with their
  errors, and a count of failing hidden tests. Keep some tests hidden so the agent cannot special-case them.

REWARD: 1.0 and terminated=True once every test passes (info["success"] = True); otherwise 0.0 and a feedback
observation until max_turns. reference_action() returns a correct ```python block. The specification must
determine every output the hidden tests expect (ties, ordering, rounding, error types).

HINT: the approach or the edge case to watch ("merge when the next start is <= the current end, after sorting by
start"), never the code or the expected outputs. A difficulty knob changes the hidden tests, shown examples, bugs
to find, edge cases or requirements.
"""


TOPICS = {"Technology": 6.0, "Mathematics": 4.0, "Physical sciences": 1.5, "*": 0.25}  # the wiki corpus's topics


@hookimpl
def spade_domains() -> list[DomainSpec]:
    return [
        DomainSpec(
            name="code",
            description="Write, fix and complete Python code checked by hidden tests run in the sandbox.",
            designer_guidance=GUIDANCE,
            worked_examples=("spade_domains.code.seeds.fix_the_bug", "spade_domains.code.seeds.implement_function"),
            sandbox_modules=(VERIFY_MODULE,),
            answer_kind="program",
            topics=TOPICS,
        )
    ]


@hookimpl
def spade_seed_environments() -> list[SeedEnvironment]:
    return [SeedEnvironment(f"spade_domains.code.seeds.{name}") for name in SEEDS]


@hookimpl
def spade_sandbox_modules() -> dict[str, dict[str, str]]:
    return {VERIFY_MODULE: {name: f"{VERIFY_MODULE}:{name}" for name in SANDBOX_HELPERS}}
