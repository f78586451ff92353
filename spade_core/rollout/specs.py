"""What an episode is (:class:`EpisodeSpec`) and how episodes are played (:class:`RolloutConfig`): the knobs, the
system prompt and where a hint is shown."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from spade_core.models.base import SamplingParams
from spade_core.models.errors import GenerationError
from spade_core.rollout.errors import RolloutConfigError

DEFAULT_SYSTEM_PROMPT = (
    "You are the {role} acting in a text environment. {description}\n"
    "Read each observation and reply with your action only."
)
HINT_TEMPLATE = "Hint: {hint}"
HintPlacement = Literal["user", "before", "system"]
HINT_PLACEMENTS: tuple[HintPlacement, ...] = get_args(HintPlacement)


def with_hint(content: str, shown_hint: str, placement: str, *, hint_only: bool = False) -> str:
    """A user message's content with the rendered hint placed in it: before the observation for ``before``, after
    it otherwise (``system`` puts the first turn's hint in the system message instead). ``hint_only``: the hint in
    place of the observation (the hint without the task, whatever the placement: success then means the hint alone
    carries the answer)."""
    if hint_only:
        return shown_hint
    return f"{shown_hint}\n\n{content}" if placement == "before" else f"{content}\n\n{shown_hint}"
"""Where a hinted rollout shows the hint: ``"user"`` after the observation in the user turn (the end of the
observation); ``"before"`` ahead of the observation in the user turn; ``"system"`` the first hint in the system
message (later turns' hints after their observation)."""


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode to play: which environment, which seed, hinted or not, and its bookkeeping labels.

    Episodes of one GRPO group share ``group_id`` (typically the same env and seed, played G times). ``hint_only``
    (with ``hinted``): every user turn shows the hint alone, never the observation (the regret estimate's hint-only
    arm, :mod:`spade_core.training.regret`).
    """

    env_id: str
    seed: int
    hinted: bool = False
    hint_only: bool = False
    role: str = "agent"
    group_id: str | None = None
    env_kwargs: Mapping[str, Any] = field(default_factory=dict)
    episode_id: str | None = None

    def __post_init__(self) -> None:
        if self.hint_only and not self.hinted:
            raise RolloutConfigError(f"EpisodeSpec({self.env_id!r}, seed {self.seed}): hint_only shows the hint "
                                     "without the observation, so it needs hinted=True")

    def resolved_group_id(self) -> str:
        arm = "hint_only" if self.hint_only else int(self.hinted)
        return self.group_id if self.group_id is not None else f"{self.env_id}|{self.seed}|{arm}"


@dataclass(frozen=True)
class RolloutKnobs:
    """How episodes are played, but for sampling and seeding: the knobs a run sets (the self-play ``agent`` section
    holds them)."""

    max_concurrent_episodes: int = 64  # episodes stepped together (one batched generation per turn)
    max_context_tokens: int = 4096  # an episode's token budget (prompt and replies)
    # the system message; {role} and {description} are filled from the environment
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    hint_template: str = HINT_TEMPLATE  # how a hinted rollout shows the hint; {hint} is the environment's hint
    hint_placement: HintPlacement = "user"  # where hinted rollouts show the hint: one of HINT_PLACEMENTS
    hint_every_turn: bool = True  # multi-turn: refresh the hint from env.privileged_hint() before each turn
    use_system_role: bool = True  # False: the system text opens the first user message (templates without one)

    def __post_init__(self) -> None:
        if self.max_concurrent_episodes < 1:
            raise RolloutConfigError(f"max_concurrent_episodes must be >= 1, got {self.max_concurrent_episodes}")
        if self.max_context_tokens < 2:
            raise RolloutConfigError(f"max_context_tokens must be >= 2, got {self.max_context_tokens}")
        if self.hint_placement not in HINT_PLACEMENTS:
            raise RolloutConfigError(f"hint_placement must be one of {HINT_PLACEMENTS}, got {self.hint_placement!r}")


@dataclass(frozen=True)
class RolloutConfig(RolloutKnobs):
    """How episodes are played. ``sampling.seed`` is ignored: each round gets a seed derived from ``seed``."""

    sampling: SamplingParams = field(default_factory=lambda: SamplingParams(max_new_tokens=64))
    seed: int | None = 0  # None: sampling seeds come from torch's global RNG

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.sampling.max_new_tokens < 1:
            raise RolloutConfigError("sampling.max_new_tokens must be >= 1: every turn needs at least one token")
        try:
            _ = self.sampling.distribution
        except GenerationError as exc:
            raise RolloutConfigError(f"sampling: {exc}") from exc
