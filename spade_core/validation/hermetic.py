"""Hermetic episodes: an instance carries nothing from one episode to the next.

Training reuses an instance for many episodes (``reset`` starts each one), so what the gate saw is what training gets
only when reuse is equivalent to a fresh instance. ``determinism`` already replays seeds after failed episodes; this
adds the two carry-overs those cannot show: state a *solved* episode leaves behind (the verifier keeps the previous
answer and accepts it again), and state that builds up over many episodes (a reset counter that changes the rules
after a few hundred). The property every good environment has: seed ``s`` plays the same on a fresh instance as on
an instance that just solved another seed, and as on one reset :data:`RESETS` times before, for the reference, a
wrong probe, and the previous seed's answer replayed.

An instance built fresh for each episode costs about 5 ms more than a reset in the sandbox (measured on nim: 7.6 ms
for a new instance, reset and step; 2.2 ms per reset on the same worker), so the gate proves reuse instead.
"""

from __future__ import annotations

from spade_core.seeding import probe_seed
from spade_core.validation.adversaries import enumeration
from spade_core.validation.episodes import Episode, Policy, first_difference, play, reference_policy
from spade_core.validation.report import StageResult
from spade_core.validation.stages import Candidate, _replaying, _template, describe_error, fail

RESETS = 500
"""Resets a reused instance goes through before a seed is replayed on it (2.2 ms each in the sandbox: about 1 s)."""

_CAUSES = ["state carried from one episode to the next (a counter of resets or episodes, the previous answer, a "
           "cache that changes the rules)", "state kept at module level or in class attributes"]
_FIX = ["reset every attribute in reset; never count episodes or keep the last answer across resets"]


def _fresh(c: Candidate, seed: int, policy: Policy) -> Episode:
    return c.run(seed, policy, fresh=True)


def carried_over(c: Candidate) -> StageResult | None:
    """None when reuse is equivalent; else a failed ``determinism`` result naming the seed and the difference."""
    assert c.manifest is not None
    seeds = list(dict.fromkeys(c.config.seeds))[:2]
    if len(seeds) < 2:
        return None
    first, second = seeds
    turns = c.manifest.max_turns
    used = c.new_env()
    try:
        solved = play(used, first, reference_policy)
        if solved.error is not None or not solved.actions:
            return None  # the reference stage reports a failing reference
        answer = _replaying(solved.actions)
        replayed = play(used, second, answer)
        where = first_difference(_fresh(c, second, _replaying(solved.actions)), replayed)
        if where:
            return fail("determinism", f"seed {second}: replaying seed {first}'s answer right after seed {first} "
                        f"was played on the same instance is not the same as on a fresh instance ({where})",
                        _CAUSES, _FIX, carried="previous episode")
        try:
            for index in range(RESETS):
                used.reset(seed=probe_seed(index, "resets"))
        except Exception as exc:  # env code failing on a reset is reported, never raised
            observed, causes, fix = describe_error(exc)
            return fail("determinism", f"resetting one instance {RESETS} times: {observed}", causes, fix)
        for label, policy in (("reference", reference_policy), ("probe", enumeration(_template(c), turns).make())):
            after = play(used, second, policy)
            where = first_difference(_fresh(c, second, policy if label == "reference" else
                                            enumeration(_template(c), turns).make()), after)
            if where:
                return fail("determinism", f"seed {second}: the {label} episode after {RESETS} resets of the same "
                            f"instance is not the same as on a fresh instance ({where})", _CAUSES, _FIX,
                            carried=f"{RESETS} resets")
    finally:
        used.close()
    return None
