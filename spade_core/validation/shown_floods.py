"""Every shown value at once: a call that names all the options the task showed must not solve it.

The property: where the reference's needed call (it fails without it) passes a value an earlier observation showed (a slot of the proposed
ones, an id of the listed ones; or a list of such values), the same call passing every value of that shape the
first observation showing it showed (as a list, and for text as one comma-separated string) does not solve the seed
on most seeds. A
booking tool that books each slot of a list, or an invite check that only asks that the right people are among
those invited, wins with it; a sound one books the one right slot. Nothing is tried where the reference's own value
already is every such value.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from spade_core import linear_re
from spade_core.validation.adversaries import TRIM
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode
from spade_core.validation.mutations import JsonCall, json_call, typed
from spade_core.validation.replay import labelled, needed, replaying, too_often

SEEDS = 4
"""Solved seeds whose references are replayed with flooded calls."""
PER_SEED = 6
"""Replays of flooded calls per seed at most."""
MAX_CHARS = 32_000
"""Characters of one observation read for values (the contract's bound on an observation)."""
MAX_TOKENS = 1_000
"""Values of one observation a flood draws from at most."""
MAX_CALLS = 8
"""Calls of one reference episode whose arguments are flooded at most."""

_LETTERS = linear_re.compile(r"[A-Za-z]+")
_DIGITS = linear_re.compile(r"[0-9]+")


def shape(value: str) -> str:
    """The value with each run of letters written ``a`` and each run of digits ``9`` (``R-12`` -> ``a-9``, ``10:00``
    -> ``9:9``): values of one kind share it."""
    return _DIGITS.sub("9", _LETTERS.sub("a", value))


@dataclass(frozen=True)
class Flood:
    seed: int
    what: str
    success: bool


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _like(shown: list[str], item: str) -> list[str]:
    """The shown values of ``item``'s shape, each once."""
    kind = shape(item)
    return list(dict.fromkeys(v for v in shown if shape(v) == kind))


def _typed(values: list[str], like: Any) -> list[Any]:
    """The values as the argument's type; for a number, those that read as one."""
    out = [typed(v, like) for v in values]
    return out if isinstance(like, str) else [v for v in out if not isinstance(v, str)]


def floods(call: JsonCall, earlier: list[list[str]]) -> list[tuple[str, str]]:
    """``(action, what)``: the call with one argument holding every value of its value's shape that the first of the
    ``earlier`` observations' values to show it showed, for each argument whose value (or each item of its list)
    one of them showed."""
    out = []
    for name, value in call.arguments.items():
        items = value if isinstance(value, list) else [value]
        if not items or not all(_scalar(v) for v in items):
            continue
        shown = next((values for values in earlier if all(str(v) in values for v in items)), None)
        if shown is None:
            continue
        every = _typed(_like(shown, str(items[0])), items[0])
        if len(every) < 2 or {str(v) for v in every} == {str(v) for v in items}:
            continue
        out.append((call.render({**call.arguments, name: every}), f"{name!r} given every value of its kind shown"))
        if isinstance(items[0], str):
            out.append((call.render({**call.arguments, name: ", ".join(every)}),
                        f"{name!r} given every value of its kind shown, in one text"))
    return out


def observation_tokens(obs: str) -> list[str]:
    """Every value an observation shows, each once: its whitespace-separated tokens without surrounding quotes and
    punctuation (a table's ids and a JSON result's values included), at most :data:`MAX_TOKENS`."""
    tokens = (t.strip(TRIM) for t in obs[:MAX_CHARS].split())
    return list(dict.fromkeys(t for t in tokens if t))[:MAX_TOKENS]


def flood_episodes(c: Candidate, solved: list[Episode]) -> list[Flood]:
    """The first :data:`SEEDS` solved references, each replayed with one call's argument flooded (its other actions
    as they were), within :data:`PER_SEED` replays each (the replay judging whether a call is needed included)."""
    results: list[Flood] = []
    for episode in solved[:SEEDS]:
        played = 0
        for index, action in enumerate(episode.actions[:MAX_CALLS]):
            call = json_call(action)
            if call is None or not call.arguments:
                continue
            earlier = [observation_tokens(obs) for obs in episode.observations[:index + 1]]
            tries = floods(call, earlier)[:PER_SEED - played]
            if not tries:
                continue
            played += 1
            if not needed(c, episode, index):  # a read's arguments change nothing the replay does
                continue
            for flooded, what in tries:
                played += 1
                actions = list(episode.actions)
                actions[index] = flooded
                replay = labelled(c.run(episode.seed, replaying(actions), max_steps=len(actions)),
                                  f"the reference with {call.tool or 'its call'}'s {what}")
                results.append(Flood(episode.seed, f"{call.tool or 'the call'}: {what}", replay.success))
    return results


def winning_flood(results: list[Flood], max_share: float) -> list[Flood] | None:
    """The floods of the first kind (call and argument) that win too often to be chance, else None."""
    by_kind: dict[str, list[Flood]] = defaultdict(list)
    for flood in results:
        by_kind[flood.what].append(flood)
    for tried in by_kind.values():
        if too_often(sum(f.success for f in tried), len(tried), max_share):
            return tried
    return None
