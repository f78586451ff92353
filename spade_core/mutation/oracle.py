"""The differential oracle: is a mutant observably worse than its original?

Both are played, in the sandbox, on the same seeds by the same policies: the reference; the reference reading the
hint before every move; cheap policies (random text, constant answers, the observation's numbers boxed, the
reference's first move repeated) and, where answers are values and one player plays, boundary probes (the reference's move with its
numbers nudged: off by one, or just outside any stated tolerance). Every policy plays its seeds one after another on one instance, as a trained
agent's environment is reset and reused. A cheap policy is one an agent could play: repeating the reference's opening
only where that opening is a function of the first observation (the contract lets the reference read the secret, and
an opening that does is not a move an agent could know); a probe episode counts only where some move was nudged (a
move without numbers is the reference's own). The mutant is worse when, against the original, some cheap policy or
probe succeeds on more seeds (where the mutant states different tasks, significantly more: the two sets of seeds are
then two samples of tasks, and a policy's luck on them differs by chance) or earns more (by more than a tenth of the
reward range; a probe only where the mutant states the same
task: a tolerance widened in the check and in the text that states it is a looser task, honestly told, not a
widened bound), the reference succeeds on fewer (in a game,
where it plays every seat: finishes fewer games), reading the
hint changes the reference's outcome, a later episode on a reused instance differs from the same seed on a fresh
one, or a difficulty knob that changed the reference's episodes no longer does. A mutant no policy tells apart from
its original is equivalent for this oracle and is not scored.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from spade_core import linear_re
from spade_core.contract.env import SpadeEnv
from spade_core.contract.inner import HandleFactory
from spade_core.plugins.contributions import VALUE_ANSWERS
from spade_core.plugins.domains import answer_kind
from spade_core.validation.episodes import Episode, Policy, play, reference_policy
from spade_core.validation.precision import WHOLE_NUMBER_MISS
from spade_core.validation.replay import seat_winner
from spade_registry.manifest import EnvManifest
from spade_registry.syntax import parse_source

ORACLE_SEEDS = tuple(range(8))
"""The seeds every policy plays (the gate's own seeds start at 0 too; the oracle needs no other)."""

RETURN_MARGIN = 0.1
"""A cheap policy earning more than this share of the reward range more than on the original is a gain."""

_NUMBER = linear_re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def _constant(text: str) -> Policy:
    return lambda env, obs, info: text


def _numbers(pick: int) -> Policy:
    def policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
        found = _NUMBER.findall(obs)
        return f"\\boxed{{{found[pick]}}}" if found else "\\boxed{0}"
    return policy


def _random_text() -> Policy:
    draws: dict[int, random.Random] = {}

    def policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
        if env.turn == 0 or id(env) not in draws:
            draws[id(env)] = random.Random(env.episode_seed)
        rng = draws[id(env)]
        boxed = "\\boxed{" + str(rng.randint(0, 99)) + "}"
        return rng.choice([boxed, str(rng.randint(0, 9)), "yes", "a", "pass"])
    return policy


def _repeat_first_reference() -> Policy:
    first: dict[int, str] = {}

    def policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
        if env.turn == 0 or id(env) not in first:
            first[id(env)] = env.reference_action()
        return first[id(env)]
    return policy


REPEAT_OPENING = "repeat first reference move"
"""The cheap policy that repeats the reference's opening: played only where the opening is public (:func:`public_opening`)."""


def public_opening(reference: Sequence[Episode]) -> bool:
    """Whether the reference's first move is a function of the first observation on these episodes: no two with the
    same first observation open differently. Where they do, the reference read what the agent cannot see (which the
    contract allows), and repeating its opening is not a policy an agent could play."""
    openings: dict[str, str] = {}
    for episode in reference:
        if episode.actions and openings.setdefault(episode.reset_obs, episode.actions[0]) != episode.actions[0]:
            return False
    return True


NEAR_MISS_SHARE = 0.02
"""How far a near miss moves a decimal in the reference's move (a share of its size): outside any tolerance a task
states for its answers (the bundled ones state 1% or less)."""


LAST_PLACE_SHARE = float(WHOLE_NUMBER_MISS)
"""How far a last-place probe moves an integer: nearer the next whole number than the answer (the gate's own
:data:`~spade_core.validation.precision.WHOLE_NUMBER_MISS`: a check rounding to the nearest whole number is sound)."""


def nudge(action: str, direction: int, *, last_place: bool = False) -> str:
    """``action`` with every number in it moved by one step in ``direction`` (+1 or -1): an integer by 1, a decimal by
    :data:`NEAR_MISS_SHARE` of its size (0.02 when it is 0), or with ``last_place`` by one unit of its last decimal
    place (12.34 to 12.35: just outside a tolerance of half that unit; an integer by :data:`LAST_PLACE_SHARE`, 1234 to
    1234.6, which no whole-number check accepts, rounding or exact). Digits inside a name (``x2``) are left alone,
    and a minus sign after a name, a number or a bracket is subtraction, not a sign. Text without numbers is returned
    unchanged."""
    def moved(text: str) -> str:
        if "." not in text:
            return f"{int(text) + direction * LAST_PLACE_SHARE:.1f}" if last_place else str(int(text) + direction)
        if last_place:
            places = len(text.split(".")[1])
            return f"{float(text) + direction * 10 ** -places:.{places}f}"
        value = float(text)
        return f"{value + direction * (abs(value) * NEAR_MISS_SHARE or NEAR_MISS_SHARE):.6g}"

    pieces, last = [], 0
    for match in _NUMBER.finditer(action):
        start, end = match.span()
        before = action[start - 1] if start else ""
        text = match.group(0)
        if not text.startswith("-") and (before.isalnum() or before == "_"):
            continue
        if text.startswith("-") and (before.isalnum() or before in "_)]" or
                                     (start and action[start - 1] == " " and _subtracts(action, start))):
            pieces.append(action[last:start + 1] + moved(text[1:]))
        else:
            pieces.append(action[last:start] + moved(text))
        last = end
    return "".join(pieces) + action[last:]


def _subtracts(action: str, start: int) -> bool:
    """Whether the ``-`` at ``start``, after a space, follows an operand (a name, number or bracket) and so is
    subtraction (``n -1``), not a sign (``take -1``: a word that reads as an operand is taken as one too)."""
    before = action[:start].rstrip()
    return bool(before) and (before[-1].isdigit() or before[-1] in ")]")


def _near_miss(direction: int, *, last_place: bool = False) -> Callable[[], Policy]:
    """The reference's move with its numbers nudged (:func:`nudge`): a boundary probe. Off by one, or just outside
    the stated tolerance, it is wrong wherever the reference's move is the one right answer, so an environment that
    starts accepting it has widened a bound or a tolerance, or stopped checking all of an answer."""
    def make() -> Policy:
        return lambda env, obs, info: nudge(env.reference_action(), direction, last_place=last_place)
    return make


CHEAP: dict[str, Callable[[], Policy]] = {
    "random": _random_text,
    "constant 0": lambda: _constant("0"),
    "constant boxed 0": lambda: _constant("\\boxed{0}"),
    "first number": lambda: _numbers(0),
    "last number": lambda: _numbers(-1),
    REPEAT_OPENING: _repeat_first_reference,
}
"""Cheap policies by label: each call makes a fresh one (some keep per-episode memory)."""

PROBES: dict[str, Callable[[], Policy]] = {
    "reference off by +1": _near_miss(1),
    "reference off by -1": _near_miss(-1),
    "reference moved in its last place": _near_miss(1, last_place=True),
}
"""Boundary probes by label, played where answers are values (a nudged program is mostly a program that never
ends, which costs the sandbox's whole time limit per try and tells little)."""


def policies(manifest: EnvManifest) -> dict[str, Callable[[], Policy]]:
    """The cheap policies, and the boundary probes where the domain's answers are values and one player plays.

    A boundary probe is wrong only because the reference's move is the one right answer. In a game it is one legal
    move among many: a nudged move (the next cell, one more counter taken) is another move, and it may well win more
    against the reference than the reference's own move does when a mutant changes the game, without any bound or
    tolerance having widened. So in a game a nudged reference earning more says nothing about the verifier."""
    if answer_kind(manifest.domain) in VALUE_ANSWERS and manifest.players == 1:
        return {**CHEAP, **PROBES}
    return dict(CHEAP)


@dataclass
class Behaviour:
    """What the policies observed of one module on the oracle's seeds."""

    successes: dict[str, int] = field(default_factory=dict)
    returns: dict[str, float] = field(default_factory=dict)  # mean episode return per policy
    wins: dict[str, tuple[float, ...]] = field(default_factory=dict)  # per policy, 1.0 or 0.0 per episode
    episode_returns: dict[str, tuple[float, ...]] = field(default_factory=dict)  # per policy, each episode's return
    hint_read_successes: int = 0
    reused_differs: bool = False
    knob_effects: dict[str, bool] = field(default_factory=dict)  # knob -> its extremes change the reference's play
    reward_span: float = 1.0
    errors: int = 0  # reference episodes that failed in the environment
    statements: tuple[str, ...] = ()  # the reference's first observation on each seed: the task as stated


@dataclass(frozen=True)
class Judgement:
    worse: bool
    reasons: tuple[str, ...]


def manifest_of(source: str) -> EnvManifest:
    """The module's ``ENV_SPEC``, read as a literal (never run)."""
    tree = parse_source(source)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ENV_SPEC" for t in node.targets):
            return EnvManifest.from_dict(ast.literal_eval(node.value))
    raise ValueError("the module has no ENV_SPEC")


def _reference_done(episode: Episode, manifest: EnvManifest) -> bool:
    """The reference's own criterion: it solves the task, or in a game (where it plays every seat, so which seat wins
    depends only on the position) it finishes the game."""
    return episode.success if manifest.players == 1 else episode.finished


def _won(episode: Episode, manifest: EnvManifest) -> bool:
    if manifest.players == 1:
        return episode.success
    return episode.error is None and seat_winner(episode.final_info, manifest.players) == 0


def _play_all(make: Callable[[], SpadeEnv], policy: Policy, manifest: EnvManifest, seeds: Sequence[int],
              *, record_hints: bool = False) -> list[Episode]:
    """``policy`` in seat 0 (the reference in the others) on every seed, one reused instance."""
    env = make()
    seats = {p: reference_policy for p in range(1, manifest.players)}
    try:
        return [play(env, seed, policy, seats=seats, record_hints=record_hints, max_steps=manifest.max_turns)
                for seed in seeds]
    finally:
        env.close()


def behaviour(source: str, handles: Callable[[str, str], HandleFactory], *,
              seeds: Sequence[int] = ORACLE_SEEDS) -> Behaviour:
    """Play ``source`` with every policy on ``seeds`` (``handles(source, env_id)``: how its code is run)."""
    manifest = manifest_of(source)
    relaxed = dataclasses.replace(manifest, reward_range=(-1e300, 1e300))
    env_id = f"mutant:{manifest.name}"
    factory = handles(source, env_id)

    def make(knobs: dict[str, Any] | None = None) -> SpadeEnv:
        return SpadeEnv(relaxed, factory, knobs=knobs, env_id=env_id)

    seen = Behaviour(reward_span=float(manifest.reward_range[1] - manifest.reward_range[0]) or 1.0)
    reference = _play_all(make, reference_policy, manifest, seeds)
    seen.successes["reference"] = sum(_reference_done(e, manifest) for e in reference)
    seen.errors = sum(e.error is not None for e in reference)
    seen.statements = tuple(e.reset_obs for e in reference)
    seen.hint_read_successes = sum(_reference_done(e, manifest) for e in _play_all(
        make, reference_policy, manifest, seeds, record_hints=True))
    fresh = [_play_all(make, reference_policy, manifest, [seed])[0] for seed in seeds[-2:]]
    seen.reused_differs = any(a.trace() != b.trace() for a, b in zip(reference[-2:], fresh, strict=True))
    played = {e.seed: e.actions for e in reference}
    for label, policy in policies(manifest).items():
        if label == REPEAT_OPENING and not public_opening(reference):
            continue
        episodes = _play_all(make, policy(), manifest, seeds)
        if label in PROBES:  # an episode whose every move is the reference's was not probed
            episodes = [e for e in episodes if e.actions != played.get(e.seed)]
        seen.wins[label] = tuple(float(_won(e, manifest)) for e in episodes)
        seen.episode_returns[label] = tuple(e.total_reward for e in episodes)
        seen.successes[label] = int(sum(seen.wins[label]))
        seen.returns[label] = sum(seen.episode_returns[label]) / max(len(episodes), 1)
    for knob in manifest.difficulty:
        extremes = []
        for value in (knob.min, knob.max):
            at = {knob.name: int(value) if knob.integer else value}
            extremes.append([e.trace() for e in _play_all(lambda at=at: make(at), reference_policy, manifest,
                                                           seeds[:3])])
        seen.knob_effects[knob.name] = extremes[0] != extremes[1]
    return seen


SIGNIFICANCE = 0.05
"""Where a mutant states other tasks, a cheap policy's gain (in successes or returns) counts at this one-sided
significance."""
EXACT_SPLITS = 20_000
"""The permutation test enumerates every split up to this many (8 seeds against 8: 12,870), else samples as many."""


def significantly_higher(before: Sequence[float], after: Sequence[float], *, level: float = SIGNIFICANCE) -> bool:
    """Whether the values of ``after`` are significantly higher than those of ``before``, two independent samples
    (episodes of two sets of tasks): the one-sided permutation test on the sum of ``after`` over every split of the
    pooled values (sampled with a fixed generator past :data:`EXACT_SPLITS` splits) is below ``level``. On successes
    (1 or 0 per episode) it is Fisher's exact test."""
    if not before or not after or sum(after) / len(after) <= sum(before) / len(before):
        return False
    pooled, k = [*before, *after], len(after)
    observed = math.fsum(after) - 1e-9
    if math.comb(len(pooled), k) <= EXACT_SPLITS:
        splits = [[pooled[i] for i in chosen] for chosen in itertools.combinations(range(len(pooled)), k)]
    else:
        rng = random.Random(0)
        splits = [rng.sample(pooled, k) for _ in range(EXACT_SPLITS)]
    return sum(math.fsum(split) >= observed for split in splits) / len(splits) < level


def judge(original: Behaviour, mutant: Behaviour) -> Judgement:
    """Why the mutant is observably worse than the original (no reasons: equivalent for this oracle)."""
    reasons: list[str] = []
    if mutant.successes["reference"] < original.successes["reference"]:
        crashed = " (its episodes fail in the environment)" if mutant.errors > original.errors else ""
        reasons.append(f"the reference solves {mutant.successes['reference']} seeds, not "
                       f"{original.successes['reference']}{crashed}")
    restated = mutant.statements != original.statements  # other tasks: a gain counts only beyond chance
    for label in [p for p in original.returns if p in mutant.returns and not (restated and p in PROBES)]:
        if mutant.successes[label] > original.successes[label] and (
                not restated or significantly_higher(original.wins.get(label, ()), mutant.wins.get(label, ()))):
            reasons.append(f"{label} succeeds on {mutant.successes[label]} seeds, not {original.successes[label]}")
        elif mutant.returns[label] - original.returns[label] > RETURN_MARGIN * original.reward_span and (
                not restated or significantly_higher(original.episode_returns.get(label, ()),
                                                     mutant.episode_returns.get(label, ()))):
            reasons.append(f"{label} earns {mutant.returns[label]:.2f} per episode, not {original.returns[label]:.2f}")
    if (mutant.hint_read_successes != mutant.successes["reference"]
            and original.hint_read_successes == original.successes["reference"]):
        reasons.append("reading the hint changes the reference's outcome")
    if mutant.reused_differs and not original.reused_differs:
        reasons.append("an episode on a reused instance differs from the same seed on a fresh one")
    for knob, effect in original.knob_effects.items():
        if effect and not mutant.knob_effects.get(knob, False):
            reasons.append(f"difficulty {knob} no longer changes the episodes")
    return Judgement(bool(reasons), tuple(reasons))
