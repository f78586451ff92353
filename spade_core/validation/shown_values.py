"""Every value the task shows, tried as the answer: the ``shown_values`` stage.

The property: each value the first observation shows (a listed option's text, an item of a list after a colon, a
number, a word, an identifier), tried as the final answer after the reference's own earlier steps, does not succeed on
most seeds. A verifier that accepts any listed option (``answer in self.options``), any id the table shows or any
number of the problem wins with every one of them; a sound one accepts the one right value, which sits at a position
that changes with the seed. Values are tried by position (value #k of each seed's observation, options first, so
that option #k means the same on every seed): value #k winning on most seeds fails (:func:`~.replay.too_often`
with ``ValidationConfig.shown_value_max_share``). A try that is the reference's own final action is not counted (a
tool task may show the id its answer names). The answer is written in the reference's format (``\\boxed{}``,
``Answer: ``), bare, and, for a JSON call, in each of its arguments.

The ``baselines`` stage copies the first dozen numbers, letters and names of the observation from the first turn;
this stage reads every value, lowercase words and list items included, and answers where the reference answers.
"""

from __future__ import annotations

import json

from spade_core import linear_re
from spade_core.validation.adversaries import MAX_OBSERVATION_CHARS, TRIM, listed_items, observation_values
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode
from spade_core.validation.hint_leaks import ARGUMENT_KEYS, json_action
from spade_core.validation.mutations import typed
from spade_core.validation.replay import answer_template, replay_then, too_often
from spade_core.validation.report import StageResult, fail_rule, ok
from spade_core.validation.shown_floods import flood_episodes, winning_flood

RULE = "no shown value (option, list item, number) given as the answer wins on most seeds"

MAX_VALUES = 60
"""Values of one observation tried at most."""
SCREEN_SEEDS = 3
"""Solved seeds every value is tried on; a position that wins on two of them is tried on the confirmation seeds."""
CONFIRM_SEEDS = 12
"""Solved seeds a suspicious position is tried on in all."""

_OPTION = linear_re.compile(r"(?m)^\s*(?:\(?[A-Za-z0-9]{1,2}[).:]|[-*])\s+([^\n]{1,80})$")


def shown_values(obs: str) -> list[str]:
    """The values ``obs`` shows, in a fixed order by kind: option lines (``A) 41``, ``- lemon``), items of a list
    after a colon, the numbers, choices and names the copying adversaries read, then every whitespace-separated
    token; each once, at most :data:`MAX_VALUES`."""
    obs = obs[:MAX_OBSERVATION_CHARS]
    found = [m.group(1).strip(TRIM) for m in _OPTION.finditer(obs)]
    found += listed_items(obs)
    found += observation_values(obs, MAX_VALUES)
    found += [token.strip(TRIM) for token in obs.split()]
    return [v for v in dict.fromkeys(found) if v][:MAX_VALUES]


def renderings(c: Candidate, final: str, value: str) -> list[str]:
    """``value`` as the final answer: in the reference's answer format and bare, or in each argument of its JSON
    call."""
    data = json_action(final)
    if isinstance(data, dict):
        key = next((k for k in ARGUMENT_KEYS if isinstance(data.get(k), dict)), None)
        if key is None:
            return []
        arguments = data[key]
        return [json.dumps({**data, key: {**arguments, name: typed(value, old)}}) for name, old in arguments.items()]
    template = answer_template(c)
    return list(dict.fromkeys([template.render(value), value]))


def _wins(c: Candidate, episode: Episode, value: str) -> bool | None:
    """Whether ``value`` as the final answer solves ``episode``'s seed (None: every rendering is the reference's own
    final action, so the try does not count)."""
    final = episode.actions[-1]
    tries = [action for action in renderings(c, final, value) if action != final]
    if not tries:
        return None
    for action in tries:
        info = replay_then(c, episode, action)
        if info is not None and info.get("success"):
            return True
    return False


def check_shown_values(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "shown_values"
    if c.manifest.players != 1:
        return ok(stage, "two-player game: the stalling and seat checks judge its moves")
    solved = [e for e in c.reference_episodes if e.success and e.error is None and e.steps][:CONFIRM_SEEDS]
    if len(solved) < SCREEN_SEEDS:
        return ok(stage, "fewer than three solved seeds")
    values = {e.seed: shown_values(e.reset_obs) for e in solved}
    wins: dict[int, list[int]] = {}  # value position -> seeds it won
    tried: dict[int, int] = {}
    suspects = set(range(MAX_VALUES))
    for index, episode in enumerate(solved):
        if index == SCREEN_SEEDS:
            suspects = {k for k, won in wins.items() if len(won) >= 2}
            if not suspects:
                break
        shown = values[episode.seed]
        for k in sorted(suspects):
            if k >= len(shown):
                continue
            won = _wins(c, episode, shown[k])
            if won is None:
                continue
            tried[k] = tried.get(k, 0) + 1
            if won:
                wins.setdefault(k, []).append(episode.seed)
    limit = c.config.shown_value_max_share
    bad = [k for k in wins if too_often(len(wins[k]), tried[k], limit)]
    if bad:
        k = max(bad, key=lambda j: len(wins[j]) / tried[j])
        seeds = wins[k]
        examples = ", ".join(f"seed {s}: {values[s][k][:30]!r}" for s in seeds[:3])
        return fail_rule(stage, f"value #{k + 1} the first observation shows, given as the answer, wins on "
                         f"{len(seeds)} of {tried[k]} seeds ({examples}), not being the reference's answer; at most "
                         f"{limit:.0%} allowed",
                         ["the verifier accepts any listed option, id or number of the task (membership instead of "
                          "the one right value)", "the answer sits at a fixed place in the observation"],
                         ["compare the answer with the one value this seed's task makes right",
                          "shuffle where the right option is listed"], rule=RULE,
                         wins=f"{len(seeds)}/{tried[k]}", allowed=limit)
    flooded = flood_episodes(c, solved)
    won = winning_flood(flooded, limit)
    if won is not None:
        seeds = [f.seed for f in won if f.success]
        return fail_rule(stage, f"the reference's {won[0].what} wins on {len(seeds)} of {len(won)} seeds "
                         f"(seeds {', '.join(map(str, seeds[:4]))}): one call naming every option shown solves the "
                         "task", ["the tool acts on every value of a list, or the check asks only that the right "
                                  "value is among those given"],
                         ["accept one value where the task asks for one", "check that nothing but the right values "
                          "was given"], rule=RULE, wins=f"{len(seeds)}/{len(won)}", allowed=limit)
    return ok(stage, f"{sum(tried.values())} values the task shows tried as the answer, {len(flooded)} calls given "
              f"every shown value at once: none wins on more than {limit:.0%} of seeds")
