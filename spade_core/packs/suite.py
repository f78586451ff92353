"""``spade eval --suite pack:PACK``: a pack as a frozen, held-out pool of environments.

The pack is imported into the registry store through the local gate first (environments already stored are
reused as duplicates, so a second evaluation validates nothing); every accepted environment of the pack then
becomes ``seeds`` tasks, made with ``gymnasium.make`` (designer code: in the sandbox).
"""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym

from spade_core.evaluation.errors import EvaluationError
from spade_core.evaluation.suite import EvalTask, Suite
from spade_core.gym_bridge import open_store, register_store, sync_seed_environments
from spade_core.packs.importing import import_pack
from spade_core.packs.reading import open_pack

DEFAULT_SEEDS = 3
SYSTEM_PROMPT = "You are acting in an environment. {description}"


def pack_suite(argument: str, *, store: str | None = None, seeds: int = DEFAULT_SEEDS, workers: int = 2) -> Suite:
    """The suite of one pack; raises when none of its environments passes the local gate."""
    pack = open_pack(argument)
    opened = open_store(store)
    sync_seed_environments(opened)
    report = import_pack(pack, opened, workers=workers)
    register_store(store, sync_seeds=False)
    ids = report.usable_ids
    if not ids:
        raise EvaluationError(f"no environment of pack {pack.header.name!r} passed the local gate "
                              f"({report.count('rejected')} rejected); see `spade import {argument}`")
    tasks = tuple(EvalTask(f"{env_id}@{seed}", functools.partial(gym.make, env_id), seed=seed,
                           metadata={"pack": pack.header.name})
                  for env_id in ids for seed in range(seeds))
    return Suite(f"pack:{pack.header.name}", f"environment pack {pack.header.name} ({len(ids)} environments x "
                 f"{seeds} seeds)", tasks, SYSTEM_PROMPT, max_new_tokens=256, tags=("pack",))


def load_pack_suite(*, argument: str | None = None, limit: int | None = None, **options: Any) -> Suite:
    """The ``pack`` suite's loader (``EvalSuiteSpec.loader``)."""
    if not argument:
        raise EvaluationError("the pack suite needs a pack: --suite pack:<folder, .tar.gz, .parquet or installed name>")
    return pack_suite(argument, **{k: v for k, v in options.items() if k in ("store", "seeds", "workers")})
