"""Every knob of ``spade serve`` in one place, importable without OpenEnv (the CLI reads its defaults here)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ServeConfig:
    """Every knob of ``spade serve``, in one place."""

    env_ids: tuple[str, ...]
    max_sessions: int = 256
    idle_timeout_s: float = 300.0
    step_timeout_s: float = 30.0
    """Every step's and reset's time limit; a floor no client can lower (a client's ``timeout_s`` is ignored)."""
    max_abandoned_steps: int = 8
    """Steps past their limit still running in their threads, over all sessions; at the cap new steps are refused."""
    learner_seat: int = 0
