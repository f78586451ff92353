"""Every seed SPADE derives from another, by name: one derivation, so no two parts of a run share a stream by accident.

A seed is derived from its parent seed and a label path (``derive(run_seed, "designer", iteration)``) by seeding
:class:`random.Random` with the joined text (SHA-512 of the string: the same in every process and Python version,
unaffected by ``PYTHONHASHSEED``) and taking 62 bits. Different labels give unrelated streams; the same labels give
the same seed, so a resumed run samples exactly what an uninterrupted one would.
"""

from __future__ import annotations

import random

SEED_BITS = 62
RUN_SEED_BITS = 31
"""A self-play run's per-iteration seeds stay below 2**31: environments, NumPy's legacy seeding and code that does
arithmetic on a seed all accept them."""


def derive(seed: int, *labels: str | int) -> int:
    """The seed of the part named ``labels`` of something seeded with ``seed`` (62 bits)."""
    return random.Random(":".join([str(seed), *(str(label) for label in labels)])).getrandbits(SEED_BITS)


# -- splitting one seeded batch over several engines and rounds -------------------------------------------------------
def share_seed(seed: int, index: int) -> int:
    """Share ``index`` of a batch (a data-parallel rank, a Ray actor, a request): share 0 keeps ``seed``."""
    return seed if index == 0 else derive(seed, f"rank{index}")


def round_seed(seed: int, round_index: int) -> int:
    """The sampling seed of round ``round_index`` of a multi-turn batch seeded with ``seed``."""
    return derive(seed, round_index)


def runner_call_seed(seed: int, call_index: int) -> int:
    """The base seed of an episode runner's ``call_index``-th ``run`` when the caller passes none."""
    return derive(seed, "run", call_index)


# -- a self-play run: one seed (``SelfPlayConfig.seed``) for everything -----------------------------------------------
def designer_seed(run_seed: int, iteration: int) -> int:
    """The designer's seed in ``iteration``: grounding documents, topics and sampling of its candidates."""
    return derive(run_seed, "designer", iteration) % 2**RUN_SEED_BITS


def replay_seed(run_seed: int, iteration: int) -> int:
    """Which pool environments are replayed to the agent in ``iteration``."""
    return derive(run_seed, "replay", iteration) % 2**RUN_SEED_BITS


def episode_seeds(run_seed: int, iteration: int, count: int) -> list[int]:
    """The environment reset seeds of ``iteration``: each is played once hinted and once not (paired regret)."""
    return [derive(run_seed, "episodes", iteration, k) % 2**RUN_SEED_BITS for k in range(count)]


def rollout_seed(run_seed: int, iteration: int) -> int:
    """The agent's sampling seed in ``iteration``."""
    return derive(run_seed, "rollouts", iteration) % 2**RUN_SEED_BITS


def engine_seed(run_seed: int, rank: int) -> int:
    """The seed a sampling engine (vLLM) of data-parallel rank or generator actor ``rank`` starts with."""
    return share_seed(run_seed, rank)


# -- validating one candidate environment -----------------------------------------------------------------------------
def probe_seed(seed: int, probe: str) -> int:
    """The seed of probe episode ``probe`` played on a used instance before the reference episode of ``seed`` replays."""
    return derive(seed, "probe", probe) % 2**RUN_SEED_BITS


def screening_seeds(count: int) -> list[int]:
    """The seeds adversaries and baselines play after the candidate's own: the same for every candidate."""
    return [derive(0, "screening", k) % 2**RUN_SEED_BITS for k in range(count)]


# -- the small world (spade_core.smallworld): plain integer streams, kept so that its published figures reproduce --
SMALL_WORLD_HELD_OUT_BASE = 1_000_000
"""The small world's held-out reset seeds start here; its training seeds stay far below."""


def small_world_designer_seed(run_seed: int, iteration: int) -> int:
    """The small-world designer's sampling seed in ``iteration``."""
    return run_seed * 7919 + iteration


def small_world_edit_seed(run_seed: int, iteration: int) -> int:
    """The seed of the designer's edits in ``iteration`` (which samples, which knobs: ``WorldConfig.edit_share``)."""
    return run_seed * 7927 + iteration


def small_world_episode_seed(run_seed: int, iteration: int, index: int) -> int:
    """The reset seed of the ``index``-th (design slot x K + k) episode pair of a small-world iteration."""
    return (run_seed * 1009 + iteration) * 10_007 + index


def small_world_rollout_seed(run_seed: int, iteration: int) -> int:
    """The small-world agent's sampling seed in ``iteration``."""
    return run_seed * 31 + iteration


def small_world_held_out_seeds(count: int) -> list[int]:
    """The small world's held-out reset seeds (the same for every arm and run seed)."""
    return [SMALL_WORLD_HELD_OUT_BASE + k for k in range(count)]
