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
WORKED_EXAMPLES = ("spade_domains.math.seeds.word_problem_steps", "spade_domains.math.seeds.bayes_urn_update")
VERIFY_MODULE = "spade_domains.math.verify"
VERIFY_EXPORTS = ("extract_answer", "answers_match", "to_number", "normalize_answer", "mentions_answer", "safe_echo")

GUIDANCE = """\
You are designing a MATH environment for reinforcement learning, grounded in the document below.

WHAT TO BUILD
A multi-turn problem (max_turns >= 3) that exercises the concept in the document: ask for intermediate results
one per turn (a multi-step word problem, an update rule applied step by step, a search with feedback such as
higher/lower or gcd clues) and check each answer before moving on. A wrong answer must get an informative
observation (too high / too low, which rule it breaks, the residual it leaves) and a limited number of retries.

THE CONTRACT
One module: an ENV_SPEC dict (name, domain="math", description, reward_range, max_turns, players=1,
difficulty={knob: {min, max, default, description}}, tools=[], grounding=<the concept and where it comes from>,
tags) and exactly ONE plain class (no base class, no gymnasium import) with
  __init__(**knobs)                  the difficulty knobs, as keyword arguments with defaults
  reset(rng, options) -> (obs, info) draw the problem from rng (randint, choice, random, sample, shuffle, ...)
  step(action) -> (obs, reward, terminated, truncated, info)
  privileged_hint() -> str           help that does not give the answer away
  reference_action() -> str          the next answer of a solver that reads the internal state
Never import random; use rng. Import only the modules the contract lists and the verification helpers below.
No print, open, eval, exec, getattr/setattr, str.format (use f-strings), dunder names or attributes, or global
statements (a single leading underscore on your own helper methods is fine).

VERIFICATION HELPERS: the functions of spade_domains.math.verify, with their exact signatures, are listed in the
API REFERENCE at the end.
Parse every action with extract_answer; when it returns None (or to_number does, for numeric answers) return
info["format_error"] with a message that says the expected form, and repeat the question. Never raise.
Use Fraction for exact arithmetic; accept a tolerance only where the task says so (and say it in the prompt).

REWARD AND INFO
reward_range [0, 1]: e.g. 1/steps for each correct step, so a full solve totals 1. info["success"] is True only
when the whole problem is solved. Keep answers non-zero so the constant answer "0" cannot succeed.

A GOOD PRIVILEGED HINT
The relevant rule, formula or plan for the current step ("average speed is total distance over total time",
"square the previous residue") or a fact that narrows the search (parity, primality) - never the answer, an
intermediate answer the agent is asked for, or a number equal to one. Check with mentions_answer.

TRIVIAL OR IMPOSSIBLE (both are rejected)
Trivial: the answer appears in the question, one guess covers it, feedback lets a blind search finish within
the retries, or the hint solves it. Impossible: the answer cannot be derived from what is shown, the tolerance
is tighter than the numbers given, or the retries/turns are fewer than the steps require.
A difficulty knob must really change difficulty: more steps, larger numbers, more hypotheses, fewer retries.
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
