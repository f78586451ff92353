"""The verifier rejects near misses and accepts equivalent forms; a game's seats are fair: the ``verifier``
stage."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from spade_core.plugins.contributions import AnswerKind
from spade_core.plugins.domains import answer_kind
from spade_core.validation.adversaries import (
    random_legal,
)
from spade_core.validation.answer_numbers import answer_number
from spade_core.validation.baselines import adversary_seeds
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import (
    Episode,
)
from spade_core.validation.precision import (
    IMPLIED_MAX_PLACES,
    IMPLIED_MISS_UNITS,
    OUTSIDE_FACTOR,
    WHOLE_NUMBER_MISS,
    outside_precision,
    precision,
    stated_bands,
)
from spade_core.validation.probes import (
    MAX_TOLERANCE,
    Probe,
    deviation,
    equivalents,
    listed_short_form,
    mirrored,
    near_misses,
    one_off,
    scaled_misses,
    tolerance_probes,
)
from spade_core.validation.replay import (
    labelled,
    replay_step,
    replay_then,
    seat_winner,
)
from spade_core.validation.report import StageResult, fail, ok

PRECISION_KINDS: tuple[AnswerKind, ...] = ("numeric", "text")
"""The answer kinds whose numbers are quantities, probed outside the task's precision: a label's number names an
item (a cell, a guess) and a program's constants are code."""


def verifier_rule(seat_max_share: float) -> str:
    """The stage's rule as the designer prompt states it."""
    return (f"near misses (sign flip, neighbour, permutation, in longer text, moved {float(2 * MAX_TOLERANCE):.0%}; "
            f"unstated tolerance: {float(WHOLE_NUMBER_MISS):g} off a whole number, {IMPLIED_MISS_UNITS} last-place "
            f"units off a 1-{IMPLIED_MAX_PLACES} place decimal; a unit slip (x3.6), earlier steps too) wrong, equivalent forms (spaces, 42.0, "
            f"2/6 for 1/3, Tue for Tuesday, N for no, within a stated tolerance up to {float(MAX_TOLERANCE):.0%}) right; "
            f"two-player: no seat wins {seat_max_share:.0%} of reference or random legal games")


def check_verifier(c: Candidate) -> StageResult:
    """Both directions: near misses of the correct final answer (sign flips, permutations, neighbours, the
    answer inside a longer string) are rejected, numeric answers outside the task's precision too (its stated
    tolerance, or a reply nearer another whole number: :mod:`~spade_core.validation.precision`), and equivalent forms
    of it (spaces, 42.0, 2/6) accepted. Games: no seat wins (nearly) every game, neither between references nor
    between random legal players."""
    assert c.manifest is not None
    if c.manifest.players > 1:
        return _seat_bias(c)
    every_solved = [e for e in c.reference_episodes if e.success]
    finals = [e.steps[-1][0] for e in every_solved]
    solved = every_solved[:2]
    tried = 0
    for episode in c.clock.items(solved, "solved episodes"):
        final = episode.steps[-1][0]
        tolerance = Fraction(0)  # the task's own: the largest sane deviation its verifier accepts
        for probe, moved in tolerance_probes(final):
            info = replay_then(c, episode, probe.action)
            tried += 1
            if info is None or not info.get("success"):
                break
            tolerance = moved
        task_text = f"{c.manifest.description}\n{episode.reset_obs}"
        for probe in near_misses(final, c.manifest.domain):
            off = deviation(probe.action, final) if tolerance else None
            if off is not None and off <= tolerance:
                continue  # inside the tolerance the task itself accepts: an equivalent form, not a near miss
            if listed_short_form(probe.action, final, task_text):
                continue  # a short form the task lists as a spelling of the answer (u for up)
            info = replay_then(c, episode, probe.action)
            tried += 1
            if info is not None and info.get("success") and _inside_band(c, episode, probe.action, final):
                continue  # the verifier's own stated tolerance: a band around the answer, accepted both ways
            if info is not None and info.get("success"):
                return fail("verifier", f"seed {episode.seed}: {probe.what} {probe.action[:80]!r} was accepted "
                            f"(the correct answer is {final[:80]!r})",
                            ["the check is too loose (substring, prefix, absolute value, sorted letters or "
                             "'any number' matching)"],
                            ["compare the parsed answer exactly (or numerically) with the expected one"])
        if answer_kind(c.manifest.domain) == "numeric":
            earlier = _earlier_answers(c, episode)
            tried += earlier.tried
            if earlier.failure is not None:
                return earlier.failure
        if answer_kind(c.manifest.domain) in PRECISION_KINDS:
            outside = _outside_precision(c, episode, finals)
            tried += outside.tried
            if outside.failure is not None:
                return outside.failure
        for probe in equivalents(final, c.manifest.domain):
            info = replay_then(c, episode, probe.action)
            tried += 1
            if info is not None and not info.get("success") and info.get("format_error") is None \
                    and info.get("action_is_valid") is not False:
                return fail("verifier", f"seed {episode.seed}: {probe.what} {probe.action[:80]!r} was judged wrong "
                            f"(the reference answered {final[:80]!r})",
                            ["the answer is compared as a string, not by value", "surrounding whitespace is not "
                             "stripped"],
                            ["strip the action and compare numbers by value (e.g. answers_match / to_number from "
                             "the math domain's verify helpers)"])
    return ok("verifier", f"rejected every near miss and accepted every equivalent form ({tried} probes)")


@dataclass(frozen=True)
class _Probed:
    tried: int
    failure: StageResult | None = None


EARLIER_STEPS = 2
"""Earlier answer steps of a multi-step numeric task probed (the first ones that answer with one number)."""


def _earlier_answers(c: Candidate, episode: Episode) -> _Probed:
    """The reference's earlier answers in a multi-step numeric task, each one off and moved by a unit slip
    (:func:`~spade_core.validation.probes.scaled_misses`), where that lies beyond any tolerance the task may keep
    (:func:`_far_off`), must not be taken as the reference's: a wrong answer met with the very observation, reward
    and ending the right one gets is accepted as right."""
    tried = 0
    steps = [k for k, action in enumerate(episode.actions[:-1]) if answer_number(action) is not None]
    for k in steps[:EARLIER_STEPS]:
        action, obs, reward, terminated, _ = episode.steps[k]
        bumped = one_off(action)
        probes = [*([Probe(bumped, "the answer one off")] if bumped else []), *scaled_misses(action)]
        seen = "\n".join([episode.reset_obs, *episode.observations[:k + 1]])
        for probe in [p for p in probes if _far_off(p.action, action, seen)]:
            tried += 1
            if replay_step(c, episode, k, probe.action) == (obs, reward, terminated):
                return _Probed(tried, fail(
                    "verifier", f"seed {episode.seed}, step {k + 1}: {probe.what} {probe.action[:80]!r} is met "
                    f"exactly as the right answer {action[:80]!r} is", ["an earlier step's check accepts a wrong "
                                                                         "value (another unit, a loose match)"],
                    ["check every step's answer as exactly as the final one"]))
    return _Probed(tried)


def _far_off(probe: str, answer: str, seen: str) -> bool:
    """Whether ``probe`` lies beyond every tolerance the task may keep for ``answer``: past
    :data:`~spade_core.validation.precision.OUTSIDE_FACTOR` times the widest band the observations ``seen`` state
    and past twice :data:`~spade_core.validation.probes.MAX_TOLERANCE` of the answer (an unstated tolerance)."""
    mine, theirs = answer_number(probe), answer_number(answer)
    if mine is None or theirs is None:
        return False
    bands = stated_bands(seen, theirs.value)
    widest = max((b.band for b in bands), default=Fraction(0))
    off = abs(mine.value - theirs.value)
    return off > OUTSIDE_FACTOR * widest and off > 2 * MAX_TOLERANCE * abs(theirs.value)


def _outside_precision(c: Candidate, episode: Episode, finals: list[str]) -> _Probed:
    """The reference's final answer moved outside the precision the task states (or its whole-number answers in a
    numeric domain, or its short decimals, imply) must be rejected: accepted, the verifier is wider than the task."""
    assert c.manifest is not None
    final = episode.steps[-1][0]
    kept = precision("\n".join([episode.reset_obs, *episode.observations]), final, finals,
                     whole_numbers=answer_kind(c.manifest.domain) == "numeric")
    if kept is None:
        return _Probed(0)
    probes = outside_precision(final, kept)
    for tried, probe in enumerate(probes, start=1):
        info = replay_then(c, episode, probe.action)
        if info is not None and info.get("success"):
            return _Probed(tried, fail(
                "verifier", f"seed {episode.seed}: {probe.what} {probe.action[:80]!r} was accepted (the correct "
                f"answer is {final[:80]!r})",
                ["the tolerance is wider than the task's precision (a tolerance multiplied, a whole-number answer "
                 "compared with a tolerance that accepts a reply nearer another whole number, or a decimal answer "
                 "accepted far off the places the reference gives it to)"],
                ["compare within the tolerance the observation states (for a whole-number answer: exactly, or after "
                 "rounding to the nearest whole number; for a decimal: within a unit or two of its last place)",
                 "or state in the observation the tolerance the verifier keeps (e.g. 'within 1%')"]))
    return _Probed(len(probes))


def _inside_band(c: Candidate, episode: Episode, action: str, final: str) -> bool:
    """Whether an accepted numeric near miss lies inside a tolerance band the verifier keeps around the answer: it
    is within :data:`~spade_core.validation.probes.MAX_TOLERANCE` and the answer moved as far the other way is
    accepted too."""
    other = mirrored(action, final)
    if other is None:
        return False
    info = replay_then(c, episode, other.action)
    return info is not None and bool(info.get("success"))


def _seat_bias(c: Candidate) -> StageResult:
    assert c.manifest is not None
    players = c.manifest.players
    games = [e for e in c.reference_episodes if e.error is None]
    for label, episodes in (("reference-vs-reference", games), ("random legal players'", None)):
        if episodes is None:
            seeds = adversary_seeds(c)[: c.config.seat_games]
            episodes = [labelled(c.run(s, random_legal(s)), "random legal") for s in seeds]
            episodes = [e for e in episodes if e.error is None]
        wins = [0] * players
        for episode in episodes:
            seat = seat_winner(episode.final_info, players)
            if seat is not None:
                wins[seat] += 1
        if episodes and max(wins) / len(episodes) >= c.config.seat_max_share:
            seat = wins.index(max(wins))
            return fail("verifier", f"seat {seat} wins {max(wins)} of {len(episodes)} {label} games "
                        f"({max(wins) / len(episodes):.0%}; at most {c.config.seat_max_share:.0%} allowed)",
                        ["the rules favour one seat (who moves first, an unequal deal)", "the winner is decided "
                         "without regard to the moves"],
                        ["alternate or draw who starts from rng (randomise the opening or tie-breaks)",
                         "give both seats the same chances"],
                        wins=wins)
    return ok("verifier", "no seat dominates reference-vs-reference or random legal games")
