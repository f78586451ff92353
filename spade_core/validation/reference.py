"""The reference solves (nearly) every seed, and its answer is determined by the task: the ``reference`` stage."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from spade_core.validation.episodes import (
    Episode,
    first_difference,
    reference_policy,
)
from spade_core.validation.report import StageResult

if TYPE_CHECKING:
    pass

from spade_core.seeding import screening_seeds
from spade_core.validation.candidate import Candidate
from spade_core.validation.replay import (
    labelled,
    replaying,
    too_often,
)
from spade_core.validation.report import describe_error, fail, ok


def check_reference(c: Candidate) -> StageResult:
    """Solvable on (nearly) every seed: the reference succeeds (games: finishes, never making a move the game
    refuses) on at least ``reference_min_success`` of the seeds; the failing seeds are named."""
    assert c.manifest is not None
    done = {e.seed for e in c.reference_episodes}
    seeds = c.config.seeds if c.manifest.players == 1 else c.config.seeds[: c.config.seat_games]
    for i, seed in enumerate(c.clock.items(seeds, "reference seeds")):
        if seed not in done:
            record = i < c.config.hint_episodes
            c.reference_episodes.append(labelled(c.run(seed, reference_policy, record_hints=record), "reference"))
    errors = [e for e in c.reference_episodes if e.error is not None]
    if errors:
        observed, causes, fix = describe_error(errors[0].error)
        return fail("reference", f"seed {errors[0].seed}: {observed}", causes, fix)
    refused = _refused_move(c) if c.manifest.players > 1 else None
    if refused is not None:
        return refused
    if c.manifest.players == 1:
        failed = [e.seed for e in c.reference_episodes if not e.success]
        what = "solves"
    else:
        failed = [e.seed for e in c.reference_episodes if not e.finished]
        what = "finishes the game in self-play on"
    n = len(c.reference_episodes)
    rate = 1 - len(failed) / n if n else 0.0
    if rate < c.config.reference_min_success:
        shown = ", ".join(map(str, failed[:12])) + (" ..." if len(failed) > 12 else "")
        return fail("reference", f"the reference solution {what} only {n - len(failed)} of {n} seeds "
                    f"({rate:.0%}, need {c.config.reference_min_success:.0%}); it fails on seeds {shown}",
                    ["reference_action does not follow the state", "success is never set",
                     "the task is unsolvable on some seeds (a value the observation never shows, an impossible "
                     "draw)"],
                    ["make reference_action compute the correct next action from internal state",
                     "set info['success'] = True when solved", "draw only solvable tasks in reset"],
                    rate=rate, failing_seeds=failed)
    rare = _rare_failures(c, failed) if failed and c.manifest.players == 1 else None
    if rare is not None:
        return rare
    hidden = _answer_not_determined(c) if c.manifest.single_turn else None
    if hidden is not None:
        return hidden
    drift = _drift_on_used_instance(c)
    if drift is not None:
        return drift
    note = f"; fails on seed(s) {', '.join(map(str, failed))}" if failed else ""
    return ok("reference", f"the reference solution {what} {n - len(failed)} of {n} seeds{note}", rate=rate,
              failing_seeds=failed)


MORE_SEEDS = 150
"""Seeds a one-player reference plays beyond the first ones where it failed on some of them: a task unsolvable on a
few percent of its draws (a start the game cannot win, a constraint that rarely conflicts) shows on the first seeds
as one failure, within the allowance; on this many more it shows as a rate."""
MORE_SEEDS_SHARE = 0.5
"""The share of the stage's time left that the extra seeds may use; the failure rate is judged on those played."""


def _more_seeds(c: Candidate) -> tuple[list[int], int]:
    """The reference played on :data:`MORE_SEEDS` seeds more (the screening seeds), within
    :data:`MORE_SEEDS_SHARE` of the time the stage has left: the seeds it failed on and how many it played. The
    episodes are not kept (the other stages read the first seeds only)."""
    stop = time.monotonic() + MORE_SEEDS_SHARE * max(0.0, c.clock.deadline.remaining())
    failed, played = [], 0
    for seed in c.clock.items(screening_seeds(MORE_SEEDS), "more reference seeds"):
        if time.monotonic() > stop:
            break
        episode = c.run(seed, reference_policy)
        if episode.error is not None:
            break  # a seed that breaks the environment is for the other stages to report (and is not counted)
        played += 1
        if not episode.success:
            failed.append(seed)
    return failed, played


def _rare_failures(c: Candidate, failed: list[int]) -> StageResult | None:
    """Where the reference failed on some of the first seeds yet within ``reference_min_success``: its failures on
    those and :func:`_more_seeds` together must not be confidently more than the allowance (the one-sided 95% Wilson
    lower bound of the failure rate above ``1 - reference_min_success``)."""
    more, played = _more_seeds(c)
    n, lost = len(c.reference_episodes) + played, len(failed) + len(more)
    if not too_often(lost, n, 1 - c.config.reference_min_success):
        return None
    shown = ", ".join(map(str, (failed + more)[:12])) + (" ..." if lost > 12 else "")
    return fail("reference", f"the reference solution fails on {lost} of {n} seeds ({lost / n:.1%}; "
                f"{len(failed)} of the first {len(c.reference_episodes)}, {len(more)} of {played} more): seeds "
                f"{shown}; at most {1 - c.config.reference_min_success:.0%} may fail",
                ["the task is unsolvable on a few percent of its draws (a start that cannot be won, a rare "
                 "conflict between drawn values)", "reference_action misses a case that some draws reach"],
                ["draw only solvable tasks in reset (check the draw with the same rule the reference follows)",
                 "make reference_action handle every case the draws reach"], rate=1 - lost / n, failing_seeds=failed + more)


def _refused_move(c: Candidate) -> StageResult | None:
    """Games: the reference, playing every seat, never makes a move the game refuses (``format_error`` set or
    ``action_is_valid`` False): a strategy that plays illegal moves forfeits or stalls instead of showing the game."""
    for e in c.reference_episodes:
        for i, info in enumerate(e.infos):
            if info.get("format_error") is not None or info.get("action_is_valid") is False:
                return fail("reference", f"seed {e.seed}: the reference's move {e.actions[i][:60]!r} at turn {i + 1} "
                            f"is refused by the game ({str(info.get('format_error') or 'action_is_valid is False')[:80]})",
                            ["reference_action misses a case of the strategy (a move off the board, a count larger "
                             "than the heap)", "the game's legality check rejects legal moves"],
                            ["make reference_action return one of the legal moves in every position (the moves "
                             "info['legal_moves'] lists, if it lists them)"], seed=e.seed, turn=i + 1)
    return None


def _answer_not_determined(c: Candidate) -> StageResult | None:
    """One observation, one answer: two seeds that show the same observation must accept the same answer (else the
    answer depends on something the agent never sees)."""
    by_obs: dict[str, Episode] = {}
    for episode in c.reference_episodes:
        if not episode.success:
            continue
        other = by_obs.setdefault(episode.reset_obs, episode)
        if other is episode or other.actions == episode.actions:
            continue
        check = labelled(c.run(episode.seed, replaying(other.actions)), "another seed's answer")
        if not check.success:
            return fail("reference", f"seeds {other.seed} and {episode.seed} show the same observation "
                        f"({other.reset_obs[:100]!r}) but need different answers ({other.actions[-1][:40]!r} vs "
                        f"{episode.actions[-1][:40]!r}): the answer depends on something the agent never sees",
                        ["the task hides a quantity the answer depends on", "the reference reads internal state "
                         "the observation does not show"],
                        ["show every quantity the answer depends on"], seeds=[other.seed, episode.seed])
    return None


def _drift_on_used_instance(c: Candidate) -> StageResult | None:
    """The reference episodes of later seeds were played on an instance that had played many episodes before; two
    of them replayed on a fresh instance must be the same (state leaking from one episode into the next shows on
    some seeds only)."""
    checked = {e.seed for e in c.reference_episodes[: c.config.determinism_seeds]}
    later = [e for e in c.reference_episodes if e.seed not in checked and e.error is None][-2:]
    for episode in later:
        fresh = c.run(episode.seed, reference_policy, fresh=True)
        where = first_difference(episode, fresh)
        if where:
            return fail("reference", f"seed {episode.seed}: the reference episode played after other episodes on "
                        f"the same instance differs from the one on a fresh instance ({where})",
                        ["state carried over from earlier episodes", "state kept at module level"],
                        ["reset every attribute in reset; keep state on self"])
    return None
