"""The inner environment: designer-format code and the handles that run it.

Designer code is one module holding an ``ENV_SPEC`` dict and one *plain* class (no gymnasium import) with:

- ``reset(rng, options) -> (observation, info)``
- ``step(action) -> (observation, reward, terminated, truncated, info)``
- ``privileged_hint() -> str``: information that makes the task easier without giving the answer away
- ``reference_action() -> str``: the next action of a scripted solver that may read internal state

Its constructor takes the manifest's difficulty knobs as keyword arguments. An :class:`InnerEnvHandle` runs one
instance: :class:`LocalInnerEnv` in this process (trusted, bundled code only); the sandbox runs designer code in
a contained worker behind the same interface. :class:`~spade_core.contract.env.SpadeEnv` checks every value a
handle returns, so handles pass raw values through.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from spade_core.contract.deadline import IN_PROCESS_DEADLINE_S, call_with_deadline
from spade_core.contract.rng import EpisodeRandom
from spade_core.errors import EnvLoadError

REQUIRED_METHODS = ("reset", "step", "privileged_hint", "reference_action")
MANIFEST_NAME = "ENV_SPEC"


@runtime_checkable
class InnerEnvHandle(Protocol):
    """One running instance of environment code; every method returns raw, unchecked values."""

    def reset(self, seed: int, options: dict[str, Any] | None) -> Any: ...

    def step(self, action: str) -> Any: ...

    def privileged_hint(self) -> Any: ...

    def reference_action(self) -> Any: ...

    def close(self) -> None: ...


HandleFactory = Callable[[Mapping[str, Any]], InnerEnvHandle]
"""Builds a fresh handle from the checked difficulty knobs."""


def find_env_class(namespace: Mapping[str, Any], *, module_name: str, where: str) -> type:
    """Return the single class defined in ``module_name`` that has every required method."""
    candidates = [
        value
        for value in namespace.values()
        if isinstance(value, type)
        and getattr(value, "__module__", None) == module_name
        and all(callable(getattr(value, m, None)) for m in REQUIRED_METHODS)
    ]
    if not candidates:
        raise EnvLoadError(
            f"{where}: no environment class found. Define one class with methods "
            f"{', '.join(REQUIRED_METHODS)} (a plain class; do not subclass gymnasium.Env)."
        )
    if len(candidates) > 1:
        names = ", ".join(sorted(c.__name__ for c in candidates))
        raise EnvLoadError(f"{where}: found {len(candidates)} environment classes ({names}); keep exactly one.")
    return candidates[0]


def load_trusted_module(module_path: str) -> tuple[dict[str, Any], type]:
    """Import a bundled (trusted) environment module; return its raw manifest dict and class."""
    try:
        module = importlib.import_module(module_path)
    except Exception as exc:  # any import failure is reported the same way
        raise EnvLoadError(f"cannot import environment module {module_path!r}: {type(exc).__name__}: {exc}") from exc
    manifest = getattr(module, MANIFEST_NAME, None)
    if manifest is None:
        raise EnvLoadError(f"{module_path}: no {MANIFEST_NAME} dict at module level")
    cls = find_env_class(vars(module), module_name=module.__name__, where=module_path)
    return manifest, cls


class LocalInnerEnv:
    """Runs trusted environment code in this process (bundled seed environments only); every call has a wall-clock
    deadline (:mod:`spade_core.contract.deadline`), so a step that never ends becomes a recorded timeout.

    Episodes are hermetic: a ``reset`` after the instance was used constructs the class again with a fresh copy of
    the same knobs, so no attribute an episode left behind reaches the next one (the sandbox does the same and
    re-runs the module body as well; trusted modules are imported once)."""

    def __init__(self, cls: type, knobs: Mapping[str, Any], *, deadline_s: float = IN_PROCESS_DEADLINE_S) -> None:
        self._deadline_s = deadline_s
        self._cls = cls
        self._knobs = dict(knobs)
        self._name = getattr(cls, "__name__", "environment")
        self._env = self._build()
        self._used = False

    def _build(self) -> Any:
        return self._call(lambda: self._cls(**copy.deepcopy(self._knobs)), "__init__")

    def _call(self, fn: Callable[[], Any], method: str) -> Any:
        return call_with_deadline(fn, seconds=self._deadline_s, what=f"{self._name}.{method}")

    @property
    def instance(self) -> Any:
        """The environment object itself (trusted code only: it lives in this process)."""
        return self._env

    def reset(self, seed: int, options: dict[str, Any] | None) -> Any:
        if self._used:
            self._env = self._build()
        self._used = True
        return self._call(lambda: self._env.reset(EpisodeRandom(seed), dict(options or {})), "reset")

    def step(self, action: str) -> Any:
        self._used = True
        return self._call(lambda: self._env.step(action), "step")

    def privileged_hint(self) -> Any:
        self._used = True
        return self._call(self._env.privileged_hint, "privileged_hint")

    def reference_action(self) -> Any:
        self._used = True
        return self._call(self._env.reference_action, "reference_action")

    def close(self) -> None:
        close = getattr(self._env, "close", None)
        if callable(close):
            close()
