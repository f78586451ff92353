"""SPADE environments as a verifiers 0.4 environment: ``load_environment()``.

Every rollout is one episode of a registry environment played through
:class:`~spade_core.adapters.session.EpisodeSession`: the first observation opens the conversation, each assistant
message is the learner's action, each reply is the next observation (the reference solver plays a game's other
seats), and the conversation ends when the episode does. The ``episode_return`` reward and the ``success`` metric are
what SPADE's episode runner records for the same seed and actions. verifiers runs the rollout and the scoring::

    from spade_core.adapters.verifiers_env import load_environment

    env = load_environment(["spade/TicTacToe-v1", "spade/InventoryRecount-v0"], seeds=range(8))
    # a verifiers Env: `vf-eval`, prime-rl or `env.run_slot(...)` roll it out against any OpenAI-compatible model

verifiers is imported only here, inside the function (it cannot share an environment with openenv 0.10: install it
with ``pip install "spade-rl[verifiers]"`` in an environment of its own); ``import spade_core`` never imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from spade_core.adapters.selection import selection

if TYPE_CHECKING:
    from verifiers.v1 import Env


def load_environment(env_ids: Sequence[str] | str | None = None, *, domain: str | None = None,
                     tags: Sequence[str] = (), seeds: Iterable[int] | None = None, hinted: bool = False,
                     hinted_twins: bool = False, **kwargs: Any) -> Env:
    """A verifiers multi-turn environment over registry ids, or every accepted environment of a ``domain`` / with
    ``tags``, one task per (environment, seed) (``seeds`` defaults to
    ``SpadeTasksetConfig.seeds``). ``hinted`` hints every episode; ``hinted_twins`` adds a hinted row
    beside each plain one (the regret pair). Other keyword arguments are verifiers' own ``EnvConfig`` fields (for
    example ``player={"max_turns": 30}``); an unknown id or an empty selection raises
    :class:`~spade_core.adapters.session.SessionError` here, before anything runs."""
    import verifiers.v1 as vf

    from spade_core.adapters.verifiers_taskset import TASKSET_ID

    chosen = selection(env_ids, domain=domain, tags=tags)
    chosen.resolve()  # an unknown id or an empty filter fails now, not at the first rollout
    taskset = {"id": TASKSET_ID, "env_ids": list(chosen.ids), "domain": domain, "tags": list(tags),
               "hinted": hinted, "hinted_twins": hinted_twins}
    if seeds is not None:  # None: the taskset's default seeds
        taskset["seeds"] = [int(seed) for seed in seeds]
    if "taskset" in kwargs:
        raise TypeError("load_environment() chooses the taskset itself: pass env_ids/domain/tags/seeds, not taskset")
    config = vf.resolve_env_config({**kwargs, "taskset": taskset})
    return vf.load_environment(config)
