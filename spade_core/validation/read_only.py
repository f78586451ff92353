"""Reading is not earning: the ``read_only`` stage.

The property: over an episode, a policy that only repeats one information action (a tool the environment names,
called with no arguments; a command it lists; one of the reference's own steps before its last) up to the turn limit
never earns more than the reference earns by solving the same seed, and an action that changes nothing (it returns
the same observation every time) never succeeds however often it is repeated. A bonus per ``list_files`` call or per
``look`` adds up past solving over a long episode; the reward rule's giving-up and repeating policies only replay
the reference's own steps, so a read the reference never makes goes unmeasured there.

The actions tried come from what the environment itself states: the reference's steps but its last (first: their
real arguments are what a paid read needs), the ``tools`` of its ``ENV_SPEC`` (as an empty JSON call when the
reference calls tools in JSON, else as the bare word), the commands its first observation lists (``Commands: look,
north, ...``) and the first word of each reference action.
"""

from __future__ import annotations

import json

from spade_core import linear_re
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode
from spade_core.validation.replay import labelled, replaying
from spade_core.validation.report import StageResult, fail_rule, ok

RULE = "repeating a read-only action (a listed tool or command) to max_turns earns less than solving, never succeeds"

SEEDS = 2
"""Solved reference seeds every information action is repeated on."""
MAX_ACTIONS = 12
"""Information actions tried per candidate at most."""
MAX_STEPS = 60
"""Steps one repeating episode plays at most (a game's turn limit may be hundreds)."""

_LISTED = linear_re.compile(r"(?i)(?:commands?|tools?|actions?)[^:\n]{0,30}:\s*([^\n]+)")
_NAME = linear_re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def call_name(action: str) -> str | None:
    """The tool name of a JSON call ``{"name": ..., "arguments": {...}}`` (None for any other action)."""
    try:
        call = json.loads(action)
    except ValueError:
        return None
    name = call.get("name") if isinstance(call, dict) else None
    return name if isinstance(name, str) else None


def listed_commands(obs: str) -> list[str]:
    """The first word of each item the observation lists after "Commands:", "Tools:" or "Actions:"."""
    out = []
    for match in _LISTED.finditer(obs[:4000]):
        for item in match.group(1).replace(" or ", ",").split(","):
            word = _NAME.search(item)
            if word:
                out.append(word.group())
    return out


def stated_tools(c: Candidate, obs: str) -> list[str]:
    """The tools a task states: its ``ENV_SPEC['tools']``, then the commands ``obs`` lists."""
    assert c.manifest is not None
    return [*c.manifest.tools, *listed_commands(obs)]


def information_actions(c: Candidate, reference: Episode) -> list[str]:
    """The actions the stage repeats, from what the environment states (see the module's docstring)."""
    assert c.manifest is not None
    json_calls = any(call_name(a) is not None for a in reference.actions)
    names = stated_tools(c, reference.reset_obs)
    tried = list(reference.actions[:-1])  # first: real arguments, the calls most likely to be paid
    if json_calls:
        names += [n for n in map(call_name, reference.actions) if n is not None]
        tried += [json.dumps({"name": n, "arguments": {}}) for n in names]
    else:
        tried += names + [a.split()[0] for a in reference.actions if a.split()]
    return list(dict.fromkeys(tried))[:MAX_ACTIONS]


def _changes_nothing(episode: Episode) -> bool:
    """Whether every step of ``episode`` (two or more) returned the same observation."""
    return len(episode.steps) >= 2 and len({s[1] for s in episode.steps}) == 1


def check_read_only(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "read_only"
    if c.manifest.players != 1:
        return ok(stage, "two-player game: the stalling stage judges passing and repeating")
    solved = [e for e in c.reference_episodes if e.success and e.error is None][:SEEDS]
    if not solved:
        return ok(stage, "no solved seed to compare with")
    steps = min(c.manifest.max_turns, MAX_STEPS)
    played = 0
    for reference in solved:
        for action in information_actions(c, reference):
            episode = labelled(c.run(reference.seed, replaying([action]), max_steps=steps),
                               f"{action[:40]!r} repeated every turn")
            played += 1
            if episode.error is not None:
                continue
            shown = f"seed {reference.seed}: repeating {action[:60]!r} for {len(episode.steps)} turns"
            if not episode.success and episode.total_reward > reference.total_reward + 1e-9:
                return fail_rule(stage, f"{shown} earns {episode.total_reward:g} without solving; the reference "
                                 f"earns {reference.total_reward:g} by solving in {len(reference.steps)} steps",
                                 ["a reward for every read, lookup or listing, repeats included",
                                  "progress credit paid again each time the same action is repeated"],
                                 ["pay nothing for reading (or only the first time each fact is read, well below "
                                  "solving)", "make solving the only way to earn the top reward"], rule=RULE,
                                 earned=round(episode.total_reward, 4), solving=round(reference.total_reward, 4))
            if episode.success and _changes_nothing(episode):
                return fail_rule(stage, f"{shown} succeeds, although every step returns the same observation "
                                 f"({episode.steps[0][1][:80]!r}): an action that changes nothing wins",
                                 ["success granted after enough turns or enough reads",
                                  "the verifier counts actions instead of checking the answer"],
                                 ["grant success only for the correct final answer or the goal state"], rule=RULE)
    return ok(stage, f"{played} episodes repeating an information action up to {steps} turns: none earns more than "
              "solving, none that changes nothing succeeds")
