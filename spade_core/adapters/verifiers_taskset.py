"""The verifiers 0.4 plugin behind :func:`spade_core.adapters.verifiers_env.load_environment`.

verifiers finds a taskset by importing the module its id names (a bare module name: dotted ids are not resolved)
and taking the ``Taskset`` and ``Env`` subclasses in its ``__all__``. This module is that plugin: importing it
registers it under the bare name :data:`TASKSET_ID`, which is how verifiers' own loaders (``vf.load_environment``,
``vf.resolve_env_config``) find it in the process that called ``load_environment()``. It imports verifiers at the
top, so it is only imported where verifiers is installed (``pip install "spade-rl[verifiers]"``).

- :class:`SpadeTaskset`: one task per (environment, seed) row of a registry selection (ids, or a domain/tag filter);
  a row names its environment, seed and whether the episode is hinted, and nothing else.
- :class:`SpadeVerifiersEnv`: the multi-turn episode. The environment plays the user: the first observation opens
  the conversation, each assistant message is one learner action, each reply is the next observation (other seats
  of a game are played by the reference solver in between), and the exchange ends when the episode does.
- :class:`SpadeTask`: scoring through verifiers' own hooks: the ``episode_return`` reward and the ``success`` metric
  are the plain functions :func:`episode_return` and :func:`episode_success` of what the episode recorded, computed
  by :class:`~spade_core.adapters.session.EpisodeSession` exactly as SPADE's episode runner computes them.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import verifiers.v1 as vf
from pydantic import Field

from spade_core.adapters.selection import selection
from spade_core.adapters.session import EpisodeSession

TASKSET_ID = "spade_verifiers"
"""The verifiers taskset id of SPADE's registry environments (the module name verifiers imports for it)."""
OUTCOME_KEY = "spade_episode"
"""Where a trace's ``info`` keeps the episode's outcome (``total_reward``, ``success``, ``done``, ``turns``)."""
INSTRUCTIONS = ("You are acting in a text environment. Each message you receive is what you observe; reply with your "
                "next action only, exactly in the form the observation asks for. The episode continues until it ends.")


class SpadeTaskData(vf.TaskData):
    """One row: the registry environment, the seed its episode starts from, and whether the episode is hinted."""

    env_id: str
    seed: int
    hinted: bool = False


class SpadeTasksetConfig(vf.TasksetConfig):
    """Which rows load (``--env.taskset.*``): ``env_ids``, or a ``domain``/``tags`` filter on the registry store,
    times ``seeds``; ``hinted`` makes every episode hinted, ``hinted_twins`` adds a hinted row after each plain one
    (the same seed, so the regret pair starts from one state)."""

    env_ids: list[str] = Field(default_factory=list)
    domain: str | None = None
    tags: list[str] = Field(default_factory=list)
    seeds: list[int] = Field(default_factory=lambda: [0])
    hinted: bool = False
    hinted_twins: bool = False


def episode_outcome(trace: vf.Trace) -> dict[str, Any]:
    """The outcome :class:`SpadeVerifiersEnv` recorded on ``trace``, or a clear error when no episode ran."""
    outcome = trace.info.get(OUTCOME_KEY)
    if not isinstance(outcome, dict):
        raise ValueError(f"trace {trace.id} has no SPADE episode outcome in info[{OUTCOME_KEY!r}]: it was not played "
                         "by SpadeVerifiersEnv (pair the taskset with its own env, not --env.id)")
    return outcome


def episode_return(trace: vf.Trace) -> float:
    """The learner seat's episode return (what SPADE's episode runner records for the episode)."""
    return float(episode_outcome(trace)["total_reward"])


def episode_success(trace: vf.Trace) -> float:
    """1.0 when the learner solved the episode (won the game), else 0.0."""
    return 1.0 if episode_outcome(trace)["success"] else 0.0


class SpadeTask(vf.Task[SpadeTaskData, vf.State, vf.TaskConfig]):
    """A row's task; verifiers scores every trace with these hooks when the rollout closes."""

    @vf.reward
    async def episode_return(self, trace: vf.Trace) -> float:
        return episode_return(trace)

    @vf.metric
    async def success(self, trace: vf.Trace) -> float:
        return episode_success(trace)


class SpadeTaskset(vf.Taskset[SpadeTask, SpadeTasksetConfig]):
    """The (environment, seed[, hinted]) rows of a registry selection, in a stable order."""

    def load(self):
        config = self.config
        env_ids = selection(config.env_ids, domain=config.domain, tags=config.tags).resolve()
        for env_id in env_ids:
            for seed in config.seeds:
                for hinted in (config.hinted, True) if config.hinted_twins and not config.hinted else (config.hinted,):
                    name = f"{env_id}#{seed}{' hinted' if hinted else ''}"
                    data = SpadeTaskData(name=name, prompt=None, system_prompt=INSTRUCTIONS, env_id=env_id,
                                         seed=int(seed), hinted=hinted)
                    yield SpadeTask(data, config.task)


class SpadeEnvConfig(vf.EnvConfig):
    """The learner's seat: verifiers' tool-less chat loop (``null`` harness) in a local subprocess by default."""

    player: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"}, runtime=vf.SubprocessConfig())


class SpadeVerifiersEnv(vf.Env[SpadeEnvConfig]):
    """One episode per rollout: the environment speaks as the user, the model's replies are the actions."""

    async def run(self, task: SpadeTask, agents: vf.Agents) -> None:
        data = task.data
        session = EpisodeSession()
        try:
            observation = await asyncio.to_thread(session.reset, data.env_id, data.seed, hint=data.hinted)
            async with agents.player.interaction(task) as interaction:
                try:
                    segment = await interaction.turn(observation)
                    while not segment.terminated:
                        outcome = await asyncio.to_thread(session.step, segment.last_reply)
                        if outcome.done:
                            break
                        segment = await interaction.turn(outcome.observation)
                finally:
                    # recorded before the interaction closes: closing scores the trace from it
                    interaction.trace.info[OUTCOME_KEY] = {
                        "env_id": data.env_id, "seed": data.seed, "hinted": data.hinted,
                        "total_reward": float(session.total_reward), "success": bool(session.success),
                        "done": bool(session.done), "turns": int(session.turns),
                    }
        finally:
            session.close()


sys.modules.setdefault(TASKSET_ID, sys.modules[__name__])

__all__ = [
    "INSTRUCTIONS", "OUTCOME_KEY", "TASKSET_ID", "SpadeEnvConfig", "SpadeTask", "SpadeTaskData", "SpadeTaskset",
    "SpadeTasksetConfig", "SpadeVerifiersEnv", "episode_outcome", "episode_return", "episode_success",
]
