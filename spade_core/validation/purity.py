"""Purity: reading the privileged hint or the reference solution changes nothing.

Validation reads ``privileged_hint()`` and ``reference_action()``; training never calls ``reference_action()`` and
reads the hint once per step or not at all. A task that is easy only while they are called (a reference that moves
the environment's comparison point, a hint that changes from its second reading) is not the task the agent trains
on. The property every good environment has: the whole trajectory is identical whether each is called 0, 1 or 3
times before every step, and each returns the same text every time it is read within a step. Checked on the
reference's own actions and on a probe's, so a policy that never reads either sees the same environment.
"""

from __future__ import annotations

from spade_core.contract.env import SpadeEnv
from spade_core.validation.adversaries import PROBE_STEPS, enumeration
from spade_core.validation.candidate import Candidate
from spade_core.validation.episodes import Episode, begin, first_difference, play, take_step
from spade_core.validation.replay import answer_template
from spade_core.validation.report import StageResult, fail_rule, ok

CALLS = (0, 1, 3)
"""How many times the hint and the reference are read before every step."""

RULE = ("privileged_hint() and reference_action() only read state: 0, 1 or 3 calls per step change nothing, "
        "each the same text")


class Unstable(Exception):
    """A read returned different texts within one step."""


def play_reading(env: SpadeEnv, seed: int, actions: list[str] | None, calls: int, max_steps: int) -> Episode:
    """Play ``actions`` (or, when None, the reference's own next action each step) reading the hint and the
    reference ``calls`` times before every step; raises :class:`Unstable` when a read changes within a step."""
    episode = Episode(seed=seed, label=f"{calls} reads per step")
    started = begin(env, episode)
    if started is None:
        return episode
    obs, _ = started
    while len(episode.steps) < max_steps and (actions is None or len(episode.steps) < len(actions)):
        turn = len(episode.steps)
        try:
            hints = [env.privileged_hint() for _ in range(calls)]
            references = [env.reference_action() for _ in range(calls)]
        except Exception as exc:  # env code may fail in a read
            episode.error = exc
            return episode
        for what, texts in (("privileged_hint()", hints), ("reference_action()", references)):
            if len(set(texts)) > 1:
                raise Unstable(f"seed {seed}, turn {turn + 1}: {what} returned {len(set(texts))} different texts "
                               f"in {calls} calls ({texts[0][:60]!r} then {texts[-1][:60]!r})")
        action = actions[turn] if actions is not None else references[0]
        episode.hints.extend(hints[:1])
        obs, _, over = take_step(env, episode, obs, action)
        if over:
            break
    return episode


def check_purity(c: Candidate) -> StageResult:
    assert c.manifest is not None
    stage = "purity"
    causes = ["privileged_hint() or reference_action() changes state (a counter, the secret, a comparison point, "
              "the rng)", "the hint or reference depends on how often it was called"]
    fix = ["make privileged_hint() and reference_action() read state only; compute the answer in reset"]
    limit = c.manifest.max_turns
    compared = 0
    for index, seed in enumerate(c.clock.items(c.config.seeds[: max(1, c.config.determinism_seeds)], "seeds")):
        try:
            reference = play_reading(c.env(), seed, None, 1, limit)
            if reference.error is not None:
                continue  # the reference stage reports a failing reference
            runs = [play_reading(c.env(), seed, reference.actions, calls, limit) for calls in CALLS
                    if calls != 1 and (index == 0 or calls == 0)]
            probes = []
            if index == 0:
                first = play(c.env(), seed, enumeration(answer_template(c), limit).make(),
                             max_steps=max(PROBE_STEPS, min(limit, 8)))
                first.label = "0 reads per step"
                probes = [first, play_reading(c.env(), seed, first.actions, CALLS[-1], limit)]
        except Unstable as exc:
            return fail_rule(stage, str(exc), causes, fix, rule=RULE)
        for run in runs:
            where = first_difference(reference, run)
            if where:
                return fail_rule(stage, f"seed {seed}: replaying the reference's own actions with privileged_hint() "
                                 f"and reference_action() read {run.label} gives another episode than with 1 read "
                                 f"({where}); "
                                 f"the reference {'succeeds' if reference.success else 'fails'} with 1 read and "
                                 f"{'succeeds' if run.success else 'fails'} with {run.label}", causes, fix, rule=RULE)
        for run in probes[1:]:
            where = first_difference(probes[0], run)
            if where:
                return fail_rule(stage, f"seed {seed}: a probe episode with the hint and reference read {run.label} "
                                 f"differs from the same actions with none read ({where})", causes, fix, rule=RULE)
        compared += 1 + len(runs) + len(probes)
    return ok(stage, f"{compared} reference and probe episodes identical with 0, 1 and 3 reads of the hint and the "
              "reference per step; each read the same within a step")
