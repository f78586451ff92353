"""Duplicates by what they do on the same seeds, whatever the code and the wording: the ``same_draws`` stage.

The ``novelty`` stage compares fingerprints (masked text, dynamics, code shape): a copy rewritten with new helper
functions and new names and reworded throughout escapes both the code-shape and the text rules. What such a copy
cannot change is what it does on each seed: the values it draws and shows (numbers, ids), the reference's
answers, the rewards and which actions succeed. The property: a candidate does not play like a stored environment on
the same seeds. For each stored environment whose dynamics agree (``NoveltyThresholds.dynamics`` or more), both are
played by their reference on :data:`SEEDS`; they are the same when on every seed the reference's actions carry the
same values, the rewards and successes are the same, and the values the observations show mostly agree
(:data:`VALUES_MIN_OVERLAP`; instructions reworded with other example values differ a little).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from spade_core import linear_re
from spade_core.contract.env import SpadeEnv
from spade_core.memory.behaviour import record_env_factory
from spade_core.validation.calibration import candidate_envs
from spade_core.validation.candidate import Candidate, NoveltyMemory
from spade_core.validation.episodes import Episode, play, reference_policy
from spade_core.validation.report import StageResult, Verdict, fail_rule, ok
from spade_registry.records import Record

RULE = "plays unlike stored environments on the same seeds, however rewritten"

SEEDS = (0, 1, 2, 3, 4, 5)
"""Seeds both environments play."""
NEAREST = 3
"""Stored environments with the closest dynamics compared."""
MAX_STEPS = 30
"""Reference steps played per seed at most."""
VALUES_MIN_OVERLAP = 0.8
"""Share of the shown values two environments must have in common (multiset overlap over all seeds)."""
MIN_VALUES = 3
"""Values per seed the observations must show at least for the comparison to say anything."""

_VALUE = linear_re.compile(r"[^\s,;:()\[\]{}'\"`]+")


@runtime_checkable
class StoredRecords(Protocol):
    """A novelty memory that can hand out the stored records it compares with (``BehaviourIndex`` does)."""

    @property
    def store(self) -> RecordGetter: ...


class RecordGetter(Protocol):
    def get(self, rid: int) -> Record: ...


@dataclass(frozen=True)
class Play:
    """What one environment does on one seed: the values its observations show, the values of the reference's
    actions, and each step's reward, ending and success."""

    shown: Counter
    actions: tuple[tuple[str, ...], ...]
    outcomes: tuple[tuple[float, bool, bool], ...]


def values(text: str) -> list[str]:
    """The literal values of a text: the tokens holding a digit (numbers, ids, times), punctuation trimmed (words
    change with the wording; drawn values do not)."""
    tokens = (token.strip(".!?-") for token in _VALUE.findall(text[:4000]))
    return [token for token in tokens if any(ch.isdigit() for ch in token)]


def action_values(action: str) -> tuple[str, ...]:
    """The values an action carries: a JSON call's leaf values (tool name included, keys not), else its words."""
    try:
        data = json.loads(action)
    except ValueError:
        return tuple(action.strip().lower().split())
    leaves: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        else:
            leaves.append(str(node))

    walk(data)
    return tuple(leaves)


def played(make_env: Callable[[], SpadeEnv]) -> list[Play]:
    env = make_env()
    out = []
    try:
        for seed in SEEDS:
            episode = play(env, seed, reference_policy, max_steps=MAX_STEPS)
            out.append(_summary(episode))
    finally:
        env.close()
    return out


def _summary(episode: Episode) -> Play:
    shown = Counter(values(episode.reset_obs))
    for step in episode.steps:
        shown.update(values(step[1]))
    return Play(shown, tuple(action_values(a) for a in episode.actions),
                tuple((round(s[2], 6), s[3], bool(i.get("success"))) for s, i in zip(episode.steps, episode.infos,
                                                                                      strict=False)))


def overlap(a: Counter, b: Counter) -> float:
    """Multiset overlap of two value counts (1.0: the same values as often)."""
    total = max(sum(a.values()), sum(b.values()))
    return sum((a & b).values()) / total if total else 0.0


def same_play(ours: list[Play], theirs: list[Play]) -> float | None:
    """The overlap of shown values when both play alike on every seed (same action values and outcomes), else None;
    None too when the observations show too few values to tell."""
    if len(ours) != len(theirs) or any(p.actions != q.actions or p.outcomes != q.outcomes
                                       for p, q in zip(ours, theirs, strict=True)):
        return None
    if any(sum(p.shown.values()) < MIN_VALUES for p in ours):
        return None
    mine, other = Counter(), Counter()
    for p, q in zip(ours, theirs, strict=True):
        mine.update(p.shown)
        other.update(q.shown)
    return overlap(mine, other)


def _by_dynamics(text: np.ndarray, dynamics: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """Ranks stored environments by their dynamics alone."""
    return dynamics


def check_same_draws(c: Candidate) -> StageResult:
    stage = "same_draws"
    memory: NoveltyMemory | None = c.memory
    if memory is None or not isinstance(memory, StoredRecords):
        return StageResult(stage, Verdict.SKIPPED, "no environment memory with stored records given, so the "
                           "candidate was not played beside stored environments")
    if c.fingerprint is None:
        return StageResult(stage, Verdict.SKIPPED, "no behavioural fingerprint (the behaviour stage did not run)")
    threshold = c.config.novelty.dynamics
    matches = [m for m in memory.nearest(c.fingerprint, NEAREST, score=_by_dynamics)
               if m.similarity.dynamics >= threshold]
    if not matches:
        return ok(stage, f"no stored environment with dynamics of {threshold:.2f} or more")
    ours = played(candidate_envs(c))  # on the Ray path the driver builds its own instances
    for match in matches:
        try:
            theirs = played(record_env_factory(memory.store.get(match.rid)))
        except Exception:  # a stored environment that cannot be played is compared by its fingerprint only
            continue
        shared = same_play(ours, theirs)
        if shared is not None and shared >= VALUES_MIN_OVERLAP:
            c.duplicate_of = match.ref
            return fail_rule(stage, f"plays like {match.ref} on seeds {SEEDS[0]}-{SEEDS[-1]}: the same reference "
                             f"actions ({' '.join(ours[0].actions[0])[:60]!r} on seed {SEEDS[0]}), rewards and "
                             f"successes, and {shared:.0%} of the values the observations show in common "
                             f"({match.similarity.describe()})",
                             ["the same task rewritten: new helper functions and names, reworded text, the same "
                              "draws and rules"],
                             ["write an environment that does something else: a different task, different rules "
                              "or feedback"], rule=RULE, duplicate_of=match.ref, shared=round(shared, 3))
    return ok(stage, f"{len(matches)} stored environments with close dynamics play differently on the same seeds")
