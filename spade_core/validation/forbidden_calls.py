"""A tool the task forbids, called in place of the reference's needed calls, does not reach the goal.

The property: where the task's first observation forbids a tool it names ("never call delete_order", "do not use
refund_all"), the reference's episode with each of its needed calls that pass arguments (those without which it
fails) made with that tool instead, same arguments, does not solve the seed on most seeds. A goal state that the
forbidden shortcut also reaches (no unpaid order left open once it is deleted) is won that way; a sound task
refuses the call, or counts it against the goal. Tools the reference itself calls are never taken as forbidden (a
rule such as "do not finish before paying" is about order, not the tool).
"""

from __future__ import annotations

from dataclasses import dataclass

from spade_core import linear_re
from spade_core.validation.adversaries import MAX_OBSERVATION_CHARS
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode
from spade_core.validation.mutations import json_call
from spade_core.validation.read_only import stated_tools
from spade_core.validation.replay import labelled, needed, replaying

SEEDS = 4
"""Solved seeds the forbidden tools are tried on."""
MAX_TOOLS = 3
"""Forbidden tools tried at most."""
MAX_NEEDED_REPLAYS = 12
"""Calls of one reference judged needed or not at most (a replay each)."""

_SENTENCE = linear_re.compile(r"[^.!?\n]+")
_NEGATION = linear_re.compile(
    r"(?i)\b(?:do not|don't|never|must not|mustn't|may not|should not|shouldn't|cannot|can't|not allowed to|"
    r"forbidden|prohibited|no)\b")
_IDENTIFIER = linear_re.compile(r"[A-Za-z_][A-Za-z_0-9]{0,60}")
_NAMED = linear_re.compile(r"\"(?:name|tool|function)\"\s*:\s*\"([A-Za-z_][A-Za-z_0-9]*)\"")


@dataclass(frozen=True)
class ForbiddenTry:
    seed: int
    tool: str
    rule: str
    success: bool


def forbidding_sentence(obs: str, tool: str) -> str | None:
    """The first sentence of ``obs`` that names ``tool`` after a negation ("never call delete_order"), else None."""
    if not _IDENTIFIER.fullmatch(tool):
        return None
    word = linear_re.compile(rf"\b{tool}\b")
    for sentence in _SENTENCE.finditer(obs[:MAX_OBSERVATION_CHARS]):
        text = sentence.group()
        named, negation = word.search(text), _NEGATION.search(text)
        if named and negation and negation.start() < named.start():
            return text.strip()
    return None


def forbidden_tools(c: Candidate, reference: Episode) -> list[tuple[str, str]]:
    """``(tool, sentence)`` for each tool the first observation names (in ``ENV_SPEC['tools']``, a tools list or a
    JSON call it shows) and forbids, that the reference never calls."""
    assert c.manifest is not None
    obs = reference.reset_obs
    names = [*stated_tools(c, obs), *(m.group(1) for m in _NAMED.finditer(obs[:MAX_OBSERVATION_CHARS]))]
    called = {call.tool for call in map(json_call, reference.actions) if call is not None}
    out = []
    for name in dict.fromkeys(names):
        if name in called:
            continue
        sentence = forbidding_sentence(obs, name)
        if sentence is not None:
            out.append((name, sentence))
    return out[:MAX_TOOLS]


def _needed_calls(c: Candidate, episode: Episode) -> list[int]:
    """Indices of the reference's JSON calls with arguments that it fails without (the first
    :data:`MAX_NEEDED_REPLAYS` such calls judged)."""
    with_arguments = [i for i, a in enumerate(episode.actions) if (call := json_call(a)) is not None and call.arguments]
    return [i for i in with_arguments[:MAX_NEEDED_REPLAYS] if needed(c, episode, i)]


def forbidden_tries(c: Candidate, solved: list[Episode]) -> list[ForbiddenTry]:
    """Each of the first :data:`SEEDS` solved references replayed with its needed calls made with each forbidden
    tool instead."""
    if not solved or not solved[0].actions or json_call(solved[0].actions[-1]) is None:
        return []
    tools = forbidden_tools(c, solved[0])
    if not tools:
        return []
    out = []
    for episode in solved[:SEEDS]:
        indices = _needed_calls(c, episode)
        if not indices:
            continue
        for tool, rule in tools:
            actions = list(episode.actions)
            for index in indices:
                call = json_call(actions[index])
                if call is not None:
                    actions[index] = call.calling(tool)
            replay = labelled(c.run(episode.seed, replaying(actions), max_steps=len(actions)),
                              f"the reference with its needed calls made with {tool!r}")
            out.append(ForbiddenTry(episode.seed, tool, rule, replay.success))
    return out
