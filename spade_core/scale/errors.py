"""Typed errors of the Ray scale-out (:mod:`spade_core.scale`); importing this module never imports Ray."""

from __future__ import annotations

from spade_core.errors import SpadeError


class ScaleError(SpadeError):
    """Base class of scale-out errors (Ray missing, cluster unreachable, a remote environment or actor failed)."""


class RayNotInstalledError(ScaleError, ImportError):
    """Ray is needed (``--ray`` / ``ray.enabled``) but not installed."""

    def __init__(self, detail: str = "") -> None:
        extra = f" ({detail})" if detail else ""
        super().__init__(
            f"Ray is not installed{extra}, but the run asks for Ray (--ray or ray.enabled/ray.address in the config). "
            'Install it with: pip install "spade-rl[ray]"  — or drop --ray to run on this machine only.'
        )


class RayConnectError(ScaleError):
    """Ray could not be started locally or the cluster at the given address could not be joined."""


class RemoteEnvError(ScaleError):
    """An environment hosted by a Ray env actor raised; the message names the original error type and text."""

    def __init__(self, message: str, *, error_type: str = "Exception", where: str = "") -> None:
        self.error_type = error_type
        self.where = where
        super().__init__(f"{error_type}: {message}" + (f" (on {where})" if where else ""))


class EnvActorLostError(ScaleError):
    """A Ray env actor died or stopped answering; the episodes it hosted end with an environment failure."""
