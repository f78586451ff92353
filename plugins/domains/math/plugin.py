"""The math domain plugin: designer guidance, answer parsing, sandbox helpers and seed environments."""

from __future__ import annotations

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import DomainSpec, ParsedAction, SeedEnvironment
from spade_domains.math.verify import extract_answer

GUIDANCE = """\
Write a math environment: a problem grounded in the document, checked by exact or numeric equivalence.
The agent answers with \\boxed{...}; use extract_answer/answers_match from spade_domains.math.verify.
A good privileged hint is an intermediate result or the relevant rule, never the final answer.
Trivial: the answer appears in the question. Impossible: the answer cannot be derived from what is shown.
"""


def parse_action(text: str) -> ParsedAction:
    answer = extract_answer(text)
    if answer is None:
        return ParsedAction(format_error="no final answer: write \\boxed{...} or 'Answer: ...'")
    return ParsedAction(value=answer)


@hookimpl
def spade_domains() -> list[DomainSpec]:
    return [
        DomainSpec(
            name="math",
            description="Multi-step numeric problems with verifiable final answers.",
            designer_guidance=GUIDANCE,
            worked_examples=("spade_domains.math.seeds.arithmetic_chain",),
            parse_action=parse_action,
        )
    ]


@hookimpl
def spade_seed_environments() -> list[SeedEnvironment]:
    return [SeedEnvironment("spade_domains.math.seeds.arithmetic_chain")]


@hookimpl
def spade_sandbox_modules() -> dict[str, dict[str, str]]:
    module = "spade_domains.math.verify"
    return {module: {name: f"{module}:{name}" for name in ("extract_answer", "answers_match", "to_number")}}
