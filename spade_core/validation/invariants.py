"""Two invariants of the reference and the reward that every sound task keeps.

*Invariance* (``invariance`` stage): a task whose reference plays the same actions on (nearly) every seed while
the observations differ does not depend on its text; the constant is the answer, whatever constant it is. It holds
for value answers only: for a program (a fixed specification whose hidden tests vary by seed) one general solution
passing every seed is the point of the task, so the stage does not apply to ``"program"`` answer kinds.

*Reward rule* (``reward_rule`` stage), stated once here and in every message: success pays a positive reward at the
top of the declared range, and no policy that does not succeed earns more than ``nonsolving_max_share`` of what the
reference earns by solving the same seed (partial credit for progress stays possible below that). The policies
measured are every episode validation has played plus ones built for it: the words pass/skip/resign/give up/quit
every turn, every reference action played twice, the reference's steps with a wrong answer in its last one's form
(every number one higher; a program's functions returning 0) played every turn after them (near misses that each pay closeness credit add up), the reference's steps
before its last one repeated to the end (every tool call repeated, never submitting), and in a game that lists its legal moves, random legal players (the
long games, draws and slow losses that pay for surviving when non-final moves are paid). Partial credit the reference itself earns before its last step is
allowed to a failing policy too (progress), but repeating steps must not add to it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from spade_core.contract.env import LEGAL_MOVES_KEY
from spade_core.seeding import screening_seeds
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode, Policy, play, reference_policy
from spade_core.validation.mutations import wrong_answer
from spade_core.validation.replay import answer_template, labelled, random_legal_games, replaying
from spade_core.validation.report import StageResult, fail_rule, ok


def invariance_rule(share: float) -> str:
    return f"no one reference action sequence on {share:.0%} of solved seeds with different observations"


INVARIANCE_MIN_SEEDS = 16
"""Solved seeds the invariance check judges at least: a smaller sample whose references agree is widened with more
seeds first (a family of three programming problems drew the same one on six seeds in a row)."""

GIVING_UP = ("pass", "skip", "resign", "give up", "quit", "I don't know")
"""Words a policy that does not try plays every turn."""


def reward_rule(share: float) -> str:
    return (f"success pays the top of reward_range (positive); not succeeding earns at most {share:.0%} of solving the "
            f"same seed, or the reference's credit before its last step if more (a repeated step earns nothing)")


# -- invariance -------------------------------------------------------------------------------------------------
def check_invariance(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "invariance"
    rule = invariance_rule(c.config.invariance_min_share)
    if c.manifest.players != 1:
        return ok(stage, "two-player game: the reference plays every seat (not an answer)")
    solved = [e for e in c.reference_episodes if e.success and e.error is None]
    if len(solved) < 2:
        return ok(stage, "fewer than two solved seeds")
    counts = Counter(tuple(e.actions) for e in solved)
    actions, count = counts.most_common(1)[0]
    if count >= c.config.invariance_min_share * len(solved) and len(solved) < INVARIANCE_MIN_SEEDS:
        # a small sample (the designer loop validates on a few seeds) can share one answer by chance: widen it
        done = {e.seed for e in c.reference_episodes}
        for seed in [s for s in screening_seeds(INVARIANCE_MIN_SEEDS) if s not in done]:
            episode = labelled(c.run(seed, reference_policy), "reference")
            if episode.success and episode.error is None:
                solved.append(episode)
        counts = Counter(tuple(e.actions) for e in solved)
        actions, count = counts.most_common(1)[0]
    same = [e for e in solved if tuple(e.actions) == actions]
    views = {(e.reset_obs, *e.observations) for e in same}
    if len(views) >= 2 and count >= c.config.invariance_min_share * len(solved):
        shown = " -> ".join(repr(a[:40]) for a in actions[:4]) + (" ..." if len(actions) > 4 else "")
        return fail_rule(stage, f"the reference plays the same actions ({shown}) on {count} of {len(solved)} seeds "
                         f"while those seeds show {len(views)} different observations (e.g. seeds {same[0].seed} and "
                         f"{same[1].seed}): the task does not depend on its text, the constant is the answer",
                         ["the answer is fixed and the seed changes only the wording or decoration",
                          "the verifier checks something that does not vary with the task"],
                         ["make the answer a function of the values reset draws and shows"], rule=rule)
    return ok(stage, f"the reference's most common action sequence occurs on {count} of {len(solved)} seeds")


# -- reward rule ------------------------------------------------------------------------------------------------
def _cycling(actions: list[str]) -> Policy:
    """Plays ``actions`` over and over."""

    def policy(env: Any, obs: str, info: dict[str, Any]) -> str:
        return actions[env.turn % len(actions)]

    return policy


def _extra_episodes(c: Candidate, reference: Episode) -> list[Episode]:
    """The reward rule's own policies on one solved seed."""
    assert c.manifest is not None
    template = answer_template(c)
    cap = max(8, 3 * len(reference.steps))
    whole = c.manifest.max_turns
    out = []
    words = [template.render(w) for w in GIVING_UP] if not template.raw else []
    for word in c.clock.items(dict.fromkeys([*GIVING_UP, *words]), "giving-up words"):
        out.append(labelled(play(c.env(), reference.seed, replaying([word]), max_steps=cap),
                             f"playing {word!r} every turn"))
    acts = reference.actions
    doubled = [a for a in acts for _ in range(2)]
    out.append(labelled(play(c.env(), reference.seed, replaying(doubled), max_steps=len(doubled)),
                         "every reference action played twice"))
    wrong = wrong_answer(acts[-1])
    if wrong is not None:
        out.append(labelled(play(c.env(), reference.seed, replaying([*acts[:-1], wrong]), max_steps=min(whole, 60)),
                            f"the reference's steps, then a wrong answer in its form ({wrong[:40]!r}) every turn"))
    if len(acts) >= 2:
        out.append(labelled(play(c.env(), reference.seed, _cycling(acts[:-1]), max_steps=whole),
                             "the reference's steps before its last one repeated (never finishing)"))
        out.append(labelled(play(c.env(), reference.seed, replaying([a for a in acts[:-1] for _ in range(3)]),
                                  max_steps=cap), "each of the reference's steps before its last one three times"))
    return out


def check_reward_rule(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "reward_rule"
    share = c.config.nonsolving_max_share
    rule = reward_rule(share)
    if c.manifest.players != 1:
        return ok(stage, "two-player game: rewards are per seat (the reward_range stage checks them)")
    low, high = c.manifest.reward_range
    solved = {e.seed: e for e in c.reference_episodes if e.success and e.error is None}
    if not solved:
        return ok(stage, "no solved seed to compare with")
    def paid(e: Episode) -> float:  # the success step's reward, or the episode's total when steps pay shares
        return max(max(s[2] for s, i in zip(e.steps, e.infos, strict=False) if i.get("success")), e.total_reward)

    worst_paid = min(solved.values(), key=paid)
    bottom = paid(worst_paid)
    if bottom <= 0 or bottom < high - 0.05 * (high - low) - 1e-9:
        return fail_rule(stage, f"seed {worst_paid.seed}: solving pays {bottom:g} (the success step and the episode's "
                         f"total); the declared range is [{low:g}, {high:g}]",
                         ["success pays nothing or less than the top of the range", "the declared range is wider than "
                          "what the environment pays"], ["pay the top of the declared range (e.g. 1.0) when "
                                                          "info['success'] is True"], rule=rule)
    first = next(iter(solved.values()))
    extra = _extra_episodes(c, first)
    c.all_episodes.extend(extra)
    if isinstance(first.reset_info.get(LEGAL_MOVES_KEY), list):  # recorded in c.all_episodes as they are played
        extra += random_legal_games(c, first.seed)
    worst: tuple[float, Episode, float] | None = None
    for episode in [*c.all_episodes]:
        if episode.success or episode.seed not in solved or not episode.steps:
            continue
        earned = solved[episode.seed].total_reward
        if earned <= 0:
            continue
        progress = sum(solved[episode.seed].rewards[:-1])  # credit the reference itself earns before finishing
        ratio = episode.total_reward / earned
        if ratio > share + 1e-9 and episode.total_reward > progress + 1e-9 and (worst is None or ratio > worst[0]):
            worst = (ratio, episode, earned)
    if worst is not None:
        ratio, episode, earned = worst
        who = f" ({episode.label})" if episode.label else ""
        acts = ", ".join(repr(a[:30]) for a in episode.actions[:3]) + (" ..." if len(episode.actions) > 3 else "")
        return fail_rule(stage, f"seed {episode.seed}: a policy that does not succeed{who} earns "
                         f"{episode.total_reward:g} in {len(episode.steps)} steps ({acts}), {ratio:.0%} of the "
                         f"{earned:g} that solving earns (at most {share:.0%} allowed)",
                         ["rewards paid for giving up, passing or for every (repeated) action",
                          "partial credit that adds up past solving"],
                         ["pay progress at most a bounded share; pay nothing for passing or repeating",
                          "make solving the best way to earn reward"], rule=rule, ratio=round(ratio, 3))
    return ok(stage, f"success pays {bottom:g} (top of [{low:g}, {high:g}]); no failing episode earns more than "
              f"{share:.0%} of solving ({len(extra)} giving-up, repeating and random legal games added)")

