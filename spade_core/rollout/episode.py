"""One running episode: its environment, one conversation per seat, who acts next, and the trajectories it
records when it ends."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import gymnasium as gym

from spade_core.contract.env import HINT_OPTION
from spade_core.models.base import Generation
from spade_core.rollout.chat import ChatFormatter
from spade_core.rollout.env_pool import ResetResult, StepResult
from spade_core.rollout.specs import EpisodeSpec, RolloutConfig, with_hint
from spade_core.rollout.stats import RolloutStats
from spade_core.rollout.trajectory import (
    FAILURE_ENV,
    FAILURE_GENERATION,
    FINISH_TIME_LIMIT,
    Trajectory,
    Turn,
)


class EpisodeHost(Protocol):
    """What a running episode needs from the runner that plays it: the settings, the chat formatter and the system
    text for its environment."""

    config: RolloutConfig
    formatter: ChatFormatter

    def system_text(self, spec: EpisodeSpec, env: gym.Env) -> str: ...


@dataclass
class Seat:
    messages: list[dict[str, str]] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    prompt_length: int = 0
    turns: list[Turn] = field(default_factory=list)
    reward: float = 0.0
    success: bool = False
    format_errors: int = 0
    pending: str | None = None
    pending_hint: str | None = None
    env_start: int = 0


class LiveEpisode:
    """The running state of one episode: its environment, one conversation per seat, and who acts next."""

    def __init__(self, index: int, spec: EpisodeSpec, runner: EpisodeHost, run_index: int) -> None:
        self.index = index
        self.spec = spec
        self.runner = runner
        self.config = runner.config
        label = f"r{run_index}e{index}-{spec.env_id}-{spec.seed}-{'o' if spec.hint_only else 'h' if spec.hinted else 'u'}"
        self.episode_id = spec.episode_id or label
        self.env: gym.Env | None = None
        self.seats: dict[int, Seat] = {}
        self.num_seats = 1
        self.acting = 0
        self.done = False
        self.finish = "terminated"
        self.failure: str | None = None
        self.error: str | None = None
        self.first_hint: str | None = None
        self.system = ""
        self.distribution = self.config.sampling.distribution  # what every turn is sampled from (and scored under)

    # -- lifecycle -------------------------------------------------------------------------------------------
    def begin(self, result: ResetResult | BaseException) -> None:
        """Take the reset's observation (or its error) and set up the first seat."""
        if isinstance(result, BaseException):
            self.fail_env("reset", result)
            return
        try:
            obs, info = result
        except (TypeError, ValueError) as exc:
            self.fail_env("reset", exc)
            return
        manifest = getattr(self.env.unwrapped, "manifest", None)
        self.num_seats = int(getattr(manifest, "players", 1) or 1)
        self.system = self.runner.system_text(self.spec, self.env)
        if self.spec.hinted:
            self.first_hint = info.get(HINT_OPTION) if isinstance(info.get(HINT_OPTION), str) else None
            if self.first_hint is None and not self._can_hint():
                self._fail(FAILURE_ENV, "a hinted rollout was requested but the environment gave no privileged hint "
                                        f"(reset(options={{{HINT_OPTION!r}: True}}) put no {HINT_OPTION!r} in info)")
                return
        self.acting = self._player(info, default=0)
        seat = self.seats.setdefault(self.acting, Seat())
        seat.pending = obs

    def prepare_turn(self, stats: RolloutStats) -> list[int] | None:
        """Build the acting seat's prompt ids (appending the new context); None if the episode just ended."""
        seat = self.seats[self.acting]
        hint = self._hint_for_turn(seat)
        if self.done:
            return None
        content = seat.pending or ""
        hint_only = self.spec.hint_only
        if hint_only:  # the observation is withheld on every turn, hint or no hint
            content = with_hint(content, self.config.hint_template.format(hint=hint or ""), self.config.hint_placement,
                                hint_only=True)
        elif hint is not None and not (self.config.hint_placement == "system" and not seat.ids):
            content = with_hint(content, self.config.hint_template.format(hint=hint), self.config.hint_placement)
        message = {"role": "user", "content": content}
        if not seat.ids:
            system = self.system
            if hint is not None and self.config.hint_placement == "system" and not hint_only:
                system = f"{system}\n\n{self.config.hint_template.format(hint=hint)}"
            if self.config.use_system_role:
                opening = [{"role": "system", "content": system}, message]
            else:
                opening = [{"role": "user", "content": f"{system}\n\n{content}"}]
            new_ids = self.runner.formatter.first_prompt(opening)
            seat.messages = opening
        else:
            last_generated = seat.ids[seat.turns[-1].gen_start:seat.turns[-1].gen_end]
            try:
                new_ids = self.runner.formatter.continuation(seat.messages, last_generated, message)
            except Exception as exc:  # a template problem ends this episode, not the batch
                self._fail(FAILURE_GENERATION, f"{type(exc).__name__}: {exc}")
                return None
            seat.messages = [*seat.messages, message]
        if len(seat.ids) + len(new_ids) + self.config.sampling.max_new_tokens > self.config.max_context_tokens:
            if not seat.ids:
                self._fail(FAILURE_GENERATION, f"the first prompt has {len(new_ids)} tokens; with max_new_tokens it "
                                               f"exceeds max_context_tokens={self.config.max_context_tokens}")
            else:
                self.done, self.finish = True, "context_limit"
            return None
        seat.env_start = len(seat.ids)
        seat.ids.extend(new_ids)
        seat.mask.extend([0] * len(new_ids))
        seat.logprobs.extend([0.0] * len(new_ids))
        if not seat.turns:
            seat.prompt_length = len(seat.ids)
        seat.pending_hint = hint
        seat.pending = None
        return list(seat.ids)

    def record(self, generation: Generation, stats: RolloutStats) -> str | None:
        """Record the generated turn; returns the action to step the environment with (None: the episode ended)."""
        seat = self.seats[self.acting]
        if generation.finish_reason == "error" or not generation.completion_ids:
            if seat.turns:
                self._rollback_context(seat)
            self._fail(FAILURE_GENERATION, generation.error or "the generator returned an empty completion")
            return None
        ids = [int(t) for t in generation.completion_ids]
        logprobs = [float(x) for x in generation.logprobs] if generation.logprobs else [0.0] * len(ids)
        if len(logprobs) != len(ids):
            if seat.turns:
                self._rollback_context(seat)
            self._fail(FAILURE_GENERATION, f"the generator returned {len(logprobs)} logprobs for {len(ids)} tokens")
            return None
        gen_start = len(seat.ids)
        seat.ids.extend(ids)
        seat.mask.extend([1] * len(ids))
        seat.logprobs.extend(logprobs)
        turn = Turn(seat.env_start, gen_start, len(seat.ids), generation.text, 0.0, None, generation.finish_reason,
                    seat.pending_hint)
        seat.turns.append(turn)
        seat.messages = [*seat.messages, {"role": "assistant", "content": generation.text}]
        stats.turns += 1
        return generation.text

    def after_step(self, result: StepResult | BaseException) -> None:
        """Take the environment's answer to the action :meth:`record` returned."""
        seat = self.seats[self.acting]
        if isinstance(result, BaseException):
            self.fail_env("step", result)
            return
        try:
            obs, reward, terminated, truncated, info = result
        except (TypeError, ValueError) as exc:
            self.fail_env("step", exc)
            return
        turn = seat.turns[-1]
        if info.get("sandbox_error") is not None:
            self._fail(FAILURE_ENV, str(info["sandbox_error"]))
            return
        reward = float(reward)
        turn.reward = reward
        turn.format_error = info.get("format_error")
        if turn.format_error:
            seat.format_errors += 1
        mover = self.acting
        if terminated or truncated:
            self._settle(mover, reward, info)
            self.done, self.finish = True, "terminated" if terminated else "truncated"
            return
        seat.reward += reward
        self.acting = self._player(info, default=mover) if self.num_seats > 1 else 0
        self.seats.setdefault(self.acting, Seat()).pending = obs

    def trajectories(self) -> list[Trajectory]:
        out = []
        seats = sorted(self.seats.items()) or [(0, Seat())]
        for number, seat in seats:
            if not seat.turns and self.failure is None and len(seats) > 1:
                continue  # a seat that never had to act in a game that ended normally
            out.append(Trajectory(
                env_id=self.spec.env_id, role=self.spec.role, group_id=self.spec.resolved_group_id(),
                episode_id=self.episode_id, token_ids=list(seat.ids), loss_mask=list(seat.mask),
                logprobs=list(seat.logprobs), prompt_length=seat.prompt_length if seat.turns else len(seat.ids),
                turns=list(seat.turns), reward=seat.reward, success=seat.success, hinted=self.spec.hinted,
                hint_only=self.spec.hint_only,
                seed=self.spec.seed, seat=number, num_seats=self.num_seats, format_errors=seat.format_errors,
                finish="error" if self.failure else self.finish, failure=self.failure, error=self.error,
                temperature=self.distribution.temperature, top_k=self.distribution.top_k,
                top_p=self.distribution.top_p,
                metadata={"env_kwargs": dict(self.spec.env_kwargs)} if self.spec.env_kwargs else {},
            ))
        return out

    # -- helpers ---------------------------------------------------------------------------------------------
    def _settle(self, mover: int, reward: float, info: Mapping[str, Any]) -> None:
        """Final rewards and success per seat: ``info["rewards"]`` (one per seat) when the game gives it."""
        rewards = info.get("rewards")
        per_seat = isinstance(rewards, list) and len(rewards) >= self.num_seats > 1
        if per_seat:
            for number in range(self.num_seats):
                self.seats.setdefault(number, Seat()).reward += float(rewards[number])
        else:
            self.seats[mover].reward += reward
        winner = info.get("winner")
        for number, seat in self.seats.items():
            if "winner" in info and self.num_seats > 1:
                seat.success = winner == number
            else:
                seat.success = bool(info.get("success", False)) if number == mover else False

    def _player(self, info: Mapping[str, Any], *, default: int) -> int:
        pid = info.get("player_id", default)
        return pid if isinstance(pid, int) and not isinstance(pid, bool) and 0 <= pid < max(self.num_seats, 1) else default

    def _can_hint(self) -> bool:
        return callable(getattr(self.env.unwrapped, "privileged_hint", None)) if self.env is not None else False

    def _hint_for_turn(self, seat: Seat) -> str | None:
        """The hint shown with this turn: the reset hint first, then (multi-turn) the current one."""
        if not self.spec.hinted:
            return None
        if self.first_hint is not None and not any(s.turns for s in self.seats.values()):
            return self.first_hint
        if (seat.turns and not self.config.hint_every_turn) or not self._can_hint():
            return None
        try:
            hint = self.env.unwrapped.privileged_hint()
        except Exception as exc:  # a failing hint is an environment error
            self._fail(FAILURE_ENV, f"privileged_hint() failed: {type(exc).__name__}: {exc}")
            return None
        return hint if isinstance(hint, str) else None

    @staticmethod
    def _rollback_context(seat: Seat) -> None:
        """Drop the context appended for a turn that produced nothing, so turns still tile the tokens."""
        del seat.ids[seat.env_start:]
        del seat.mask[seat.env_start:]
        del seat.logprobs[seat.env_start:]
        if seat.messages and seat.messages[-1].get("role") == "user":
            seat.messages = seat.messages[:-1]

    def stop_at_deadline(self) -> None:
        """End a running episode at a turn boundary because its phase's deadline passed (finish ``time_limit``)."""
        if not self.done:
            self.done, self.finish = True, FINISH_TIME_LIMIT

    def fail_env(self, call: str, exc: BaseException) -> None:
        """End the episode with an environment failure raised by ``call`` (reset/step)."""
        self._fail(FAILURE_ENV, f"{call} failed: {type(exc).__name__}: {exc}")

    def _fail(self, kind: str, message: str) -> None:
        self.done = True
        self.failure = kind
        self.error = message
        self.finish = "error"
