"""Every argument the task decides is checked: one argument swapped for another seed's value fails.

The property: where two seeds' references make the same call (the n-th call of one tool) with different values for
one argument, that argument is the task's to decide; the seed's reference with that one value replaced by the other
seed's must not solve the seed, when the call is needed at all (the reference without it fails: a read whose answer
the replay ignores is not). A state check that reads a report's file name and not its contents, or a booking check
that never reads the date, passes such swaps on every seed; a task that accepts any of several right values passes
only where the other seed's value happens to be right on this one too. Prose (a message's text, a note) is left out:
tasks rarely check it word for word. A list or object argument emptied (an update's ``where`` dropped, so it changes
every row) is tried the same way: a check that compares only the rows the reference changed passes it.

Within one episode the same holds for pairings: where the reference makes two needed calls of one tool that differ
in one argument and in another too, the two calls with that argument's values exchanged (who gets which plot, which
amount goes to which account) must not solve the seed; a check that reads the set of values given and not which call
gave which passes them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Protocol

from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode
from spade_core.validation.mutations import JsonCall, json_call
from spade_core.validation.replay import labelled, needed, replaying, too_often

OTHER_SEEDS = 2
"""Other solved seeds whose argument values are swapped into each seed's reference."""
MAX_EPISODES = 48
"""Replays the check plays at most per candidate (swaps and the needed-call replays together)."""
MIN_SWAPS = 3
"""Swaps of one argument needed before its success rate can decide."""


MAX_EXCHANGES = 16
"""Replays of calls with exchanged arguments per candidate at most (the needed-call replays included)."""


class Tried(Protocol):
    @property
    def tool(self) -> str: ...

    @property
    def argument(self) -> str: ...

    @property
    def success(self) -> bool: ...

    @property
    def group(self) -> tuple[str, str, bool]: ...


@dataclass(frozen=True)
class Swap:
    """One swap played: ``other`` is the seed whose value was put in, None where the argument was emptied."""

    seed: int
    other: int | None
    tool: str
    argument: str
    success: bool

    @property
    def group(self) -> tuple[str, str, bool]:
        """Swaps judged together: one argument of one tool, emptied apart from given other seeds' values."""
        return self.tool, self.argument, self.other is None


@dataclass(frozen=True)
class Exchange:
    seed: int
    first: int
    second: int
    tool: str
    argument: str
    success: bool

    @property
    def group(self) -> tuple[str, str, bool]:
        return self.tool, self.argument, False


def _calls(actions: list[str]) -> dict[tuple[str, int], tuple[int, JsonCall]]:
    """The reference's JSON calls by (tool, how many calls of that tool came before), with their step index."""
    calls: dict[tuple[str, int], tuple[int, JsonCall]] = {}
    seen: dict[str, int] = defaultdict(int)
    for index, action in enumerate(actions):
        call = json_call(action)
        if call is None or not call.tool:
            continue
        calls[(call.tool, seen[call.tool])] = (index, call)
        seen[call.tool] += 1
    return calls


PROSE_WORDS = 6
"""A text argument of this many words or more is prose (a message, a note), which tasks rarely check word for word:
it is neither swapped nor exchanged."""


def prose(value: object) -> bool:
    return isinstance(value, str) and len(value.split()) >= PROSE_WORDS


class _Budget:
    def __init__(self, episodes: int) -> None:
        self.left = episodes

    def take(self) -> bool:
        self.left -= 1
        return self.left >= 0


def _needed(c: Candidate, episode: Episode, index: int, budget: _Budget, cache: dict[tuple[int, int], bool]) -> bool:
    """Whether the reference fails without its ``index``-th action (False once the budget is spent)."""
    if (episode.seed, index) not in cache:
        if index < len(episode.actions) - 1 and not budget.take():
            return False
        cache[(episode.seed, index)] = needed(c, episode, index)
    return cache[(episode.seed, index)]


@dataclass(frozen=True)
class _Planned:
    """One swap to play: seed ``episode``'s reference with argument ``name`` of its ``index``-th action (``call``)
    set to seed ``other``'s ``value``."""

    episode: Episode
    other: int | None
    site: tuple[str, int]
    index: int
    call: JsonCall
    name: str
    value: object


def _planned(refs: list[Episode]) -> list[_Planned]:
    """Every swap of one argument for the next :data:`OTHER_SEEDS` solved seeds' value, and of each list or object
    argument for an empty one (a filter dropped: the update reaches every row), taken in turn from each (tool,
    argument): an argument that differs between seeds less often (a start time two seeds may share) gets its swaps
    before the replay budget goes to the ones that always differ (a title, a day)."""
    groups: dict[tuple[str, str, bool], list[_Planned]] = defaultdict(list)
    for i, episode in enumerate(refs):
        own = _calls(episode.actions)
        for other in (refs[(i + k) % len(refs)] for k in range(1, min(OTHER_SEEDS, len(refs) - 1) + 1)):
            theirs = _calls(other.actions)
            for site in sorted(own.keys() & theirs.keys()):
                index, call = own[site]
                for name, value in call.arguments.items():
                    if name in theirs[site][1].arguments and theirs[site][1].arguments[name] != value \
                            and not prose(value):
                        groups[(site[0], name, False)].append(
                            _Planned(episode, other.seed, site, index, call, name, theirs[site][1].arguments[name]))
        for site, (index, call) in own.items():
            for name, value in call.arguments.items():
                if isinstance(value, (list, dict)) and value:
                    groups[(site[0], name, True)].append(_Planned(episode, None, site, index, call, name, type(value)()))
    queues = list(groups.values())
    return [queue[k] for k in range(max(map(len, queues), default=0)) for queue in queues if k < len(queue)]


def argument_swaps(c: Candidate, refs: list[Episode]) -> list[Swap]:
    """Each seed's reference with one argument of one needed call set to another seed's value (the next
    :data:`OTHER_SEEDS` solved seeds), replayed, argument by argument in turn (:func:`_planned`); within
    :data:`MAX_EPISODES` replays."""
    budget, cache, swaps = _Budget(MAX_EPISODES), {}, []
    for plan in _planned(refs):
        episode = plan.episode
        if not _needed(c, episode, plan.index, budget, cache):
            continue
        if not budget.take():
            break
        actions = list(episode.actions)
        actions[plan.index] = plan.call.render({**plan.call.arguments, plan.name: plan.value})
        whose = f"of seed {plan.other}" if plan.other is not None else "emptied"
        replay = labelled(c.run(episode.seed, replaying(actions), max_steps=len(actions)),
                          f"seed {episode.seed}'s reference with {plan.site[0]}'s {plan.name!r} {whose}")
        swaps.append(Swap(episode.seed, plan.other, plan.site[0], plan.name, replay.success))
    return swaps


def exchanges(c: Candidate, refs: list[Episode]) -> list[Exchange]:
    """Each seed's reference with one argument's values exchanged between two needed calls of one tool that pass
    several arguments (the first such pair per tool and argument), replayed; within :data:`MAX_EXCHANGES` replays."""
    budget, cache, out = _Budget(MAX_EXCHANGES), {}, []
    for episode in refs:
        calls = [(i, call) for i, a in enumerate(episode.actions)
                 if (call := json_call(a)) is not None and call.tool and len(call.arguments) >= 2]
        tried: set[tuple[str, str]] = set()
        for k, (i, first) in enumerate(calls):
            for j, second in calls[k + 1:]:
                if second.tool != first.tool:
                    continue
                for name in first.arguments.keys() & second.arguments.keys():
                    if (first.tool, name) in tried or first.arguments[name] == second.arguments[name] \
                            or prose(first.arguments[name]):
                        continue
                    rest = [k for k in first.arguments.keys() | second.arguments.keys() if k != name]
                    if all(first.arguments.get(k) == second.arguments.get(k) for k in rest):
                        continue  # the calls differ in this argument alone: exchanging it only reorders them
                    if not (_needed(c, episode, i, budget, cache) and _needed(c, episode, j, budget, cache)):
                        continue
                    if not budget.take():
                        return out
                    tried.add((first.tool, name))
                    actions = list(episode.actions)
                    actions[i] = first.render({**first.arguments, name: second.arguments[name]})
                    actions[j] = second.render({**second.arguments, name: first.arguments[name]})
                    replay = labelled(c.run(episode.seed, replaying(actions), max_steps=len(actions)),
                                      f"seed {episode.seed}'s reference with {first.tool}'s {name!r} exchanged "
                                      f"between steps {i + 1} and {j + 1}")
                    out.append(Exchange(episode.seed, i, j, first.tool, name, replay.success))
    return out


def unchecked_argument(swaps: list[Tried], max_share: float) -> tuple[tuple[str, str], list[Tried]] | None:
    """The first (tool, argument) whose swaps of one kind (:attr:`Swap.group`) succeed too often to be chance: (its
    key, those swaps), else None."""
    by_group: dict[tuple[str, str, bool], list[Tried]] = defaultdict(list)
    for swap in swaps:
        by_group[swap.group].append(swap)
    for (tool, argument, _), tried in by_group.items():
        won = sum(s.success for s in tried)
        if len(tried) >= MIN_SWAPS and too_often(won, len(tried), max_share):
            return (tool, argument), tried
    return None
