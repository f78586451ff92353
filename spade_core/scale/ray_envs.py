"""SPADE environments hosted by Ray actors, and the client side the episode runner drives.

- :class:`EnvHost` is the actor: it makes environments with ``gymnasium.make("spade/<id>")`` in its own process, so
  designer code runs in *that* process's sandbox pool (its own launcher and workers, on whatever node Ray placed the
  actor). It answers batches: one ``reset_many``/``step_many`` message carries every call for its environments.
- :class:`RayEnvGroup` owns the actors for a whole run (started once, replaced if one is lost) and counts where
  environments ran. :meth:`RayEnvGroup.pool` gives each :meth:`EpisodeRunner.run` a :class:`RayEnvPool`, which
  places new environments on the least-loaded live actor and sends each round's calls as one message per actor.
- :class:`RayEnv` is the client handle of one hosted environment (what ``acquire`` returns): it keeps the manifest
  and, for hinted episodes, the privileged hint the actor computed right after each reset/step, so the runner's
  per-turn hint lookup costs no extra round trip.

Failures stay per episode: a remote exception comes back as :class:`~spade_core.scale.errors.RemoteEnvError`; an
actor that dies or does not answer within ``call_timeout_s`` turns every call it had into
:class:`~spade_core.scale.errors.EnvActorLostError` (the runner records an environment failure for those episodes),
is killed (Ray restarts it) and gets no new environments for the rest of that run.
"""

from __future__ import annotations

import itertools
import os
import socket
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from spade_core.contract.env import HINT_OPTION
from spade_core.rollout.env_pool import ResetResult, StepResult, env_key
from spade_core.rollout.specs import EpisodeSpec
from spade_core.scale.errors import EnvActorLostError, RemoteEnvError, ScaleError
from spade_core.scale.ray_runtime import kill_actor, require_ray

ray = require_ray()
from ray.exceptions import RayError  # noqa: E402 - after the check that says how to install Ray

_OK, _ERR = "ok", "err"


def _error(exc: BaseException) -> tuple[str, str, str]:
    return (_ERR, type(exc).__name__, str(exc))


def _plain_info(info: Any) -> Any:
    """Info as the runner reads it: a ``sandbox_error`` exception becomes its text (exceptions with custom
    constructors do not survive pickling faithfully; the runner only ever uses ``str()`` of it)."""
    if isinstance(info, dict) and isinstance(info.get("sandbox_error"), BaseException):
        return {**info, "sandbox_error": str(info["sandbox_error"])}
    return info


@dataclass
class _Hosted:
    env: Any
    hinted: bool = False
    has_hint: bool = False


class EnvHost:
    """The Ray actor body (see the module docstring). Keys are chosen by the client and unique per actor group."""

    def __init__(self, store: str | None = None) -> None:
        import spade_core  # noqa: F401 - registers the default store's environments, like any SPADE process
        from spade_core.gym_bridge import register_store

        self.store = store
        self.envs: dict[int, _Hosted] = {}
        if store is not None:  # then the run's store, as the driver does: the same ids resolve to the same records
            register_store(store, sync_seeds=False)

    def location(self) -> dict[str, Any]:
        """Where this actor runs (node, host, pid)."""
        context = ray.get_runtime_context()
        return {"node_id": context.get_node_id(), "actor_id": context.get_actor_id(),
                "hostname": socket.gethostname(), "pid": os.getpid()}

    def _make(self, env_id: str, kwargs: Mapping[str, Any]) -> Any:
        import gymnasium as gym

        from spade_core.gym_bridge import register_store

        if env_id not in gym.registry:
            register_store(self.store, sync_seeds=False)  # accepted since this actor started
        return gym.make(env_id, **dict(kwargs))

    def _hint(self, hosted: _Hosted) -> tuple[str, ...] | None:
        if not (hosted.hinted and hosted.has_hint):
            return None
        try:
            return (_OK, hosted.env.unwrapped.privileged_hint())
        except Exception as exc:  # sent back; raised only if the runner asks for the hint
            return _error(exc)

    def reset_many(self, calls: Sequence[tuple[int, str, Mapping[str, Any], int, dict[str, Any] | None]]
                   ) -> list[tuple[Any, ...]]:
        """Make (if new) and reset each ``(key, env_id, env_kwargs, seed, options)``; one result per call."""
        out: list[tuple[Any, ...]] = []
        for key, env_id, kwargs, seed, options in calls:
            try:
                hosted = self.envs.get(key)
                made = hosted is None
                if hosted is None:
                    env = self._make(env_id, kwargs)
                    hosted = self.envs[key] = _Hosted(
                        env, has_hint=callable(getattr(env.unwrapped, "privileged_hint", None)))
                hosted.hinted = bool((options or {}).get(HINT_OPTION))
                obs, info = hosted.env.reset(seed=seed, options=options)
                hint = None if isinstance(info.get(HINT_OPTION), str) else self._hint(hosted)
                manifest = getattr(hosted.env.unwrapped, "manifest", None) if made else None
                out.append((_OK, obs, _plain_info(info), hint, hosted.has_hint, manifest))
            except Exception as exc:  # one environment's failure is that episode's failure
                out.append(_error(exc))
        return out

    def step_many(self, calls: Sequence[tuple[int, str]]) -> list[tuple[Any, ...]]:
        """Step each ``(key, action)``; one result per call (with the next hint for hinted episodes)."""
        out: list[tuple[Any, ...]] = []
        for key, action in calls:
            hosted = self.envs.get(key)
            if hosted is None:
                out.append((_ERR, "EnvNotHosted", f"environment #{key} is not on this actor: its reset failed, it "
                                                  "was closed, or the actor restarted since"))
                continue
            try:
                obs, reward, terminated, truncated, info = hosted.env.step(action)
                hint = None if (terminated or truncated) else self._hint(hosted)
                out.append((_OK, obs, float(reward), bool(terminated), bool(truncated), _plain_info(info), hint))
            except Exception as exc:
                out.append(_error(exc))
        return out

    def close_envs(self, keys: Sequence[int]) -> int:
        """Close and forget these environments (their sandbox instances are freed); returns how many were here."""
        closed = 0
        for key in keys:
            hosted = self.envs.pop(key, None)
            if hosted is not None:
                closed += 1
                try:
                    hosted.env.close()
                except Exception:  # closing a broken environment must not fail the others
                    pass
        return closed

    def hosted(self) -> int:
        return len(self.envs)


_EnvHostActor = ray.remote(EnvHost)


class RayEnv:
    """Client handle of one environment on an env actor. The runner drives it through :class:`RayEnvPool`'s
    batched calls; :meth:`reset`/:meth:`step` here are one round trip each (for direct use)."""

    def __init__(self, pool: RayEnvPool, slot: int, key: int, spec: EpisodeSpec) -> None:
        self.pool = pool
        self.slot = slot
        self.key = key
        self.env_id = spec.env_id
        self.env_kwargs = dict(spec.env_kwargs)
        self.manifest: Any = None
        self._has_hint = False
        self._hint: tuple[Any, ...] | None = None

    @property
    def unwrapped(self) -> RayEnv:
        return self

    @property
    def privileged_hint(self) -> Any:
        """Like ``SpadeEnv.privileged_hint`` (a method) when the hosted environment has one, else ``None``: the hint
        the actor computed after the last reset/step, so asking for it costs no round trip."""
        return self._current_hint if self._has_hint else None

    def _current_hint(self) -> str:
        if self._hint is None:
            raise RemoteEnvError(f"no hint was computed for this episode (reset with options={{{HINT_OPTION!r}: True}})",
                                 error_type="RuntimeError", where=self.pool.group.where(self.slot))
        if self._hint[0] == _ERR:
            raise RemoteEnvError(self._hint[2], error_type=self._hint[1], where=self.pool.group.where(self.slot))
        return self._hint[1]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> ResetResult:
        result = self.pool.reset_many([(self, seed, options)])[0]
        if isinstance(result, BaseException):
            raise result
        return result

    def step(self, action: str) -> StepResult:
        result = self.pool.step_many([(self, action)])[0]
        if isinstance(result, BaseException):
            raise result
        return result

    def close(self) -> None:
        self.pool.release_env(self)


@dataclass
class _Slot:
    index: int
    actor: Any
    location: dict[str, Any] = field(default_factory=dict)
    lost: str | None = None  # why this actor gets no new environments in the current run
    counts: Counter[str] = field(default_factory=Counter)


class RayEnvGroup:
    """``num_actors`` env actors, kept for a whole run; see the module docstring."""

    def __init__(self, num_actors: int, *, store: str | None = None, actor_cpus: float = 0.25,
                 call_timeout_s: float = 120.0, max_restarts: int = 3, spread: bool = True) -> None:
        if num_actors < 1:
            raise ScaleError(f"ray.num_env_actors must be >= 1, got {num_actors}")
        self.store = store
        self.call_timeout_s = float(call_timeout_s)
        self._options: dict[str, Any] = {"num_cpus": actor_cpus, "max_restarts": max_restarts}
        if spread:
            self._options["scheduling_strategy"] = "SPREAD"
        if os.environ.get("SPADE_STORE"):  # actors on other nodes get the driver's default store too
            self._options["runtime_env"] = {"env_vars": {"SPADE_STORE": os.environ["SPADE_STORE"]}}
        self._keys = itertools.count(1)
        self.replaced = 0
        self.slots = [_Slot(i, self._new_actor()) for i in range(num_actors)]
        self.refresh()

    def _new_actor(self) -> Any:
        return _EnvHostActor.options(**self._options).remote(self.store)

    def refresh(self) -> None:
        """Ask every actor where it runs; replace the ones that do not answer (start of every run)."""
        refs = [slot.actor.location.remote() for slot in self.slots]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=self.call_timeout_s)
        for slot, ref in zip(self.slots, refs):
            try:
                if ref not in ready:
                    raise EnvActorLostError(f"no answer in {self.call_timeout_s:.0f} s")
                slot.location = ray.get(ref)
                slot.lost = None
            except (RayError, EnvActorLostError) as exc:
                kill_actor(slot.actor)
                slot.actor = self._new_actor()
                slot.lost = None
                slot.counts["replaced"] += 1
                self.replaced += 1
                try:
                    slot.location = ray.get(slot.actor.location.remote(), timeout=self.call_timeout_s)
                except RayError as again:
                    slot.lost = f"could not start a replacement env actor: {again}"
                    slot.location = {"error": f"{type(exc).__name__}: {exc}"}

    def next_key(self) -> int:
        return next(self._keys)

    def where(self, index: int) -> str:
        location = self.slots[index].location
        return f"env actor {index} ({location.get('hostname', '?')}, pid {location.get('pid', '?')})"

    def mark_lost(self, index: int, reason: str, *, kill: bool) -> None:
        """No new environments on this actor in the current run; ``kill`` ends a stuck actor (Ray restarts it)."""
        slot = self.slots[index]
        if slot.lost is None:
            slot.counts["lost"] += 1
        slot.lost = reason
        if kill:
            kill_actor(slot.actor, restart=True)

    def pool(self) -> RayEnvPool:
        """A fresh pool for one :meth:`EpisodeRunner.run` (checks the actors first)."""
        self.refresh()
        return RayEnvPool(self)

    def take_stats(self) -> list[dict[str, Any]]:
        """Per actor: where it runs and what it did since the last call (environments made, resets, steps,
        failures); the counters restart at zero."""
        out = []
        for slot in self.slots:
            out.append({"actor": slot.index, **{k: v for k, v in slot.location.items() if k != "actor_id"},
                        **{k: int(v) for k, v in sorted(slot.counts.items())}})
            slot.counts.clear()
        return out

    def shutdown(self) -> None:
        """Kill every env actor (their sandbox launchers and workers exit with them)."""
        for slot in self.slots:
            kill_actor(slot.actor)
        self.slots = []


class RayEnvPool:
    """One run's environments on a :class:`RayEnvGroup` (an :class:`~spade_core.rollout.env_pool.EnvPool`)."""

    def __init__(self, group: RayEnvGroup) -> None:
        self.group = group
        self.idle: dict[str, list[RayEnv]] = {}
        self.live: dict[int, RayEnv] = {}
        self.load: Counter[int] = Counter()

    # -- placement ------------------------------------------------------------------------------------------
    def acquire(self, spec: EpisodeSpec) -> RayEnv:
        idle = self.idle.get(env_key(spec))
        while idle:
            env = idle.pop()
            if self.group.slots[env.slot].lost is None:
                return env
            self._forget(env)
        live = [s.index for s in self.group.slots if s.lost is None]
        if not live:
            reasons = "; ".join(f"{self.group.where(s.index)}: {s.lost}" for s in self.group.slots)
            raise EnvActorLostError(f"no live env actor to host {spec.env_id} ({reasons}); the next run replaces "
                                    "them — check `ray status` if this repeats")
        slot = min(live, key=lambda i: (self.load[i], i))
        env = RayEnv(self, slot, self.group.next_key(), spec)
        self.live[env.key] = env
        self.load[slot] += 1
        self.group.slots[slot].counts["envs"] += 1
        return env

    def release(self, spec: EpisodeSpec, env: RayEnv, *, broken: bool) -> None:
        if broken or self.group.slots[env.slot].lost is not None:
            self.release_env(env)
        else:
            self.idle.setdefault(env_key(spec), []).append(env)

    def release_env(self, env: RayEnv) -> None:
        """Close one environment on its actor (without waiting for the answer)."""
        if self._forget(env) and self.group.slots[env.slot].lost is None:
            self.group.slots[env.slot].actor.close_envs.remote([env.key])

    def _forget(self, env: RayEnv) -> bool:
        if self.live.pop(env.key, None) is None:
            return False
        self.load[env.slot] -= 1
        return True

    def close(self) -> None:
        """Close this run's environments on every live actor (waits, bounded, so the next run starts clean)."""
        by_slot: dict[int, list[int]] = {}
        for env in self.live.values():
            by_slot.setdefault(env.slot, []).append(env.key)
        refs = [self.group.slots[s].actor.close_envs.remote(keys) for s, keys in by_slot.items()
                if self.group.slots[s].lost is None]
        if refs:
            ray.wait(refs, num_returns=len(refs), timeout=min(30.0, self.group.call_timeout_s))
        self.live, self.idle, self.load = {}, {}, Counter()

    # -- batched calls ----------------------------------------------------------------------------------------
    def reset_many(self, calls: Sequence[tuple[RayEnv, int | None, dict[str, Any] | None]]
                   ) -> list[ResetResult | BaseException]:
        payloads = [(env.key, env.env_id, env.env_kwargs, seed, options) for env, seed, options in calls]
        raw = self._call("reset_many", [env for env, _, _ in calls], payloads, count="resets")
        out: list[ResetResult | BaseException] = []
        for (env, _, _), result in zip(calls, raw, strict=True):
            if isinstance(result, BaseException):
                out.append(result)
                continue
            _, obs, info, hint, has_hint, manifest = result
            if manifest is not None:
                env.manifest = manifest
            env._has_hint, env._hint = has_hint, hint
            out.append((obs, info))
        return out

    def step_many(self, calls: Sequence[tuple[RayEnv, str]]) -> list[StepResult | BaseException]:
        raw = self._call("step_many", [env for env, _ in calls], [(env.key, a) for env, a in calls], count="steps")
        out: list[StepResult | BaseException] = []
        for (env, _), result in zip(calls, raw, strict=True):
            if isinstance(result, BaseException):
                out.append(result)
                continue
            _, obs, reward, terminated, truncated, info, hint = result
            env._hint = hint
            out.append((obs, reward, terminated, truncated, info))
        return out

    def _call(self, method: str, envs: list[RayEnv], payloads: list[Any], *, count: str) -> list[Any]:
        """One ``method`` message per actor with its share of ``payloads``; results (or errors) in input order."""
        out: list[Any] = [None] * len(envs)
        by_slot: dict[int, list[int]] = {}
        for i, env in enumerate(envs):
            if self.group.slots[env.slot].lost is not None:
                out[i] = EnvActorLostError(f"{self.group.where(env.slot)} was lost: {self.group.slots[env.slot].lost}")
            else:
                by_slot.setdefault(env.slot, []).append(i)
        if not by_slot:
            return out
        refs = {s: getattr(self.group.slots[s].actor, method).remote([payloads[i] for i in idx])
                for s, idx in by_slot.items()}
        ready, _ = ray.wait(list(refs.values()), num_returns=len(refs), timeout=self.group.call_timeout_s)
        ready_ids = {r.hex() for r in ready}
        for s, ref in refs.items():
            slot = self.group.slots[s]
            indices = by_slot[s]
            where = self.group.where(s)
            try:
                if ref.hex() not in ready_ids:
                    reason = f"no answer to {method} within {self.group.call_timeout_s:.0f} s"
                    self.group.mark_lost(s, reason, kill=True)
                    raise EnvActorLostError(f"{where}: {reason}")
                values = ray.get(ref)
            except RayError as exc:
                self.group.mark_lost(s, f"{type(exc).__name__}", kill=False)
                lost = EnvActorLostError(f"{where} died during {method}: {type(exc).__name__}: {_first_line(exc)}")
                for i in indices:
                    out[i] = lost
                slot.counts["failures"] += len(indices)
                continue
            except EnvActorLostError as lost:
                for i in indices:
                    out[i] = lost
                slot.counts["failures"] += len(indices)
                continue
            slot.counts[count] += len(indices)
            for i, value in zip(indices, values, strict=True):
                if value[0] == _OK:
                    out[i] = value
                    continue
                slot.counts["errors"] += 1
                out[i] = RemoteEnvError(value[2], error_type=value[1], where=where)
        return out


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""
