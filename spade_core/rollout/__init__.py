"""The episode runner and the trajectories it records (backend-agnostic; docs/design.md §6)."""

from spade_core.rollout.chat import ChatFormatter
from spade_core.rollout.env_pool import EnvPool, LocalEnvPool
from spade_core.rollout.errors import ChatTemplateError, RolloutConfigError, RolloutError, TrajectoryFormatError
from spade_core.rollout.runner import EpisodeRunner
from spade_core.rollout.scripted import ScriptedPolicy
from spade_core.rollout.specs import EpisodeSpec, RolloutConfig
from spade_core.rollout.stats import RolloutResult, RolloutStats
from spade_core.rollout.trajectory import Trajectory, Turn, generation_trajectory, single_turn_trajectory

__all__ = [
    "ChatFormatter", "ChatTemplateError", "EnvPool", "EpisodeRunner", "LocalEnvPool", "EpisodeSpec", "RolloutConfig", "RolloutConfigError",
    "RolloutError", "RolloutResult", "RolloutStats", "ScriptedPolicy", "Trajectory", "TrajectoryFormatError", "Turn",
    "generation_trajectory", "single_turn_trajectory",
]
