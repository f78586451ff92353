"""Start or join Ray for a SPADE run: a local instance (``num_cpus``) or an existing cluster (an address).

Only :mod:`spade_core.scale` imports Ray, and only once Ray is enabled: :func:`require_ray` turns a missing
installation into :class:`~spade_core.scale.errors.RayNotInstalledError` with the install command.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from spade_core.scale.errors import RayConnectError, RayNotInstalledError

LOCAL = "local"
"""The address that means "start a local instance" (also what a bare ``--ray`` gives)."""


def require_ray() -> ModuleType:
    """The ``ray`` module, or a :class:`RayNotInstalledError` that says how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise RayNotInstalledError(str(exc)) from exc
    return ray


@dataclass
class RayRuntime:
    """A connection to Ray. ``started_here``: this process started the instance, so :meth:`shutdown` stops it;
    joining a running instance (an address, or Ray already initialised by the caller) leaves it running."""

    address: str | None
    started_here: bool
    info: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, address: str | None = None, *, num_cpus: int | None = None, log_to_driver: bool = False,
              runtime_env: dict[str, Any] | None = None) -> RayRuntime:
        """Join Ray if this process is already connected; else start a local instance (``address`` None or
        ``"local"``, with ``num_cpus``) or join the cluster at ``address`` (``"auto"``, ``"ray://host:10001"``)."""
        ray = require_ray()
        if ray.is_initialized():
            return cls(address=address, started_here=False, info=_context_info(ray))
        local = address in (None, "", LOCAL)
        kwargs: dict[str, Any] = {
            "include_dashboard": False, "logging_level": logging.WARNING, "log_to_driver": log_to_driver,
            "configure_logging": True,
        }
        if runtime_env:
            kwargs["runtime_env"] = runtime_env
        if local:
            if num_cpus is not None:
                kwargs["num_cpus"] = int(num_cpus)
        else:
            kwargs["address"] = address
        try:
            context = ray.init(**kwargs)
        except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError, ...
            where = "a local Ray instance" if local else f"the Ray cluster at {address!r}"
            hint = ("check that this machine can start processes and has free shared memory (/dev/shm)" if local else
                    "check the address (`ray status` on the head node prints it; use 'auto' on a cluster node, "
                    "'ray://<head>:10001' from outside) and that the cluster runs the same Ray and Python versions")
            raise RayConnectError(f"could not start or join {where}: {type(exc).__name__}: {exc}; {hint}") from exc
        runtime = cls(address=None if local else address, started_here=True, info=_context_info(ray))
        runtime.info.setdefault("dashboard_url", getattr(context, "dashboard_url", None))
        return runtime

    def nodes(self) -> list[dict[str, Any]]:
        """The cluster's live nodes: id, host name, address and CPUs."""
        ray = require_ray()
        return [{"node_id": n["NodeID"], "hostname": n.get("NodeManagerHostname", ""),
                 "address": n.get("NodeManagerAddress", ""), "cpus": n.get("Resources", {}).get("CPU", 0.0)}
                for n in ray.nodes() if n.get("Alive")]

    def cpus(self) -> float:
        """CPUs of the whole cluster (what Ray schedules tasks against)."""
        ray = require_ray()
        return float(ray.cluster_resources().get("CPU", 0.0))

    def shutdown(self) -> None:
        """Stop the local instance this process started (actors and workers with it); a joined one keeps running."""
        ray = require_ray()
        if self.started_here and ray.is_initialized():
            ray.shutdown()
        self.started_here = False


def kill_actor(actor: Any, *, restart: bool = False) -> None:
    """End ``actor`` (Ray restarts it only with ``restart``); one that is already gone is no error."""
    ray = require_ray()
    try:
        ray.kill(actor, no_restart=not restart)
    except Exception:  # it may already be gone
        pass


def _context_info(ray: ModuleType) -> dict[str, Any]:
    context = ray.get_runtime_context()
    return {"node_id": context.get_node_id(), "job_id": context.get_job_id()}
