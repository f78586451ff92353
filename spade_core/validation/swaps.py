"""Cross-seed swap and structural near misses: the verifier checks *this* task's answer.

The property: a correct trajectory for seed B, replayed on seed A, does not solve A when the two references differ
(a verifier that accepts another task's answer accepts answers it never checked). For programs also generic wrong
programs in the reference's own signature (a constant returned, an argument echoed, an exception) fail, and most
single-literal or single-operator changes fail; for JSON calls the call with every argument changed fails, not
every single-argument change passes, and a text argument's number replaced by a listing of many numbers fails. Domain-agnostic: actions are parsed as JSON or Python, whatever the domain.
"""

from __future__ import annotations

import time

from spade_core.validation.adversaries import observation_values
from spade_core.validation.argument_swaps import Exchange, Swap, argument_swaps, exchanges, unchecked_argument
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode
from spade_core.validation.mutations import (
    Program,
    Variant,
    code_mutants,
    emptied_inputs,
    example_breaking,
    hollow_results,
    json_mutants,
    listing_mutants,
    memorising,
    other_errors,
    program_in,
    reordered_results,
    shifted_results,
    wrong_answer,
    wrong_programs,
)
from spade_core.validation.precision import IMPLIED_MISS_UNITS
from spade_core.validation.replay import labelled, replay_then, replaying, too_often
from spade_core.validation.report import StageResult, fail_rule, ok

EXAMPLE_MUTANTS = 8
"""Single changes of the reference program, spread over it, tried against the task's shown examples (one run each)."""

SLOW_RUN_S = 2.0
"""A run of one changed program slower than this (it loops, most likely) ends the search through the others."""

RULE = ("other seeds' correct actions, wrong programs (generic, examples only, lists reversed, inputs emptied, floats "
        f"{IMPLIED_MISS_UNITS} ulps off) or changed call arguments fail")


def solved_references(c: Candidate) -> list[Episode]:
    return [e for e in c.reference_episodes if e.success and e.error is None][: c.config.swap_seeds]


def replay_matrix(c: Candidate, *, full: bool) -> dict[tuple[int, int], Episode]:
    """Solved references (of the first ``swap_seeds``) replayed on other of those seeds, kept for the candidate:
    ``(b, a)`` is seed b's reference actions played on seed a (as many steps as b's reference took). ``full``:
    on every other seed; else on the next two (enough for a swap rate)."""
    refs = solved_references(c)
    shifts = range(1, len(refs)) if full else range(1, min(3, len(refs)))
    for i, b in enumerate(c.clock.items(refs, "solved seeds replayed")):
        for a in (refs[(i + k) % len(refs)] for k in shifts):
            if (b.seed, a.seed) not in c.replays:
                episode = c.run(a.seed, replaying(b.actions), max_steps=len(b.actions))
                c.replays[(b.seed, a.seed)] = labelled(episode, f"seed {b.seed}'s reference actions")
    return c.replays


def check_swap(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "swap"
    if c.manifest.players != 1:
        return ok(stage, "two-player game: the seat-bias check judges its verifier")
    refs = {e.seed: e for e in solved_references(c)}
    matrix = replay_matrix(c, full=False)
    pairs = [(b, a) for (b, a) in matrix if refs[b].actions != refs[a].actions]
    won = [(b, a) for (b, a) in pairs if matrix[(b, a)].success]
    programs = all(program_in(e.steps[-1][0]) is not None for e in refs.values())
    allowed = c.config.swap_program_max_share if programs else c.config.swap_max_share
    if too_often(len(won), len(pairs), allowed):
        b, a = won[0]
        return fail_rule(stage, f"seed {b}'s correct actions ({_show(refs[b].actions)}) also solve seed {a}, whose "
                         f"reference plays {_show(refs[a].actions)}; {len(won)} of {len(pairs)} such swaps succeed",
                         ["the verifier accepts answers it does not compare with this task's (any call of the "
                          "finishing tool, the right type, a loose match)"]
                         + (["the hidden tests rarely exercise what the seeds' specifications differ in, so a program "
                             "written for another seed's rule passes"] if programs else []),
                         ["check the submitted answer against the values this seed drew"]
                         + (["test what the seed's variant of the specification changes (a negative division where "
                             "the seed says how it rounds) on every seed"] if programs else []), rule=RULE,
                         swaps=f"{len(won)}/{len(pairs)}", allowed=allowed)
    tried = len(pairs)
    for episode in list(refs.values())[:1]:
        final = episode.steps[-1][0]
        problem, n = _structural(c, episode, final)
        tried += n
        if problem:
            return problem
    swaps = argument_swaps(c, list(refs.values()))
    tried += len(swaps)
    unchecked = unchecked_argument(swaps, c.config.swap_max_share)
    if unchecked is not None:
        (tool, name), results = unchecked
        first = next(s for s in results if s.success)
        passing = sum(s.success for s in results)
        assert isinstance(first, Swap)
        given = f"set to seed {first.other}'s value" if first.other is not None else "emptied"
        return fail_rule(stage, f"seed {first.seed}'s reference with the {name!r} of its {tool!r} call {given} "
                         f"still solves seed {first.seed}; {passing} of "
                         f"{len(results)} such swaps succeed (the call is needed: without it the reference fails)",
                         [f"the check reads whether {tool!r} was called, not the {name!r} it was given (a file's name "
                          "and not its contents, a booking and not its date)", "the check compares only the rows "
                          "the reference changes, so changes to every other row go unseen"],
                         [f"compare the {name!r} of each {tool!r} call (or the state it leaves) with this seed's "
                          "values"], rule=RULE, swaps=f"{passing}/{len(results)}", allowed=c.config.swap_max_share)
    exchanged = exchanges(c, list(refs.values()))
    tried += len(exchanged)
    paired = unchecked_argument(exchanged, c.config.swap_max_share)
    if paired is not None:
        (tool, name), results = paired
        first = next(e for e in results if e.success)
        passing = sum(e.success for e in results)
        assert isinstance(first, Exchange)
        return fail_rule(stage, f"seed {first.seed}'s reference with the {name!r} of its {tool!r} calls at steps "
                         f"{first.first + 1} and {first.second + 1} exchanged still solves seed {first.seed}; "
                         f"{passing} of {len(results)} such exchanges succeed",
                         [f"the check reads which {name!r} values were given, not which call gave which (the set of "
                          "people given plots, not who got which)"],
                         [f"compare each {tool!r} call's {name!r} with what this seed's task makes right for it"],
                         rule=RULE, exchanges=f"{passing}/{len(results)}", allowed=c.config.swap_max_share)
    return ok(stage, f"{tried} swapped trajectories and structural variants checked; another seed's answer solved "
              f"{len(won)} of {len(pairs)} seeds")


def _show(actions: list[str]) -> str:
    shown = " -> ".join(repr(a[:40]) for a in actions[:3])
    return shown + (f" ... ({len(actions)} actions)" if len(actions) > 3 else "")


def _wins(c: Candidate, episode: Episode, variant: Variant) -> bool:
    info = replay_then(c, episode, variant.action)
    return info is not None and bool(info.get("success"))


def _wrong_in_turn(c: Candidate, episode: Episode, variants: list[Variant]) -> Episode | None:
    """The reference's earlier steps, then the wrong programs one per try while tries are left (None where fewer
    than two tries are left): each fails alone, so together they must fail too."""
    assert c.manifest is not None
    room = c.manifest.max_turns - (len(episode.steps) - 1)
    if room < 2 or len(variants) < 2:
        return None
    actions = [*episode.actions[:-1], *(v.action for v in variants[:room])]
    return labelled(c.run(episode.seed, replaying(actions), max_steps=len(actions)),
                    "wrong programs sent one after another")


def _feedback_memoriser(c: Candidate, episode: Episode, program: Program) -> Episode | None:
    """A failed try (every function returning 0), then a program that only answers the examples shown so far, the
    feedback's included, else echoes its input or returns 0 as the failed try did (None where the task allows one
    try, or shows no example)."""
    assert c.manifest is not None
    if c.manifest.max_turns < 2 or len(episode.steps) != 1:
        return None
    wrong = wrong_answer(episode.steps[0][0])
    if wrong is None:
        return None
    first = labelled(c.run(episode.seed, replaying([wrong]), max_steps=1), "a failed try")
    if first.error is not None or not first.steps or first.steps[0][3] or first.steps[0][4] or first.success:
        return None
    seen = "\n".join([first.reset_obs, first.steps[0][1]])
    tried = None
    for otherwise in ("echo", "zero"):  # a feedback listing only failing tests: the failed try's 0 passes the rest
        shown = memorising(program, seen, otherwise=otherwise)
        if shown is None:
            return None
        tried = labelled(c.run(episode.seed, replaying([wrong, shown.action]), max_steps=2), shown.what)
        if tried.success:
            return tried
    return tried


def _structural(c: Candidate, episode: Episode, final: str) -> tuple[StageResult | None, int]:
    stage = "swap"
    program = program_in(final)
    tried = 0
    if program is not None:
        last_obs = episode.observations[-1] if episode.observations else episode.reset_obs
        values = observation_values(last_obs)
        shown = [v for v in (memorising(program, last_obs), memorising(program, last_obs, echo=True)) if v is not None]
        for variant in [*wrong_programs(program, values), *shown]:
            tried += 1
            if _wins(c, episode, variant):
                return fail_rule(stage, f"seed {episode.seed}: a wrong program ({variant.what}) is accepted: "
                                 f"{variant.action[:160]!r}", ["the tests check the type or shape of the result, not "
                                                               "its value", "the tests are too few or never run"],
                                 ["assert exact expected values on several inputs, edge cases included"],
                                 rule=RULE), tried
        together = _wrong_in_turn(c, episode, wrong_programs(program, values))
        tried += together is not None
        if together is not None and together.success:
            return fail_rule(stage, f"seed {episode.seed}: wrong programs sent one after another "
                             f"({', '.join(repr(a[:40]) for a in together.actions[-3:])}, ...) succeed together, "
                             "none of them alone", ["success is kept per test across tries (a test counts once any "
                                                    "try passed it), so constant programs add up to a pass"],
                             ["judge each submission on every test; succeed only when one program passes them all"],
                             rule=RULE), tried
        for variant, shown, causes, fix in (
                (reordered_results(program, last_obs), ", though the task shows results whose order matters",
                 "the tests compare the result's items without their order (sorted(...), set(...), Counter(...))",
                 ["compare the returned list itself with the expected list",
                  "or say in the task that any order is accepted"]),
                (shifted_results(program, last_obs), "; the task states no tolerance and its examples show short "
                 "decimals", "the tests compare within a tolerance the task does not state",
                 ["compare with the exact rounded value", "or state the tolerance in the task"]),
                (hollow_results(program), "", "the tests check the shape of the result (how many groups, equal "
                 "sums) and not that it holds the given items", ["check that the groups hold exactly the given "
                 "items, each once"]),
                (emptied_inputs(program), "", "the tests check the result against the arguments after the call (the "
                 "same objects the program was given and may change)", ["check against the instance's own values: a "
                 "copy made before the call, or literals written into the test"]),
                (other_errors(program, last_obs), ", though the task names the exception to raise", "the tests "
                 "accept any exception where the task promises one type (raises_test with its default)",
                 ["check the exception's type the task names"])):
            tried += variant is not None
            if variant is not None and _wins(c, episode, variant):
                return fail_rule(stage, f"seed {episode.seed}: {variant.what} is accepted{shown}", [causes], fix,
                                 rule=RULE), tried
        leaked = _feedback_memoriser(c, episode, program)
        tried += 1
        if leaked is not None and leaked.success:
            return fail_rule(stage, f"seed {episode.seed}: after one failed try, {leaked.label} passes every test: "
                             "the feedback shows the hidden tests' inputs and expected values",
                             ["the feedback to a failing program prints hidden tests with their expected values"],
                             ["report how many hidden tests failed, or show failing shown examples only"],
                             rule=RULE), tried
        for mutant in code_mutants(program, EXAMPLE_MUTANTS, spread=True):
            breaking = example_breaking(program, mutant, last_obs)
            if breaking is None:
                break
            tried += 1
            started = time.monotonic()
            if _wins(c, episode, breaking):
                return fail_rule(stage, f"seed {episode.seed}: the reference program with {mutant.what} gets an "
                                 "example the task shows wrong, and still passes every test",
                                 ["the tests never reach a case the task's own examples show (an edge case, a "
                                  "branch)"], ["draw tests that cover every case the examples show, or include the "
                                               "examples among the tests"], rule=RULE), tried
            if time.monotonic() - started > SLOW_RUN_S:
                break  # a change that loops costs the task's whole time limit: one such run ends the search
        mutants = code_mutants(program)
        passed = 0
        for mutant in mutants if len(mutants) >= 3 else []:
            tried += 1
            if not _wins(c, episode, mutant):
                break  # one failing change settles it: a mutant that loops costs the task's whole time limit
            passed += 1
        if len(mutants) >= 3 and passed == len(mutants):
            return fail_rule(stage, f"seed {episode.seed}: every one of {len(mutants)} single changes of the reference "
                             f"program ({', '.join(m.what for m in mutants[:3])}, ...) still passes",
                             ["the tests do not depend on what the program computes"],
                             ["test values that every literal and comparison of a correct program affects"],
                             rule=RULE), tried
        return None, tried
    singles, every = json_mutants(final)
    if every is not None:
        tried += 1 + len(singles)
        if _wins(c, episode, every):
            return fail_rule(stage, f"seed {episode.seed}: the final call with every argument changed is accepted "
                             f"({every.action[:160]!r}; the reference sent {final[:160]!r})",
                             ["any call of the finishing tool wins", "the arguments are not compared with the task's"],
                             ["check every argument of the finishing call against this seed's facts"], rule=RULE), tried
        for listing in listing_mutants(final):
            tried += 1
            if _wins(c, episode, listing):
                return fail_rule(stage, f"seed {episode.seed}: {listing.what} is accepted ({listing.action[:120]!r}; "
                                 f"the reference sent {final[:160]!r})",
                                 ["the check accepts the answer when any number in it is right"],
                                 ["read the one number the answer gives (or require it alone) and compare it"],
                                 rule=RULE), tried
        passed = [m for m in singles if _wins(c, episode, m)]
        if len(singles) >= 2 and len(passed) == len(singles):
            return fail_rule(stage, f"seed {episode.seed}: the final call is accepted with any one of its "
                             f"{len(singles)} arguments changed ({singles[0].action[:120]!r})",
                             ["the arguments are not compared with the task's"],
                             ["check the arguments of the finishing call against this seed's facts"], rule=RULE), tried
    return None, tried
