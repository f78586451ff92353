"""``SandboxedInnerEnv``: the :class:`~spade_core.contract.inner.InnerEnvHandle` for designer-written code.

``SpadeEnv(manifest, sandboxed_handle_factory(source, env_id=...))`` is the ``gymnasium.Env`` that
``gymnasium.make`` returns for designer code: ``SpadeEnv`` checks every raw value, this handle forwards each call to
a contained worker. Failures surface as typed :class:`~spade_core.errors.SandboxError` subclasses; after one, the
next ``reset()`` transparently gets a fresh instance (on a fresh worker if the old one died).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from spade_core.contract.inner import HandleFactory, InnerEnvHandle
from spade_core.errors import SpadeError
from spade_core.sandbox import wire
from spade_core.sandbox.budgets import TimeBudget
from spade_core.sandbox.instances import LoadResult
from spade_core.sandbox.pool import WorkerPool
from spade_core.sandbox.shared_pool import default_pool


class SandboxedInnerEnv:
    """One instance of designer code running in a sandbox worker; methods return raw (unchecked) values."""

    def __init__(
        self,
        source: str,
        *,
        env_id: str | None = None,
        knobs: Mapping[str, Any] | None = None,
        pool: WorkerPool | None = None,
        module: str = "env",
        budget: TimeBudget | None = None,
        family: str | None = None,
    ) -> None:
        self.env_id = env_id
        self.pool = pool or default_pool()
        self._inst = self.pool.create(source, env_id=env_id, knobs=knobs, module=module, budget=budget,
                                      family=family)

    def reset(self, seed: int, options: dict[str, Any] | None) -> Any:
        return self.pool.call(self._inst, "reset", [int(seed), wire.to_wire(dict(options or {}))])

    def step(self, action: str) -> Any:
        return self.pool.call(self._inst, "step", action)

    def privileged_hint(self) -> Any:
        return self.pool.call(self._inst, "hint")

    def reference_action(self) -> Any:
        return self.pool.call(self._inst, "ref")

    def close(self) -> None:
        self.pool.destroy(self._inst)

    @property
    def worker_pid(self) -> int | None:
        """The pid of the worker hosting this instance right now (``None`` when it is not placed)."""
        return self.pool.worker_pid(self._inst)

    def __del__(self) -> None:
        inst = getattr(self, "_inst", None)
        if inst is not None and not inst.closed:
            self.pool.drop(inst)  # no lock from a finaliser: destroyed at the pool's next operation


def sandboxed_handle_factory(
    source: str, *, env_id: str | None = None, pool: WorkerPool | None = None, module: str = "env",
    budget: TimeBudget | None = None, family: str | None = None,
) -> HandleFactory:
    """The handle factory ``SpadeEnv`` uses for designer code: ``knobs -> SandboxedInnerEnv``; every call of the
    instances it makes is charged to ``budget`` (if any); ``family``: see :meth:`WorkerPool.create`."""

    def factory(knobs: Mapping[str, Any]) -> InnerEnvHandle:
        return SandboxedInnerEnv(source, env_id=env_id, knobs=knobs, pool=pool, module=module, budget=budget,
                                 family=family)

    return factory


def load_env_module(
    source: str, *, env_id: str | None = None, pool: WorkerPool | None = None, module: str = "env",
    budget: TimeBudget | None = None,
) -> LoadResult:
    """Run designer code once in the sandbox and return its raw ``ENV_SPEC`` and class name, or the error.

    ``result.error`` is a :class:`~spade_core.errors.SandboxPolicyError` (the policy refused the code, with line
    numbers), :class:`~spade_core.errors.EnvCodeError` (module code raised, or a syntax error),
    :class:`~spade_core.errors.EnvLoadError` (no single environment class), or a timeout/memory/crash error.
    """
    return (pool or default_pool()).load(source, env_id=env_id, module=module, budget=budget)


def step_many(handles: Sequence[SandboxedInnerEnv], actions: Sequence[str]) -> list[Any]:
    """Step many sandboxed instances at once (one message per worker); results are raw values or errors."""
    if len(handles) != len(actions):
        raise ValueError(f"step_many: {len(handles)} handles but {len(actions)} actions")
    return call_many([(h, "step", a) for h, a in zip(handles, actions)])


def call_many(calls: Sequence[tuple[SandboxedInnerEnv, str, Any]]) -> list[Any]:
    """Batch ``reset``/``step``/``hint``/``ref`` calls; handles may live in different pools."""
    out: list[Any] = [None] * len(calls)
    by_pool: dict[int, tuple[WorkerPool, list[int]]] = {}
    for i, (handle, _, _) in enumerate(calls):
        by_pool.setdefault(id(handle.pool), (handle.pool, []))[1].append(i)
    for pool, indices in by_pool.values():
        batch = []
        for i in indices:
            handle, method, arg = calls[i]
            if method == "reset":
                seed, options = arg
                arg = [int(seed), wire.to_wire(dict(options or {}))]
            batch.append((handle._inst, method, arg))
        for i, result in zip(indices, pool.call_many(batch)):
            out[i] = result
    return out


__all__ = ["SandboxedInnerEnv", "LoadResult", "SpadeError", "call_many", "load_env_module",
           "sandboxed_handle_factory", "step_many"]
