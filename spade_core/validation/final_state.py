"""The verdict reads the state the steps made: the ``final_state`` stage (single-player tasks of several steps).

The property (tool tasks, where the goal is a state): a step of the reference that changes what the environment shows afterwards must matter to success.
Each of the reference's steps before its last is replaced, one at a time, by the reference's first step (the same
turn count, the same observations where that step only reads), and the reference's recorded steps go on; one of its
steps is played once more before the last, as a view of the state (up to three views: the reference's distinct steps,
first appearance first, that leave it solved when played again there; a read of the orders table shows the order the
reference inserted). Where a view differs from the reference's own (the replaced step changed the state) and the
reference's recorded last action still succeeds, success does not depend on what that step did: the verifier takes
the agent's word ("confirmed: R1, R3"), checks part of the state (file names, not their contents), or compares only
what the agent changed (nothing written, nothing compared), and an agent is paid for work it never did.

A replaced step that only reads leaves the view unchanged and is not judged; a task whose last step is not an
answer (a game move, a tool call that completes the goal) fails the replay without the step, as it should.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import tee

from spade_core import linear_re
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode
from spade_core.validation.forbidden_calls import forbidden_tries
from spade_core.validation.read_only import call_name
from spade_core.validation.replay import labelled, replaying, too_often
from spade_core.validation.report import StageResult, fail_rule, ok
from spade_core.validation.tool_leaks import leaks

RULE = ("tool tasks: success needs the state the steps made, not only what the final answer claims; a tool the task "
        "forbids never reaches the goal; no tool shows at the start the values the reference works out")

SEEDS = 6
"""Solved reference seeds the property is tried on."""
MAX_REPLACED = 6
"""Steps replaced per seed at most (the first ones after the reference's first)."""
MAX_VIEWS = 3
"""Views (reference steps played again before the last) compared per seed at most."""
MAX_VIEW_TRIES = 6
"""Distinct reference steps tried as views per seed at most."""


_LETTERS = linear_re.compile(r"[A-Za-z]+")
_DIGIT_RUNS = linear_re.compile(r"[0-9]+")


def form(action: str) -> str:
    """What kind of step an action is: the tool a JSON call names, else its text with words and numbers blanked
    (``guess 42`` and ``guess 17`` are one form; a step in the last action's form is a try, not work)."""
    name = call_name(action)
    if name is not None:
        return f"call {name}"
    return _DIGIT_RUNS.sub("0", _LETTERS.sub("a", action.strip()))


def _view(episode: Episode) -> str | None:
    """What the view step showed when it was played again just before the last action."""
    return episode.steps[-2][1] if len(episode.steps) >= 2 else None


def _apart(seen: str, expected: str, width: int = 70) -> tuple[str, str]:
    """Both views from a little before the first character where they differ."""
    at = next((i for i, (a, b) in enumerate(zip(seen, expected, strict=False)) if a != b), min(len(seen), len(expected)))
    start = max(0, at - 20)
    return seen[start:start + width], expected[start:start + width]


def _without(c: Candidate, reference: Episode, k: int, view: str) -> Episode:
    """The reference's recorded actions with step ``k`` replaced by its first, ``view`` played, then its last."""
    acts = reference.actions
    played = [*acts[:k], acts[0], *acts[k + 1:-1], view, acts[-1]]
    return labelled(c.run(reference.seed, replaying(played), max_steps=len(played)),
                    f"the reference without its step {k + 1} ({acts[k][:60]!r})")


@dataclass
class View:
    """One of the reference's steps played again just before its last (a look at the state), and what it showed
    then in the whole reference."""

    action: str
    shown: str


def _views(c: Candidate, reference: Episode) -> Iterator[View]:
    """Up to :data:`MAX_VIEWS` distinct steps of the reference (first appearance first) that, played again just
    before its last, leave it solved in the same number of steps: looks at the state (a read of the table the
    reference writes later shows what it wrote). Found as they are asked for: a step judged needed by the first
    view costs no replays for the others."""
    acts, found = reference.actions, 0
    for action in list(dict.fromkeys(acts[:-1]))[:MAX_VIEW_TRIES]:
        whole = [*acts[:-1], action, acts[-1]]
        baseline = labelled(c.run(reference.seed, replaying(whole), max_steps=len(whole)),
                            "the reference with one of its steps played again before its last")
        shown = _view(baseline)
        if baseline.error is None and baseline.success and len(baseline.steps) == len(whole) and shown is not None:
            yield View(action, shown)
            found += 1
            if found == MAX_VIEWS:
                return


def _unneeded_step(c: Candidate, reference: Episode) -> tuple[int, View, str] | None:
    """The first step whose replacement changes a view while the last action still succeeds: its index, the view
    and what it showed without the step (None: no such step). A view in the replaced step's form is not used for
    it (it could redo the step's work)."""
    acts = reference.actions
    views = _views(c, reference)  # shared by every step below, each view found once (tee keeps what was found)
    work = [k for k in range(1, len(acts) - 1) if acts[k] != acts[0] and form(acts[k]) != form(acts[-1])]
    for k in work[:MAX_REPLACED]:
        views, these = tee(views)
        for view in (v for v in these if form(v.action) != form(acts[k])):
            episode = _without(c, reference, k, view.action)
            if episode.error is not None or not episode.success or len(episode.steps) != len(acts) + 1:
                break  # the step is needed (or the replay went astray): no other view changes that
            seen = _view(episode)
            if seen is not None and seen != view.shown:
                return k, view, seen
    return None


def _forbidden_shortcut(c: Candidate) -> StageResult | None:
    """The stage's failure where a tool the task forbids, made in place of the reference's needed calls, solves
    most seeds (:mod:`~spade_core.validation.forbidden_calls`)."""
    solved = [e for e in c.reference_episodes if e.success and e.error is None and e.steps]
    tries = forbidden_tries(c, solved)
    won = [t for t in tries if t.success]
    if not too_often(len(won), len(tries), c.config.unneeded_step_max_share):
        return None
    first = won[0]
    return fail_rule("final_state", f"seed {first.seed}: the reference with its needed calls made with {first.tool!r} "
                     f"instead solves the seed, though the task says {first.rule[:160]!r}; so on {len(won)} of "
                     f"{len(tries)} tries", [f"the goal state is reached by {first.tool!r} too (deleting what should be "
                                            "settled, skipping what should be done)", "the forbidden tool is not refused"],
                     [f"refuse {first.tool!r} as the task says, or make using it fail the task",
                      "check the goal by what was done, not only by what is left"], rule=RULE,
                     forbidden=f"{len(won)}/{len(tries)}")


def _leaking_tool(c: Candidate) -> StageResult | None:
    """The stage's failure where one tool call at the start shows most of the values the reference works out, on
    most seeds (:mod:`~spade_core.validation.tool_leaks`)."""
    solved = [e for e in c.reference_episodes if e.success and e.error is None and e.steps]
    found, judged = leaks(c, solved)
    if not too_often(len(found), judged, c.config.unneeded_step_max_share):
        return None
    first = found[0]
    return fail_rule("final_state", f"seed {first.seed}: {first.tool!r} called at the start shows {len(first.shown)} of "
                     f"the {first.computed} values the reference works out and no other observation shows "
                     f"({', '.join(repr(v[:20]) for v in first.shown[:4])}); so on {len(found)} of {judged} seeds",
                     [f"{first.tool!r} prints the expected values (an audit listing what each wrong cell should "
                      "be, a summary printing the total to derive)"],
                     [f"let {first.tool!r} say what still needs attention, not what the right values are"],
                     rule=RULE, leaks=f"{len(found)}/{judged}")


def check_final_state(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "final_state"
    if c.manifest.players != 1:
        return ok(stage, "two-player game: the board decides")
    forbidden = _forbidden_shortcut(c) or _leaking_tool(c)
    if forbidden is not None:
        return forbidden
    solved = [e for e in c.reference_episodes if e.success and e.error is None and len(e.steps) >= 3][:SEEDS]
    if not solved:
        return ok(stage, "no solved seed of three or more steps")
    found = []
    for reference in c.clock.items(solved, "solved seeds"):
        unneeded = _unneeded_step(c, reference)
        if unneeded is not None:
            found.append((reference, *unneeded))
    if too_often(len(found), len(solved), c.config.unneeded_step_max_share):
        reference, k, view, seen = found[0]
        seen, expected = _apart(seen, view.shown)
        return fail_rule(stage, f"seed {reference.seed}: without the reference's step {k + 1} "
                         f"({reference.actions[k][:80]!r}) the state differs (its step {view.action[:60]!r}, played "
                         f"again before the last, shows ...{seen!r}... where the whole reference's shows "
                         f"...{expected!r}...), yet its last action {reference.actions[-1][:80]!r} still succeeds; so "
                         f"on {len(found)} of {len(solved)} seeds",
                         ["success is taken from what the final answer claims, not from the state",
                          "only part of the final state is checked (names, counts, the last call)"],
                         ["judge success from the environment's own state after the steps, every part the task "
                          "asks for"], rule=RULE, unneeded=f"{len(found)}/{len(solved)}")
    return ok(stage, f"every state-changing step mattered to success on {len(solved) - len(found)} of "
              f"{len(solved)} seeds")
