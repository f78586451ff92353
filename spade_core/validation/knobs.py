"""Difficulty knobs: every knob the environment declares changes what is played.

Self-play raises and lowers the difficulty knobs to keep tasks at the learner's edge; a knob the constructor accepts
and then ignores (the default kept whatever value is passed) makes that curriculum a no-op. The property every good
environment has: for each knob, the whole episodes at the knob's min and at its max (the other knobs at their
defaults, the same seeds, the reference and a wrong probe that enumerates 0, 1, 2, ... in the reference's answer
format, and where the reference answers with a program, that program's functions returning its first argument and
raising) differ on at least one of ``ValidationConfig.knob_seeds`` seeds. Where they do not and the reference answers
with a program, that program answering None past an input size (24 and 64 characters) is played too, and then single
changes of it (a literal or an operator): a knob that sets only the size or depth of the hidden tests, or how long
a sequence of calls they make on one object, changes how many of them pass. A knob that
matters on some seeds only (a larger pile drawn, a longer list) passes, because the seeds are judged together.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from spade_core.validation.adversaries import enumeration
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode, play, reference_policy
from spade_core.validation.mutations import SIZE_LIMITS, near_miss_steps, size_limited, wrong_program_steps
from spade_core.validation.replay import answer_template, labelled, replaying
from spade_core.validation.report import StageResult, fail_rule, ok
from spade_registry.manifest import DifficultyKnob

RULE = "each difficulty knob's min and max differ on a seed"
"""The part of the ``determinism`` rule this module checks."""


def _at(knob: DifficultyKnob, value: float) -> dict[str, Any]:
    return {knob.name: int(value) if knob.integer else float(value)}


def _episodes(c: Candidate, knobs: dict[str, Any], seeds: list[int]) -> list[Episode]:
    """The reference's and a wrong probe's episodes (a knob may only matter after a wrong answer: tries, lives) on
    one fresh instance built with ``knobs`` (reuse is checked by ``determinism``); where the reference answers with a
    program, also its steps with wrong programs in place of that answer (a knob may change only the hidden tests:
    how many of them a wrong program fails)."""
    assert c.envs is not None and c.manifest is not None
    env = c.envs(knobs)
    template = answer_template(c)
    try:
        out = []
        for seed in seeds:
            reference = labelled(play(env, seed, reference_policy), "reference")
            out += [reference, play(env, seed, enumeration(template, c.manifest.max_turns).make())]
            for steps in wrong_program_steps(reference.actions):
                out.append(play(env, seed, replaying(steps), max_steps=len(steps)))
        return out
    finally:
        env.close()


@contextmanager
def _at_min_and_max(c: Candidate, knob: DifficultyKnob) -> Iterator[dict[float, Any]]:
    """One fresh instance at the knob's min and one at its max, closed afterwards."""
    assert c.envs is not None
    envs = {value: c.envs(_at(knob, value)) for value in (knob.min, knob.max)}
    try:
        yield envs
    finally:
        for env in envs.values():
            env.close()


def _traces(envs: dict[float, Any], seed: int, steps: list[str]) -> list[Any]:
    return [play(env, seed, replaying(steps), max_steps=len(steps)).trace() for env in envs.values()]


def _sizes_differ(c: Candidate, knob: DifficultyKnob, references: list[Episode]) -> bool:
    """Where the reference answers with a program: whether that program, answering None past an input size
    (:func:`~spade_core.validation.mutations.size_limited`), fares differently at the knob's min and max on some
    seed (a knob setting only the size or depth of the hidden tests). ``references``: the min's episodes, each
    seed's reference first."""
    plays = [(e.seed, steps) for e in references if e.label == "reference" for limit in SIZE_LIMITS
             if (steps := size_limited(e.actions, limit)) is not None]
    if not plays:
        return False
    with _at_min_and_max(c, knob) as envs:
        return any(low != high for low, high in (_traces(envs, seed, steps) for seed, steps in plays))


KNOB_MUTANTS = 6
"""Single changes of the reference program (spread over it) played at a knob's min and max, on each of the first
:data:`MUTANT_SEEDS` seeds, where nothing else shows the knob."""
MUTANT_SEEDS = 3
"""Seeds the changed programs of :func:`_mutants_differ` play."""
SLOW_PAIR_S = 4.0
"""A changed program whose two plays (min and max) take longer than this (it loops, most likely) ends the search
through the others."""


def _mutants_differ(c: Candidate, knob: DifficultyKnob, references: list[Episode]) -> bool:
    """Where the reference answers with a program: whether single changes of it (a literal or an operator,
    :func:`~spade_core.validation.mutations.code_mutants`) fare differently at the knob's min and max on some seed. A
    knob that sets how much the hidden tests exercise (longer call sequences on one object, more cases of a kind) lets
    fewer near-miss programs pass at its max; one that is ignored changes nothing for them either."""
    assert c.envs is not None
    plays = [(e.seed, steps) for e in [e for e in references if e.label == "reference"][:MUTANT_SEEDS]
             for steps in near_miss_steps(e.actions, KNOB_MUTANTS)]
    with _at_min_and_max(c, knob) as envs:
        for seed, steps in c.clock.items(plays, f"changed programs at {knob.name}'s min and max"):
            started = time.monotonic()
            traces = _traces(envs, seed, steps)
            if time.monotonic() - started > SLOW_PAIR_S:
                return False  # a change that loops (or runs near a time limit, where timing decides): the search ends
            if traces[0] != traces[1] and _traces(envs, seed, steps) == traces:
                return True  # a difference that plays again the same way: the knob changes what the tests check
    return False


def check_knobs(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "determinism"
    knobs = [k for k in c.manifest.difficulty if k.min != k.max]
    if not knobs:
        return ok(stage, "no difficulty knob with a range")
    seeds = list(c.config.seeds[: max(1, c.config.knob_seeds)])
    for knob in c.clock.items(knobs, "difficulty knobs"):
        low, high = (_episodes(c, _at(knob, value), seeds) for value in (knob.min, knob.max))
        if all(a.trace() == b.trace() for a, b in zip(low, high, strict=True)) and not _sizes_differ(c, knob, low) \
                and not _mutants_differ(c, knob, low):
            return fail_rule(stage, f"difficulty '{knob.name}' at its min ({knob.min}) and at its max ({knob.max}) "
                             f"gives the same reference and probe episodes on all {len(seeds)} seeds "
                             f"({', '.join(map(str, seeds))}): the knob is accepted and ignored",
                             ["__init__ stores the knob but reset/step never read it", "the knob is read under "
                              "another name, or overwritten by a constant"],
                             [f"make '{knob.name}' change the task (its size, range, depth or opponent) or drop it "
                              "from ENV_SPEC['difficulty']"], rule=RULE, knob=knob.name)
    names = ", ".join(k.name for k in knobs)
    return ok(stage, f"each difficulty knob ({names}) changes the reference's or a probe's episodes between its min "
              f"and max on "
              f"{len(seeds)} seeds")
