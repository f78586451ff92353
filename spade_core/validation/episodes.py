"""Running validation episodes: policies, traces and the relaxed environment the checks observe."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from spade_core.contract.env import SpadeEnv
from spade_core.contract.inner import HandleFactory
from spade_core.contract.manifest import EnvManifest

Policy = Callable[[SpadeEnv, str, dict[str, Any]], str]
"""Chooses the next action from the env (for the reference/hint), the observation and the info."""

_OPEN_RANGE = (-1e300, 1e300)


@dataclass
class Episode:
    """One played episode: every step, the final info, and what went wrong if anything did."""

    seed: int
    steps: list[tuple[str, str, float, bool, bool]] = field(default_factory=list)  # action, obs, reward, term, trunc
    reset_obs: str = ""
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

    def trace(self) -> list[Any]:
        return [self.reset_obs, *self.steps, _comparable(self.final_info)]


def _comparable(info: dict[str, Any]) -> dict[str, Any]:
    return {k: (repr(v) if k == "sandbox_error" else v) for k, v in info.items()}


class EnvFactory:
    """Fresh instances of one candidate, observed with an open reward range so that the ``reward_range`` stage (not
    an earlier one) reports rewards outside the declared range."""

    def __init__(self, manifest: EnvManifest, handles: HandleFactory, env_id: str) -> None:
        self.manifest = manifest
        self.relaxed = dataclasses.replace(manifest, reward_range=_OPEN_RANGE)
        self.handles = handles
        self.env_id = env_id
        self.opened: list[SpadeEnv] = []

    def __call__(self) -> SpadeEnv:
        env = SpadeEnv(self.relaxed, self.handles, env_id=self.env_id)
        self.opened.append(env)
        return env

    def close_all(self) -> None:
        for env in self.opened:
            try:
                env.close()
            except Exception:  # noqa: BLE001 - closing a broken candidate must not mask the verdict
                pass
        self.opened.clear()


def play(env: SpadeEnv, seed: int, policy: Policy, *, seats: dict[int, Policy] | None = None,
         options: dict[str, Any] | None = None) -> Episode:
    """Play one episode; environment failures end it with ``error`` set (never raised)."""
    episode = Episode(seed=seed)
    try:
        obs, info = env.reset(seed=seed, options=options)
    except Exception as exc:  # noqa: BLE001 - recorded for the stage to judge
        episode.error = exc
        return episode
    episode.reset_obs = obs
    episode.final_info = info
    while True:
        chooser = (seats or {}).get(info.get("player_id", 0), policy)
        try:
            action = chooser(env, obs, info)
        except Exception as exc:  # noqa: BLE001 - reference_action/privileged_hint may fail in env code
            episode.error = exc
            return episode
        obs, reward, terminated, truncated, info = env.step(action)
        episode.steps.append((action, obs, float(reward), terminated, truncated))
        episode.final_info = info
        if info.get("sandbox_error") is not None:
            episode.error = info["sandbox_error"]
            return episode
        if terminated or truncated:
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


SHORT_ANSWER_CHARS = 64
"""Numbers are bumped only in short answers: in a long one (a program) a changed constant may be harmless."""


def mutations(action: str) -> list[str]:
    """Near-miss variants of a correct final action: each should be rejected by a sound verifier."""
    variants = ["", action[:-1], action[: max(0, len(action) // 2)]]
    bumped = re.sub(r"\d+", lambda m: str(int(m.group()) + 1), action)
    if bumped != action and len(action) <= SHORT_ANSWER_CHARS:
        variants.insert(0, bumped)
    return [v for v in dict.fromkeys(variants) if v != action]
