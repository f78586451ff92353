"""One seed, one task: the ``determinism`` and ``start_state`` stages."""

from __future__ import annotations

import time

from spade_core.seeding import probe_seed, screening_seeds
from spade_core.validation.adversaries import PROBE_STEPS, ActionTemplate
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode, first_difference, play, random_text_policy, reference_policy
from spade_core.validation.mutations import near_miss_steps, wrong_program_steps
from spade_core.validation.replay import labelled, probe_policy, replaying, single_player
from spade_core.validation.report import StageResult, describe_error, fail, ok


def check_determinism(c: Candidate) -> StageResult:
    """One seed, one task: the same seed gives the same whole trajectory on fresh instances, on an instance that
    already played other (failed) episodes, and with or without ``privileged_hint()`` calls; and the task is not
    the same for every seed."""
    stage = "determinism"
    causes = ["randomness not taken from the rng argument", "state kept at module level or carried over from an "
              "earlier episode", "iteration over a set or dict of unordered keys"]
    fix = ["draw every random choice from rng in reset", "reset every attribute in reset; keep state on self"]
    seeds = list(c.config.seeds[: max(1, c.config.determinism_seeds)])
    used = c.new_env()
    first_refs: list[Episode] = []
    probes: list[Episode] = []
    for seed in c.clock.items(seeds, "determinism seeds"):
        hinted = labelled(c.run(seed, reference_policy, fresh=True, record_hints=True), "reference")
        if hinted.error is not None:
            observed, err_causes, err_fix = describe_error(hinted.error)
            return fail(stage, f"seed {seed}: {observed}", err_causes, err_fix)
        template = ActionTemplate.of(hinted.steps[-1][0] if hinted.steps and single_player(c) else
                                     hinted.steps[0][0] if hinted.steps else "")
        plain = c.run(seed, reference_policy, fresh=True)
        where = first_difference(hinted, plain)
        if where:
            again = c.run(seed, reference_policy, fresh=True, record_hints=True)
            if first_difference(hinted, again):
                return fail(stage, f"seed {seed}: two fresh instances diverged ({first_difference(hinted, again)})",
                            causes, fix)
            return fail(stage, f"seed {seed}: calling privileged_hint() changes the episode ({where})",
                        ["privileged_hint() changes state (a counter, the secret, the rng)"],
                        ["make privileged_hint() read state only"])
        turns = c.manifest.max_turns if c.manifest else 1
        for other, policy in ((probe_seed(seed, "random-text"), random_text_policy),
                              (probe_seed(seed, "template"), probe_policy(template, turns))):
            c.all_episodes.append(play(used, other, policy, max_steps=PROBE_STEPS))  # failed episodes first
        replay = play(used, seed, reference_policy, record_hints=True)
        c.all_episodes.append(replay)
        where = first_difference(hinted, replay)
        if where:
            return fail(stage, f"seed {seed}: after other (failed) episodes on the same instance the reference "
                        f"episode is not the same as on a fresh instance ({where})", causes, fix)
        fresh_probe = labelled(c.run(seed, probe_policy(template, turns), fresh=True), "probe")
        used_probe = play(used, seed, probe_policy(template, turns))
        c.all_episodes.append(used_probe)
        where = first_difference(fresh_probe, used_probe)
        if where:
            return fail(stage, f"seed {seed}: a probe episode differs between a fresh instance and one that "
                        f"played before ({where})", causes, fix)
        c.reference_episodes.append(hinted)
        first_refs.append(hinted)
        probes.append(fresh_probe)
    if len(seeds) > 1 and _same_task(first_refs, probes):
        more = _same_task_on_more_seeds(c, seeds, template, turns)
        if more is not None:
            return fail(stage, f"every seed gives the same task: the whole reference and probe episodes are "
                        f"identical for seeds {', '.join(map(str, more))}", ["reset ignores its rng"],
                        ["draw the task's parameters (secret, data, position) from rng in reset"])
    return ok(stage, f"identical whole trajectories for the same seed on fresh and used instances, with and "
              f"without hint calls ({len(seeds)} seeds); the task depends on the seed")


SAME_TASK_SEEDS = 8
"""Seeds that must all give the same task before "every seed gives the same task" is concluded: two seeds of a small
space (24 secrets) collide one time in 24, eight agree by chance about once in 24**7."""


def _same_task(references: list[Episode], probes: list[Episode]) -> bool:
    return all(e.trace()[:-1] == references[0].trace()[:-1] for e in references) and all(
        e.trace() == probes[0].trace() for e in probes)


def _same_task_on_more_seeds(c: Candidate, seeds: list[int], template: ActionTemplate,
                             turns: int) -> list[int] | None:
    """The seeds judged when the first ones all gave the same task: those and more, up to :data:`SAME_TASK_SEEDS`;
    None as soon as one of them gives another task."""
    wider = list(dict.fromkeys([*seeds, *screening_seeds(SAME_TASK_SEEDS)]))[:SAME_TASK_SEEDS]
    references = [labelled(c.run(s, reference_policy, fresh=True), "reference") for s in wider]
    probes = [labelled(c.run(s, probe_policy(template, turns), fresh=True), "probe") for s in wider]
    if not _same_task(references, probes):
        return None
    # a fixed-spec code task draws only its hidden tests from the seed: a failing program's feedback shows them
    failing = [[c.run(s, replaying(steps), fresh=True, max_steps=len(steps)).trace() for steps in
                wrong_program_steps(r.actions)] for s, r in zip(wider, references, strict=True)]
    if any(f != failing[0] for f in failing) or _near_misses_tell_seeds_apart(c, wider, references[0].actions):
        return None
    return wider


SAME_TASK_MUTANTS = 6
"""Single changes of the reference program (spread over it) played on every judged seed before a program task is
called the same on every seed."""
SLOW_MUTANT_S = 4.0
"""A changed program slower than this on one seed (it loops, most likely) ends the search through the others."""


def _near_misses_tell_seeds_apart(c: Candidate, seeds: list[int], actions: list[str]) -> bool:
    """Where the reference answers with a program: whether a single change of it (a literal or an operator) fares
    differently on two of ``seeds``. A fixed specification whose hidden tests are drawn from the seed passes a near
    miss on some test sets and not on others (the feedback counts the passing tests); fixed tests never do.
    ``actions``: the reference's, the same on every judged seed (the task looked the same on each)."""
    for steps in c.clock.items(near_miss_steps(actions, SAME_TASK_MUTANTS), "near-miss programs per seed"):
        traces = set()
        for seed in seeds:
            started = time.monotonic()
            traces.add(repr(c.run(seed, replaying(steps), fresh=True, max_steps=len(steps)).trace()))
            if time.monotonic() - started > SLOW_MUTANT_S:
                return False  # a change that loops costs the task's time limit on every seed: the search ends
            if len(traces) > 1:
                return True
    return False


# -- 7. start state ---------------------------------------------------------------------------------------------
def check_start_state(c: Candidate) -> StageResult:
    env = c.env()
    _, info = env.reset(seed=c.config.seeds[0])
    if info.get("success"):
        return fail("start_state", "info['success'] is True right after reset",
                    ["success computed before any action"], ["success only after the task is done"])
    for action in ("", "\x00invalid action\x00"):
        env.reset(seed=c.config.seeds[0])
        _, _, terminated, _, info = env.step(action)
        if info.get("success"):
            return fail("start_state", f"the action {action!r} already succeeds",
                        ["the verifier accepts anything"], ["check the action against the real answer"])
    return ok("start_state", "not successful at reset, after an empty action, or after an invalid one")
