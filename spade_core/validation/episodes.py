"""Running validation episodes: policies, traces and the relaxed environment the checks observe."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from spade_core.contract.env import RESERVED_RESET_OPTIONS, SpadeEnv
from spade_core.contract.inner import HandleFactory
from spade_registry.manifest import EnvManifest

Policy = Callable[[SpadeEnv, str, dict[str, Any]], str]
"""Chooses the next action from the env (for the reference/hint), the observation and the info."""

_OPEN_RANGE = (-1e300, 1e300)


@dataclass
class Episode:
    """One played episode: every step (with its info), the hints read on the way, and what went wrong if anything
    did. ``hints[i]`` is the privileged hint read before step ``i`` when the episode recorded hints."""

    seed: int
    label: str = ""  # which policy played it (for messages)
    steps: list[tuple[str, str, float, bool, bool]] = field(default_factory=list)  # action, obs, reward, term, trunc
    infos: list[dict[str, Any]] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)  # the observation each action answered
    reset_obs: str = ""
    reset_info: dict[str, Any] = field(default_factory=dict)
    final_info: dict[str, Any] = field(default_factory=dict)
    error: BaseException | None = None

    @property
    def success(self) -> bool:
        return bool(self.final_info.get("success")) and self.error is None

    @property
    def finished(self) -> bool:
        return bool(self.steps) and self.steps[-1][3] and not self.steps[-1][4] and self.error is None

    @property
    def rewards(self) -> list[float]:
        return [s[2] for s in self.steps]

    @property
    def total_reward(self) -> float:
        return float(sum(self.rewards))

    @property
    def actions(self) -> list[str]:
        return [s[0] for s in self.steps]

    def trace(self) -> list[Any]:
        """Everything the environment showed: reset observation and info, every step with its info."""
        return [self.reset_obs, _comparable(self.reset_info),
                *[(*s, _comparable(i)) for s, i in zip(self.steps, self.infos, strict=False)],
                _comparable(self.final_info), repr(self.error) if self.error is not None else None]


def _comparable(info: dict[str, Any]) -> dict[str, Any]:
    return {k: (repr(v) if k == "sandbox_error" else v) for k, v in info.items() if k not in RESERVED_RESET_OPTIONS}


def first_difference(a: Episode, b: Episode) -> str:
    """Where two traces of the same seed first differ, in words (empty when they are identical)."""
    if a.reset_obs != b.reset_obs:
        return "the first observation differs"
    if _comparable(a.reset_info) != _comparable(b.reset_info):
        return "the reset info differs"
    for i, (x, y) in enumerate(zip(a.steps, b.steps, strict=False)):
        ix = _comparable(a.infos[i]) if i < len(a.infos) else {}
        iy = _comparable(b.infos[i]) if i < len(b.infos) else {}
        if x[0] != y[0]:
            return f"turn {i + 1}: the reference chose {_short(x[0])} once and {_short(y[0])} the other time"
        if x[1] != y[1]:
            return f"turn {i + 1}: the observation after {_short(x[0])} differs ({_short(x[1])} vs {_short(y[1])})"
        if x[2:] != y[2:]:
            return f"turn {i + 1}: reward/termination differ ({x[2:]} vs {y[2:]})"
        if ix != iy:
            return f"turn {i + 1}: the info differs ({_short(str(ix))} vs {_short(str(iy))})"
    if len(a.steps) != len(b.steps):
        return f"one episode lasted {len(a.steps)} turns, the other {len(b.steps)}"
    if (a.error is None) != (b.error is None):
        return "one episode failed with an error, the other did not"
    return ""


def _short(text: str, limit: int = 60) -> str:
    text = str(text)
    return repr(text if len(text) <= limit else text[:limit] + "...")


class EnvFactory:
    """Fresh instances of one candidate, observed with an open reward range so that the ``reward_range`` stage (not
    an earlier one) reports rewards outside the declared range."""

    def __init__(self, manifest: EnvManifest, handles: HandleFactory, env_id: str) -> None:
        self.manifest = manifest
        self.relaxed = dataclasses.replace(manifest, reward_range=_OPEN_RANGE)
        self.handles = handles
        self.env_id = env_id
        self.opened: list[SpadeEnv] = []

    def __call__(self, knobs: dict[str, Any] | None = None) -> SpadeEnv:
        """A fresh instance, with its difficulty defaults or the ``knobs`` given (the others at their defaults)."""
        env = SpadeEnv(self.relaxed, self.handles, knobs=knobs, env_id=self.env_id)
        self.opened.append(env)
        return env

    def close_all(self) -> None:
        for env in self.opened:
            try:
                env.close()
            except Exception:  # closing a broken candidate must not mask the verdict
                pass
        self.opened.clear()


def begin(env: SpadeEnv, episode: Episode, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]] | None:
    """Reset ``env`` for ``episode.seed`` and record the start; None when the reset failed (``error`` set)."""
    try:
        obs, info = env.reset(seed=episode.seed, options=options)
    except Exception as exc:  # recorded for the stage to judge
        episode.error = exc
        return None
    episode.reset_obs, episode.reset_info, episode.final_info = obs, dict(info), info
    return obs, info


def take_step(env: SpadeEnv, episode: Episode, obs: str, action: str) -> tuple[str, dict[str, Any], bool]:
    """Play ``action`` (the agent saw ``obs``) and record the step; the flag says the episode is over: ended, or
    failed in the environment (``error`` set)."""
    episode.observations.append(obs)
    obs, reward, terminated, truncated, info = env.step(action)
    episode.steps.append((action, obs, float(reward), terminated, truncated))
    episode.infos.append(info)
    episode.final_info = info
    if info.get("sandbox_error") is not None:
        episode.error = info["sandbox_error"]
        return obs, info, True
    return obs, info, terminated or truncated


def play(env: SpadeEnv, seed: int, policy: Policy, *, seats: dict[int, Policy] | None = None,
         options: dict[str, Any] | None = None, record_hints: bool = False, max_steps: int | None = None) -> Episode:
    """Play one episode; environment failures end it with ``error`` set (never raised). With ``record_hints`` the
    privileged hint is read before every action (the determinism check compares such episodes with plain ones);
    ``max_steps`` stops it early (an unfinished episode is not a success)."""
    episode = Episode(seed=seed)
    started = begin(env, episode, options)
    if started is None:
        return episode
    obs, info = started
    while True:
        chooser = (seats or {}).get(info.get("player_id", 0), policy)
        try:
            if record_hints:
                episode.hints.append(env.privileged_hint())
            action = chooser(env, obs, info)
        except Exception as exc:  # reference_action/privileged_hint may fail in env code
            episode.error = exc
            return episode
        obs, info, over = take_step(env, episode, obs, action)
        if over or (max_steps is not None and len(episode.steps) >= max_steps):
            return episode


def reference_policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
    return env.reference_action()


def constant_policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
    return "0"


def hint_policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
    return env.privileged_hint()


def random_text_policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
    return env.action_space.sample()


def repeat_first_policy() -> Policy:
    """Plays a random action first, then repeats it every turn."""
    memory: dict[int, str] = {}

    def policy(env: SpadeEnv, obs: str, info: dict[str, Any]) -> str:
        key = id(env)
        if key not in memory or env.turn == 0:
            memory[key] = env.action_space.sample()
        return memory[key]

    return policy
