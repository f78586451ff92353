"""What one episode leaves for training: exact tokens, a loss mask, sampler logprobs, reward and provenance.

One :class:`Trajectory` per episode and seat. Its ``token_ids`` are exactly what the policy saw and produced, in
order: the first prompt, then for each turn the generated tokens (``loss_mask`` 1, sampler logprobs) followed by the
environment's reply rendered through the chat template (``loss_mask`` 0, logprob 0.0). Trainers use
``prompt_ids``/``completion_ids``/``completion_mask`` (TRL's ``env_mask``) or the full arrays. JSON round-trips.

A trajectory carries the sampling distribution its tokens were drawn from (``temperature``, ``top_k``, ``top_p``:
:attr:`Trajectory.distribution`); its ``logprobs`` are taken under it, and every trainer scores the tokens under it
again (:class:`~spade_core.models.base.TokenDistribution`), so the first update's importance ratio is 1.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from spade_core.models.base import Generation, TokenDistribution
from spade_core.models.errors import GenerationError
from spade_core.rollout.errors import TrajectoryFormatError

ROLES = ("agent", "designer")

FAILURE_ENV = "env_error"
FAILURE_GENERATION = "generation_error"
FINISH_TIME_LIMIT = "time_limit"
"""An episode its phase's deadline ended (spade_core.deadlines): censored, neither a success nor a failure of the
policy, so it is never trained on and never scored (the regret estimate leaves its seed out)."""


@dataclass
class Turn:
    """One policy turn: ``token_ids[env_start:gen_start]`` is the context added before it (mask 0: the first
    prompt for turn 0, the environment's reply rendered by the chat template later) and ``token_ids[gen_start:gen_end]``
    the generated tokens (mask 1). Turns tile the token sequence in order."""

    env_start: int
    gen_start: int
    gen_end: int
    action: str
    reward: float = 0.0
    format_error: str | None = None
    finish_reason: str = "stop"
    hint: str | None = None


@dataclass
class Trajectory:
    """One episode (one seat of it, for multi-player games) as played by the policy."""

    env_id: str
    role: str
    group_id: str
    episode_id: str
    token_ids: list[int]
    loss_mask: list[int]
    logprobs: list[float]
    prompt_length: int
    turns: list[Turn] = field(default_factory=list)
    reward: float = 0.0
    success: bool = False
    hinted: bool = False
    hint_only: bool = False  # shown the hint without the observation (the regret estimate's hint-only arm)
    seed: int | None = None
    seat: int = 0
    num_seats: int = 1
    format_errors: int = 0
    finish: str = "terminated"  # terminated | truncated | context_limit | time_limit | error
    failure: str | None = None  # None | "env_error" | "generation_error"
    error: str | None = None
    temperature: float = 1.0  # the sampling distribution (see TokenDistribution); 0: greedy
    top_k: int = 0
    top_p: float = 1.0
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.validate()

    # -- views -----------------------------------------------------------------------------------------------
    @property
    def prompt_ids(self) -> list[int]:
        return self.token_ids[: self.prompt_length]

    @property
    def completion_ids(self) -> list[int]:
        """Everything after the first prompt: generated tokens and environment replies, interleaved."""
        return self.token_ids[self.prompt_length:]

    @property
    def completion_mask(self) -> list[int]:
        """``loss_mask`` over :attr:`completion_ids` (1 generated, 0 environment); TRL calls it ``env_mask``."""
        return self.loss_mask[self.prompt_length:]

    @property
    def completion_logprobs(self) -> list[float]:
        return self.logprobs[self.prompt_length:]

    @property
    def num_generated_tokens(self) -> int:
        return sum(self.loss_mask)

    @property
    def distribution(self) -> TokenDistribution:
        """The distribution the generated tokens were drawn from and are scored under."""
        return TokenDistribution(self.temperature, self.top_k, self.top_p)

    @property
    def failed(self) -> bool:
        return self.failure is not None

    @property
    def trainable(self) -> bool:
        """Worth a gradient: no infrastructure failure, not cut by a deadline, and at least one generated token."""
        return self.failure is None and self.finish != FINISH_TIME_LIMIT and self.num_generated_tokens > 0

    # -- checks and JSON -------------------------------------------------------------------------------------
    def validate(self) -> None:
        """Raise :class:`TrajectoryFormatError` when arrays, spans or fields are inconsistent."""
        where = f"trajectory {self.episode_id!r} (env {self.env_id!r}, seat {self.seat})"
        n = len(self.token_ids)
        if len(self.loss_mask) != n or len(self.logprobs) != n:
            raise TrajectoryFormatError(
                f"{where}: token_ids, loss_mask and logprobs must have one entry per token; got {n}, "
                f"{len(self.loss_mask)}, {len(self.logprobs)}"
            )
        if self.role not in ROLES:
            raise TrajectoryFormatError(f"{where}: role must be one of {ROLES}, got {self.role!r}")
        try:
            _ = self.distribution
        except GenerationError as exc:
            raise TrajectoryFormatError(f"{where}: invalid sampling distribution: {exc}") from exc
        if not 0 <= self.prompt_length <= n:
            raise TrajectoryFormatError(f"{where}: prompt_length {self.prompt_length} is outside [0, {n}]")
        if any(m not in (0, 1) for m in self.loss_mask):
            raise TrajectoryFormatError(f"{where}: loss_mask entries must be 0 or 1")
        if any(self.loss_mask[: self.prompt_length]):
            raise TrajectoryFormatError(f"{where}: loss_mask must be 0 on the prompt (first prompt_length tokens)")
        expected_start = 0
        for i, turn in enumerate(self.turns):
            if turn.env_start != expected_start or not turn.env_start <= turn.gen_start <= turn.gen_end <= n:
                raise TrajectoryFormatError(
                    f"{where}: turn {i} spans {turn.env_start}:{turn.gen_start}:{turn.gen_end}; turns must tile the "
                    f"tokens in order (turn 0 starts at 0, each next one where the previous ended, within {n})"
                )
            if any(self.loss_mask[turn.env_start:turn.gen_start]) or not all(self.loss_mask[turn.gen_start:turn.gen_end]):
                raise TrajectoryFormatError(f"{where}: turn {i}: loss_mask must be 0 on context and 1 on generated tokens")
            expected_start = turn.gen_end
        if self.turns and expected_start != n:
            raise TrajectoryFormatError(f"{where}: the last turn ends at {expected_start}, but there are {n} tokens")
        if self.turns and self.turns[0].gen_start != self.prompt_length:
            raise TrajectoryFormatError(f"{where}: the first turn must generate right after the prompt")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trajectory:
        known = {f.name for f in fields(cls)}
        missing = [f.name for f in fields(cls) if f.name not in data and f.default is MISSING and f.default_factory is MISSING]
        if missing:
            raise TrajectoryFormatError(f"trajectory JSON lacks field(s) {missing}")
        unknown = sorted(set(data) - known)
        if unknown:
            raise TrajectoryFormatError(f"trajectory JSON has unknown field(s) {unknown}")
        values = dict(data)
        values["turns"] = [t if isinstance(t, Turn) else Turn(**t) for t in values.get("turns", [])]
        return cls(**values)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Trajectory:
        return cls.from_dict(json.loads(text))


def single_turn_trajectory(
    prompt_ids: list[int],
    completion_ids: list[int],
    logprobs: list[float],
    *,
    distribution: TokenDistribution,
    role: str,
    group_id: str,
    episode_id: str,
    env_id: str = "",
    reward: float = 0.0,
    success: bool = False,
    action: str = "",
    finish_reason: str = "stop",
    metadata: dict[str, Any] | None = None,
) -> Trajectory:
    """A one-turn trajectory from a prompt and its completion, sampled from ``distribution``."""
    if len(logprobs) != len(completion_ids):
        raise TrajectoryFormatError(
            f"single_turn_trajectory: {len(completion_ids)} completion ids but {len(logprobs)} logprobs"
        )
    p, c = len(prompt_ids), len(completion_ids)
    return Trajectory(
        env_id=env_id, role=role, group_id=group_id, episode_id=episode_id,
        token_ids=list(prompt_ids) + list(completion_ids), loss_mask=[0] * p + [1] * c,
        logprobs=[0.0] * p + [float(x) for x in logprobs], prompt_length=p,
        turns=[Turn(0, p, p + c, action, reward, None, finish_reason)], reward=reward, success=success,
        temperature=distribution.temperature, top_k=distribution.top_k, top_p=distribution.top_p,
        metadata=dict(metadata or {}),
    )


def generation_trajectory(generation: Generation, *, role: str, group_id: str, episode_id: str, env_id: str = "",
                          reward: float = 0.0, success: bool = False,
                          metadata: dict[str, Any] | None = None) -> Trajectory:
    """The one-turn trajectory of a :class:`Generation` (the designer's "write an environment" turn, a repair),
    with the ids, logprobs and sampling distribution the backend recorded.

    Raises :class:`TrajectoryFormatError` when the generation cannot be trained on: no tokens, logprobs missing or
    misaligned, or no recorded distribution (a backend that does not sample with SPADE's rule, e.g. a remote server).
    """
    where = f"generation {episode_id!r}"
    if not generation.completion_ids:
        raise TrajectoryFormatError(f"{where} has no completion tokens")
    if generation.distribution is None:
        raise TrajectoryFormatError(
            f"{where}: the backend recorded no sampling distribution, so its logprobs cannot be matched by a "
            "trainer; train only on generations from the trained policy's own sampler (hf, vllm)")
    return single_turn_trajectory(
        generation.prompt_ids, generation.completion_ids, generation.logprobs, distribution=generation.distribution,
        role=role, group_id=group_id, episode_id=episode_id, env_id=env_id, reward=reward, success=success,
        action=generation.text, finish_reason=generation.finish_reason, metadata=metadata,
    )
