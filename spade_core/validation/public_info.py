"""Public information: what the agent can learn by acting determines what it must do.

Single turn, the reference stage checks "one observation, one answer". Over histories: two seeds are
*indistinguishable* when every action sequence tried shows them the same observations turn by turn (the same text,
the same endings); the sequences tried are other seeds' reference actions (actions chosen without knowledge of
either seed), a fixed probe, and for numeric answers the action halfway between the two seeds' first reference
actions (feedback that narrows the answer down, "higher"/"lower", tells such seeds apart). When most pairs of seeds
with different reference actions are indistinguishable and the one's actions do not solve the other, no policy
without the hint can solve both: what the task needs is never shown (feedback that says only "No.", a fact that
lives only in the hint).
"""

from __future__ import annotations

from itertools import combinations

from spade_core.validation.adversaries import ActionTemplate, enumeration
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode
from spade_core.validation.hint_leaks import answer_core, parse_number
from spade_core.validation.replay import answer_template, labelled, replaying
from spade_core.validation.report import StageResult, fail_rule, ok
from spade_core.validation.swaps import replay_matrix, solved_references

RULE = "seeds that need different actions look different to the agent (after some actions) before the end"

PROBE_TURNS = 12
"""Turns a fixed probe plays on every seed."""


def history(episode: Episode) -> tuple:
    """What the agent saw while it could still act: the first observation, every later observation of a running
    episode, and whether (and how) each step ended it; what an ending says comes too late to use."""
    return (episode.reset_obs, *((None if s[3] or s[4] else s[1], s[3] or s[4]) for s in episode.steps),
            episode.success)


def _between(first: str, second: str) -> str | None:
    """The action halfway between two numeric actions of the same form (``\\boxed{840}``, ``\\boxed{806}`` ->
    ``\\boxed{823}``), or None when they are not numbers in one template."""
    template = ActionTemplate.of(first)
    x, y = parse_number(answer_core(first)), parse_number(answer_core(second))
    if x is None or y is None or ActionTemplate.of(second) != template or abs(x - y) < 2:
        return None
    middle = (x + y) / 2
    return template.render(str(middle.numerator // middle.denominator) if x.denominator == y.denominator == 1
                           else f"{float(middle):g}")


def check_public_info(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "public_info"
    if c.manifest.players != 1 or c.manifest.single_turn:
        return ok(stage, "single-turn tasks are checked at the reference stage; two-player games show the board")
    refs = {e.seed: e for e in solved_references(c)}
    if len(refs) < 3:
        return ok(stage, "fewer than three solved seeds")
    matrix = replay_matrix(c, full=True)
    probe = enumeration(answer_template(c), c.manifest.max_turns)
    probes = {s: labelled(c.run(s, probe.make(), max_steps=min(PROBE_TURNS, c.manifest.max_turns)), probe.name)
              for s in refs}
    differing = [(a, b) for a, b in combinations(refs, 2) if refs[a].actions != refs[b].actions
                 and not matrix[(a, b)].success and not matrix[(b, a)].success]
    blind = []
    for a, b in c.clock.items(differing, "seed pairs"):
        same = history(probes[a]) == history(probes[b]) and all(
            history(matrix[(k, a)]) == history(matrix[(k, b)]) for k in refs if k not in (a, b))
        between = _between(refs[a].actions[0], refs[b].actions[0]) if same else None
        if between is not None:  # an action between the two: feedback that narrows the answer down tells them apart
            played = [labelled(c.run(s, replaying([between]), max_steps=1), "an action between two references")
                      for s in (a, b)]
            same = history(played[0]) == history(played[1])
        if same:
            blind.append((a, b))
    share = c.config.public_info_max_share
    if differing and len(blind) > share * len(differing) and len(blind) >= 2:
        a, b = blind[0]
        return fail_rule(stage, f"seeds {a} and {b} show the same observations under every action sequence tried "
                         f"({len(refs) - 1} sequences, e.g. {refs[a].observations[0][:80]!r}) but need different "
                         f"actions "
                         f"({refs[a].actions[-1][:40]!r} vs {refs[b].actions[-1][:40]!r}); {len(blind)} of "
                         f"{len(differing)} such pairs of seeds cannot be told apart without the hint",
                         ["the feedback does not depend on the hidden state (only 'No.')", "a fact the answer needs is "
                          "given only in the hint"],
                         ["give feedback that narrows the answer down (higher/lower, which parts are right)",
                          "show every fact the answer depends on, in the task or through its tools"],
                         rule=RULE, pairs=f"{len(blind)}/{len(differing)}")
    return ok(stage, f"{len(differing) - len(blind)} of {len(differing)} pairs of seeds with different references "
              "are told apart by what the agent sees")
