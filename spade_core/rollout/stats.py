"""What a rollout run counts (:class:`RolloutStats`) and returns (:class:`RolloutResult`)."""

from __future__ import annotations

from dataclasses import dataclass

from spade_core.rollout.trajectory import (
    Trajectory,
)


@dataclass
class RolloutStats:
    """Counters of one :meth:`EpisodeRunner.run` call."""

    episodes: int = 0
    trajectories: int = 0
    turns: int = 0
    generate_calls: int = 0
    prompts: int = 0
    max_batch: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    env_failures: int = 0
    generation_failures: int = 0
    time_limited: int = 0  # episodes the deadline ended (finish time_limit)
    not_started: int = 0  # queued episodes the deadline kept from starting (no trajectory)
    generate_seconds: float = 0.0
    env_seconds: float = 0.0
    wall_seconds: float = 0.0

    @property
    def episodes_per_second(self) -> float:
        return self.episodes / self.wall_seconds if self.wall_seconds > 0 else 0.0

    @property
    def completion_tokens_per_second(self) -> float:
        return self.completion_tokens / self.wall_seconds if self.wall_seconds > 0 else 0.0

    def as_dict(self) -> dict[str, float]:
        out = dict(self.__dict__)
        out["episodes_per_second"] = self.episodes_per_second
        out["completion_tokens_per_second"] = self.completion_tokens_per_second
        return out


@dataclass
class RolloutResult:
    trajectories: list[Trajectory]
    stats: RolloutStats
