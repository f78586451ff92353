"""The tally domain's own validation stage (added to the gate through ``spade_validation_stages``).

It reads what the built-in ``reference`` stage exports (the reference's episodes) and checks a property every tally
task has: each answer the reference gives reads, with the domain's own reader, as one whole count (a number of
things: never negative). A task whose answers are not counts (a label, a list, a fraction, a balance that goes below
zero) is not a tally task, and an agent that answers in the domain's format could not solve it.
"""

from __future__ import annotations

from spade_core.validation.candidate import Candidate
from spade_core.validation.report import StageResult, Verdict, fail
from spade_example_plugin.plugin import RULE, STAGE
from spade_example_plugin.verify import read_count


def check_whole_counts(c: Candidate) -> StageResult:
    """Every reference action of every played reference episode reads as a count (a whole number >= 0)."""
    answers = [(e.seed, step[0]) for e in c.reference_episodes for step in e.steps]
    for seed, action in answers:
        count = read_count(action)
        if count is None or count < 0:
            read = "no whole number" if count is None else f"the count {count}"
            return fail(STAGE, f"seed {seed}: the reference answers {action[:60]!r}, which reads as {read}",
                        ["the task's answers are not counts of something present in the material"],
                        [f"make {RULE}"])
    return StageResult(STAGE, Verdict.PASSED, f"{len(answers)} reference answers, every one a count")
