"""No tool shows what the task asks to work out: part of the ``final_state`` stage (tool tasks).

The property: the numbers the reference computes (arguments of its calls that no observation it saw showed: a
weighted grade, a total, the hours it adds up) are not shown by one call of a tool, with no arguments, at the start
of the episode, nor by the reference's last action played there (a premature finish, where the task allows another
try). An audit tool that prints the expected value of every wrong cell, a summary that prints the total the task says
to derive, or retry feedback listing each wrong row with its expected values, hands an agent the answers without the
work; a sound audit or feedback says which rows still need attention, not what to put there.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode
from spade_core.validation.mutations import json_call
from spade_core.validation.read_only import stated_tools
from spade_core.validation.replay import labelled, replaying
from spade_core.validation.shown_floods import observation_tokens

SEEDS = 4
"""Solved seeds whose computed values are looked for (seeds with too few computed values are passed over)."""
MAX_LOOKED = 12
"""Solved seeds read at most to find :data:`SEEDS` with computed values."""
MAX_TOOLS = 8
"""Tools called at the start per seed at most."""
MIN_VALUES = 2
"""Computed values a seed needs before a tool showing them can decide (one could be chance)."""


@dataclass(frozen=True)
class Leak:
    seed: int
    tool: str
    shown: list[str]
    computed: int


def _number(text: str) -> Fraction | None:
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


def _specific(value: object) -> str | None:
    """The value as text where it is a number specific enough to be no chance match (not a whole number under
    100), written as a JSON number or as a text; else None. Names and labels are left out: a listing tool shows the
    table and file names a reference knows to use, which is no leak."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    number = _number(value.strip()) if isinstance(value, str) else Fraction(value)
    if number is None or (number.denominator == 1 and abs(number) < 100):
        return None
    return str(value).strip()


MAX_LEAVES = 200
"""Values of one call's arguments read at most (nested lists and objects walked)."""


def _leaves(arguments: object) -> list[object]:
    """The scalar values inside a call's arguments, nested lists and objects walked (a ``values`` object's cells)."""
    out: list[object] = []
    stack = [arguments]
    while stack and len(out) < MAX_LEAVES:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
        else:
            out.append(item)
    return out


def computed_values(episode: Episode) -> list[str]:
    """The values inside the reference's calls' arguments that no observation it saw shows (as a token, or as a
    number)."""
    seen = {t for obs in [episode.reset_obs, *(s[1] for s in episode.steps)] for t in observation_tokens(obs)}
    seen_numbers = {n for t in seen if (n := _number(t)) is not None}
    out = []
    for action in episode.actions:
        call = json_call(action)
        for value in (_leaves(call.arguments) if call is not None else []):
            text = _specific(value)
            if text is None or text in seen or _number(text) in seen_numbers:
                continue
            out.append(text)
    return list(dict.fromkeys(out))


def _shows(obs: str, values: list[str]) -> list[str]:
    tokens = set(observation_tokens(obs))
    numbers = {n for t in tokens if (n := _number(t)) is not None}
    return [v for v in values if v in tokens or (_number(v) is not None and _number(v) in numbers)]


def leaks(c: Candidate, solved: list[Episode]) -> tuple[list[Leak], int]:
    """For each of the first :data:`SEEDS` solved references with computed values (among the first
    :data:`MAX_LOOKED`), the first tool that, called with
    no arguments right after reset, shows at least half of them (or the reference's last action played there); and
    how many seeds were judged."""
    assert c.manifest is not None
    found, judged = [], 0
    for episode in solved[:MAX_LOOKED]:
        calls = [call for call in map(json_call, episode.actions) if call is not None and call.tool]
        computed = computed_values(episode)
        if not calls or len(computed) < MIN_VALUES:
            continue
        if judged == SEEDS:
            break
        judged += 1
        tools = [*stated_tools(c, episode.reset_obs), *(call.tool for call in calls)]
        probes = [(tool, calls[0].bare(tool)) for tool in list(dict.fromkeys(tools))[:MAX_TOOLS]]
        probes.append((f"the reference's last action ({episode.actions[-1][:40]!r})", episode.actions[-1]))
        for tool, action in probes:
            played = labelled(c.run(episode.seed, replaying([action]), max_steps=1), f"{tool} called at the start")
            if played.error is not None or not played.steps:
                continue
            shown = _shows(played.steps[0][1], computed)
            if len(shown) >= MIN_VALUES and 2 * len(shown) >= len(computed):
                found.append(Leak(episode.seed, tool, shown, len(computed)))
                break
    return found, judged
