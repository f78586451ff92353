"""An episode's answer is fixed by its seed: the ``fixed_answer`` stage (single-player tasks).

Two properties, both about what decides the answer:

- *It does not move within an episode.* Where the reference answers in one step and the task allows more tries, a
  wrong try leaves the answer the reference gives unchanged. A secret re-drawn after every wrong guess can be won
  only by a reader of the current secret (the reference), never from what the observations said. Where the
  reference takes several steps (questions, then the answer; value tasks and games), its first step played twice
  leaves its answer unchanged when it does the same work after it: a question asked again ("clue 3") that re-draws
  the secret makes the answers collected so far describe numbers that no longer exist.
- *It does not carry over between episodes.* On one instance, the previous episode's answer (another seed's, with
  a different reference answer) does not solve the next episode: a verifier that keeps earlier answers accepts
  what it never checked against this task.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from spade_core.plugins.domains import answer_kind
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode, play
from spade_core.validation.mutations import wrong_answer
from spade_core.validation.replay import answer_template, labelled, replaying, too_often
from spade_core.validation.report import StageResult, fail_rule, ok

RULE = "a wrong try or a question asked again never changes the answer; an earlier episode's answer never solves the next"

SEEDS = 8
"""Solved seeds each property is tried on."""
MOVED_MAX_SHARE = 0.5
"""The answer may move after a wrong try on at most this share of seeds (a wrong try that legitimately changes the
task, a new round, is rare in one-step tasks)."""
WRONG_TRIES = ("0", "1", "7", "42", "A", "none")
"""Wrong tries, in the reference's answer format (then a wrong answer in its form): the first the task
takes as a try is played."""
REPEAT_KINDS = ("numeric", "label")
"""Answer kinds whose multi-step references are checked with a repeated first step: value answers and game moves,
where a question asked twice is still a question (a tool task's first call may be a write that legitimately changes
what the final report says)."""
MAX_TRIES = 4
"""Wrong tries attempted per seed at most (each on a fresh instance)."""


def _taken_as_a_try(result: tuple[Any, ...]) -> bool:
    """Whether a step's result leaves the episode going with the action taken: not ended, refused as malformed, or
    failed in the sandbox."""
    _, _, terminated, truncated, info = result
    return not (terminated or truncated or info.get("sandbox_error") is not None or info.get("format_error"))


def wrong_tries(c: Candidate, answer: str) -> list[str]:
    """Wrong tries to play before asking the reference again: the first fixed value in the reference's answer
    format, a wrong answer in its form (mutations.wrong_answer), the other fixed values; never the answer."""
    template = answer_template(c)
    fixed = [t for t in dict.fromkeys(template.render(t) for t in WRONG_TRIES) if t != answer]
    tries = [*fixed[:1], wrong_answer(answer) or "", *fixed[1:]]
    return [t for t in dict.fromkeys(tries) if t and t != answer][:MAX_TRIES]


def answer_moves(c: Candidate, reference: Episode) -> bool | None:
    """Whether the reference's answer changes after a wrong try, or after that try made twice (a secret moved
    every second try), on a fresh instance: the first wrong try that the task takes as a try (no ``format_error``,
    the episode goes on) decides; None when none does, so the question does not arise."""
    for wrong in wrong_tries(c, reference.actions[0]):
        env = c.new_env()
        try:
            env.reset(seed=reference.seed)
            before = env.reference_action()
            if wrong == before:
                continue
            for attempt in range(2):
                if not _taken_as_a_try(env.step(wrong)):
                    if attempt == 0:
                        break
                    return False
                if env.reference_action() != before:
                    return True
            else:
                return False
        finally:
            env.close()
    return None


def answer_after_repeat(c: Candidate, reference: Episode) -> bool | None:
    """Whether the reference's last action changes when its first step is played twice on a fresh instance and the
    reference then plays on doing the same work (the same steps between): a question asked again ("clue 3", "ask
    0", "probe 2 5") must not move the answer. None when the repeat ends the episode, is refused, or the reference's
    work after it differs (a move repeated changes a board: the path, not the answer, differs)."""
    acts = reference.actions
    env = c.new_env()
    try:
        env.reset(seed=reference.seed)
        for _ in range(2):
            if not _taken_as_a_try(env.step(acts[0])):
                return None
        played = []
        for _ in range(len(acts) + 2):
            action = env.reference_action()
            played.append(action)
            _, _, terminated, truncated, info = env.step(action)
            if info.get("sandbox_error") is not None:
                return None
            if terminated or truncated:
                break
        else:
            return None
    finally:
        env.close()
    if played[:-1] != acts[1:-1]:
        return None
    return played[-1] != acts[-1]


def carried_over(c: Candidate, earlier: Episode, later: Episode) -> Episode:
    """On a fresh instance: ``earlier``'s reference actions on its own seed, then on ``later``'s seed."""
    env = c.new_env()
    try:
        play(env, earlier.seed, replaying(earlier.actions), max_steps=len(earlier.actions))
        episode = play(env, later.seed, replaying(earlier.actions), max_steps=len(earlier.actions))
    finally:
        env.close()
    c.all_episodes.append(episode)
    return labelled(episode, f"seed {earlier.seed}'s answer, right after seed {earlier.seed}'s episode")


def check_fixed_answer(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "fixed_answer"
    if c.manifest.players != 1:
        return ok(stage, "two-player game: the board decides every move")
    solved = [e for e in c.reference_episodes if e.success and e.error is None and e.steps][:SEEDS]
    one_step = [e for e in solved if len(e.steps) == 1]
    moved, tried = [], 0
    what = "one or two wrong tries"
    judged: list[tuple[Episode, bool | None]] = []
    if c.manifest.max_turns > 1 and len(one_step) == len(solved):
        judged = [(reference, answer_moves(c, reference)) for reference in one_step]
    elif answer_kind(c.manifest.domain) in REPEAT_KINDS:
        what = "its first step played twice"
        judged = [(reference, answer_after_repeat(c, reference)) for reference in solved if len(reference.steps) >= 2]
    for reference, result in judged:
        if result is not None:
            tried += 1
            if result:
                moved.append(reference.seed)
    if too_often(len(moved), tried, MOVED_MAX_SHARE):
        return fail_rule(stage, f"after {what} the reference's answer changes on {len(moved)} of {tried} "
                         f"seeds (seeds {', '.join(map(str, moved[:5]))}): the answer moves within an episode, so "
                         "only a reader of the current secret can win",
                         ["the secret is drawn again after a wrong guess or a question", "step() changes what the answer is"],
                         ["draw the answer once in reset and keep it for the whole episode"], rule=RULE,
                         moved=f"{len(moved)}/{tried}")
    pairs = [(a, b) for a, b in pairwise(solved) if a.actions != b.actions]
    stale = [(a, b) for a, b in pairs if carried_over(c, a, b).success]
    if too_often(len(stale), len(pairs), c.config.swap_max_share):
        a, b = stale[0]
        return fail_rule(stage, f"seed {a.seed}'s answer ({a.actions[-1][:60]!r}) solves seed {b.seed} when seed "
                         f"{b.seed}'s episode follows seed {a.seed}'s on the same instance, though seed {b.seed}'s "
                         f"reference answers {b.actions[-1][:60]!r}; {len(stale)} of {len(pairs)} such pairs",
                         ["the verifier keeps answers of earlier episodes (a list or set that reset does not clear)"],
                         ["reset every attribute in reset(); check the answer against this episode's task only"],
                         rule=RULE, stale=f"{len(stale)}/{len(pairs)}")
    return ok(stage, f"the answer stayed after a wrong try on {tried - len(moved)} of {tried} seeds; an earlier "
              f"episode's answer solved {len(stale)} of {len(pairs)} later episodes on the same instance")
