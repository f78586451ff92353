"""The Gymnasium entry point for every ``spade/<Name>-v<N>`` id: build a :class:`SpadeEnv` from its record."""

from __future__ import annotations

from typing import Any

from spade_core.contract.env import SpadeEnv
from spade_core.contract.inner import HandleFactory, LocalInnerEnv, load_trusted_module
from spade_core.errors import EnvLoadError
from spade_core.gym_bridge.stores import open_store
from spade_core.sandbox.budgets import TimeBudget
from spade_registry.manifest import EnvManifest
from spade_registry.records import Record, Trust

ENTRY_POINT = "spade_core.gym_bridge.make:make_env"


def make_env(env_id: str, store: str | None = None, render_mode: str | None = None, **knobs: Any) -> SpadeEnv:
    """Gymnasium entry point: the record's code behind a checked ``SpadeEnv``; ``knobs`` are difficulty knobs."""
    record = open_store(store).get(env_id)
    return env_from_record(record, knobs=knobs, render_mode=render_mode)


def env_from_record(record: Record, *, knobs: dict[str, Any] | None = None, render_mode: str | None = None) -> SpadeEnv:
    """A ``SpadeEnv`` for a stored record: bundled code in-process, designer code in the sandbox."""
    where = record.env_id or f"record #{record.rid}"
    manifest = EnvManifest.from_dict(record.manifest, source=f"{where} ENV_SPEC")
    return SpadeEnv(manifest, handle_factory(record), knobs=knobs, env_id=where, render_mode=render_mode)


def handle_factory(record: Record) -> HandleFactory:
    """How to start one running instance of the record's code."""
    if record.trust is Trust.BUNDLED:
        if not record.module:
            raise EnvLoadError(f"bundled record #{record.rid} has no module path")
        _, cls = load_trusted_module(record.module)
        return lambda knobs: LocalInnerEnv(cls, knobs)
    return designer_handle_factory(record.code, env_id=record.env_id or f"record #{record.rid}")


def designer_handle_factory(code: str, *, env_id: str, budget: TimeBudget | None = None,
                            family: str | None = None) -> HandleFactory:
    """Designer code only ever runs in the sandbox (its calls charged to ``budget``, if any; ``family``: variants
    of one record that may share a worker, see :meth:`~spade_core.sandbox.pool.WorkerPool.create`)."""
    from spade_core.sandbox import sandboxed_handle_factory

    return sandboxed_handle_factory(code, env_id=env_id, budget=budget, family=family)
