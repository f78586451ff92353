"""Where a run's environments live: the :class:`EnvPool` protocol and the in-process :class:`LocalEnvPool`."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import gymnasium as gym

from spade_core.rollout.specs import EpisodeSpec

EnvMaker = Callable[[EpisodeSpec], gym.Env]
ResetResult = tuple[Any, dict[str, Any]]
StepResult = tuple[Any, Any, bool, bool, dict[str, Any]]


def make_with_gymnasium(spec: EpisodeSpec) -> gym.Env:
    """The default environment factory: ``gymnasium.make(spec.env_id, **spec.env_kwargs)``."""
    return gym.make(spec.env_id, **dict(spec.env_kwargs))


class EnvPool(Protocol):
    """The environments of one :meth:`EpisodeRunner.run`: where they live and how a round's calls reach them.

    ``acquire`` may return any object with gymnasium's ``reset``/``step``/``close`` and an ``unwrapped`` (read for
    ``manifest`` and ``privileged_hint``). ``reset_many``/``step_many`` return one result per call, in order: the
    call's return value, or the exception it raised (a failure of that episode only, never of the batch).
    """

    def acquire(self, spec: EpisodeSpec) -> gym.Env: ...

    def reset_many(self, calls: Sequence[tuple[gym.Env, int, dict[str, Any] | None]]
                   ) -> list[ResetResult | BaseException]: ...

    def step_many(self, calls: Sequence[tuple[gym.Env, str]]) -> list[StepResult | BaseException]: ...

    def release(self, spec: EpisodeSpec, env: gym.Env, *, broken: bool) -> None: ...

    def close(self) -> None: ...


EnvPoolFactory = Callable[[], EnvPool]
"""Called once per :meth:`EpisodeRunner.run` for that run's pool."""


def env_key(spec: EpisodeSpec) -> str:
    """Episodes with the same key can reuse each other's environment instance."""
    return spec.env_id + "|" + json.dumps(dict(spec.env_kwargs), sort_keys=True, default=repr)


class LocalEnvPool:
    """The default :class:`EnvPool`: environments in this process, reused across episodes of one run (making one
    can start a sandbox worker); calls run one after another."""

    def __init__(self, make_env: EnvMaker) -> None:
        self.make_env = make_env
        self.idle: dict[str, list[gym.Env]] = {}
        self.all: list[gym.Env] = []

    def acquire(self, spec: EpisodeSpec) -> gym.Env:
        idle = self.idle.get(env_key(spec))
        if idle:
            return idle.pop()
        env = self.make_env(spec)
        self.all.append(env)
        return env

    def reset_many(self, calls: Sequence[tuple[gym.Env, int, dict[str, Any] | None]]
                   ) -> list[ResetResult | BaseException]:
        out: list[ResetResult | BaseException] = []
        for env, seed, options in calls:
            try:
                out.append(env.reset(seed=seed, options=options))
            except Exception as exc:  # returned: it ends only this episode
                out.append(exc)
        return out

    def step_many(self, calls: Sequence[tuple[gym.Env, str]]) -> list[StepResult | BaseException]:
        out: list[StepResult | BaseException] = []
        for env, action in calls:
            try:
                out.append(env.step(action))
            except Exception as exc:  # returned: it ends only this episode
                out.append(exc)
        return out

    def release(self, spec: EpisodeSpec, env: gym.Env, *, broken: bool) -> None:
        if not broken:
            self.idle.setdefault(env_key(spec), []).append(env)
            return
        self._close(env)
        self.all = [e for e in self.all if e is not env]

    def close(self) -> None:
        for env in self.all:
            self._close(env)
        self.all, self.idle = [], {}

    @staticmethod
    def _close(env: gym.Env) -> None:
        try:
            env.close()
        except Exception:  # closing a broken environment must not fail the run
            pass
