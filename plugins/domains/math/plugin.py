"""The math domain plugin: designer guidance, sandbox helpers, topic weights and seed environments."""

from __future__ import annotations

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import DomainSpec, SeedEnvironment

SEED_MODULES = (
    "arithmetic_chain",
    "word_problem_steps",
    "secret_number_clues",
    "unit_conversion_chain",
    "bayes_urn_update",
    "modular_power_steps",
    "sequence_next_term",
    "linear_system_steps",
    "counting_complements",
    "euclid_remainders",
)
WORKED_EXAMPLES = ("spade_domains.math.seeds.bayes_urn_update", "spade_domains.math.seeds.word_problem_steps")
VERIFY_MODULE = "spade_domains.math.verify"
VERIFY_EXPORTS = ("extract_answer", "answers_match", "to_number", "normalize_answer", "mentions_answer", "safe_echo")

GUIDANCE = """\
WHAT TO BUILD: a multi-turn problem (max_turns >= 3) that exercises the concept in the document: ask for
intermediate results one per turn (a multi-step word problem, an update rule applied step by step, a search with
feedback such as higher/lower or gcd clues) and check each answer before moving on. A wrong answer gets an
informative observation (too high / too low, which rule it breaks, the residual it leaves) and limited retries.

VERIFICATION: parse every action with extract_answer (spade_domains.math.verify, see the API REFERENCE); when it
(or to_number, for numeric answers) returns None, return info["format_error"] saying the expected form and repeat
the question. Compare with answers_match; use Fraction for exact arithmetic; accept a tolerance only where the
question states it.

REWARD: reward_range [0, 1], e.g. 1/steps for each correct step, so a full solve totals 1; info["success"] only when
the whole problem is solved. Keep answers non-zero so the constant answer "0" cannot succeed.

HINT: the rule, formula or plan for the current step ("average speed is total distance over total time") or a fact
that narrows the search (parity, primality), never the answer, an intermediate answer asked for, or a number equal
to one (check with mentions_answer). A difficulty knob changes the number of steps, the size of the numbers, the
hypotheses or the retries.
"""


TOPICS = {
    # the embedded wiki corpus's topics: its Mathematics articles are this domain's natural material
    "Mathematics": 20.0, "Physical sciences": 4.0, "Technology": 2.0, "Everyday life": 1.0, "*": 0.2,
    # topic names other corpora use
    "arithmetic": 1.0, "word problems": 1.0, "number theory": 1.0, "units": 0.5, "probability": 1.0,
    "modular arithmetic": 0.5, "sequences": 0.5, "linear algebra": 0.5, "combinatorics": 1.0,
}


@hookimpl
def spade_domains() -> list[DomainSpec]:
    return [
        DomainSpec(
            name="math",
            description="Multi-step problems with verifiable answers, checked step by step with feedback.",
            designer_guidance=GUIDANCE,
            worked_examples=WORKED_EXAMPLES,
            sandbox_modules=(VERIFY_MODULE,),
            answer_kind="numeric",
            topics=TOPICS,
            selfplay_default=True,
        )
    ]


@hookimpl
def spade_seed_environments() -> list[SeedEnvironment]:
    return [SeedEnvironment(f"spade_domains.math.seeds.{name}") for name in SEED_MODULES]


@hookimpl
def spade_sandbox_modules() -> dict[str, dict[str, str]]:
    return {VERIFY_MODULE: {name: f"{VERIFY_MODULE}:{name}" for name in VERIFY_EXPORTS}}
