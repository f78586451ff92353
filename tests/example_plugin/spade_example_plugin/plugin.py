"""The ``tally`` domain: every hook a domain plugin implements, and nothing in SPADE's core names it.

- ``spade_domains``: the domain's facts (guidance, answer kind, topic weights, worked examples, sandbox modules);
- ``spade_seed_environments``: trusted environments in the designer format, synced into the registry;
- ``spade_sandbox_modules``: the helper names sandboxed environment code may import from this package;
- ``spade_validation_stages``: a check of its own in the gate, for its domain's candidates only.
"""

from __future__ import annotations

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import DomainSpec, SeedEnvironment, ValidationStageSpec

DOMAIN = "tally"
VERIFY_MODULE = "spade_example_plugin.verify"
VERIFY_EXPORTS = ("read_count", "safe_echo")
STAGE = "whole_counts"
RULE = "every answer reference_action gives reads (read_count) as one whole count: a number of things, never negative"
SEEDS = ("spade_example_plugin.seeds.coin_tally", "spade_example_plugin.seeds.shelf_count")

GUIDANCE = """\
You are designing a TALLY environment: the agent counts things described in the observations and answers with a
whole number, over several turns, with feedback after each answer.

WHAT TO BUILD
Material to count that the agent must read carefully: a listing where an item appears on several lines, events
revealed one round at a time with a running total, a text where only some words qualify. Ask one count per turn
and check it before moving on; a wrong count gets feedback (not the answer) and few retries.

PARSING: read every reply with read_count(action) from spade_example_plugin.verify (its exact signature is in the
API REFERENCE at the end). It returns None when the reply is not one whole number: then return
info["format_error"] saying the expected form, and repeat the question. Quote the agent with safe_echo(action).
Compare counts as integers, so \\boxed{7}, 7 and 7.0 are all the same answer. Never raise.

REWARD AND INFO
reward_range [0, 1]: 1/questions for each correct count, so a full solve totals 1. info["success"] is True only when
every count is right. Counts of at least 1 keep the constant answer "0" from succeeding.

A GOOD PRIVILEGED HINT
Where to look or how to add up (how many lines list the item, whether this round has more heads than tails) - never
the count itself or a number equal to it.

TRIVIAL OR IMPOSSIBLE (both are rejected)
Trivial: the count is printed in the observation or one guess covers it. Impossible: the material shown does not
determine the count. A difficulty knob must change the work: more lines, more rounds, more distractors.
"""

TOPICS = {
    # the embedded wiki corpus's topics: stock, census and sports tallies come from everyday life and society
    "Everyday life": 4.0, "Society and social sciences": 2.0, "Geography": 1.0, "*": 0.3,
}


@hookimpl
def spade_domains() -> list[DomainSpec]:
    return [
        DomainSpec(
            name=DOMAIN,
            description="Count items in listings and revealed rounds; answers are whole numbers.",
            designer_guidance=GUIDANCE,
            worked_examples=SEEDS,
            sandbox_modules=(VERIFY_MODULE,),
            answer_kind="numeric",
            topics=TOPICS,
        )
    ]


@hookimpl
def spade_seed_environments() -> list[SeedEnvironment]:
    return [SeedEnvironment(module) for module in SEEDS]


@hookimpl
def spade_sandbox_modules() -> dict[str, dict[str, str]]:
    return {VERIFY_MODULE: {name: f"{VERIFY_MODULE}:{name}" for name in VERIFY_EXPORTS}}


@hookimpl
def spade_validation_stages() -> list[ValidationStageSpec]:
    # it reads the reference's episodes, which the built-in "reference" stage exports; it runs no code of its own
    return [ValidationStageSpec(name=STAGE, check="spade_example_plugin.checks:check_whole_counts", budget_s=5.0,
                                needs=("reference",), reads=("reference_episodes",), rule=RULE, domains=(DOMAIN,),
                                runs_code=False)]
