"""Every knob of ``spade serve`` in one place, importable without OpenEnv (the CLI reads its defaults here)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_ACTION_CHARS = 65_536
"""Longer actions are refused by the request model, before they reach an environment (which has its own limit)."""
JSON_BYTES_PER_CHAR = 6
"""The most bytes JSON spends on one character of a string (``\\uXXXX``; a surrogate pair is 12 for 2)."""
ENVELOPE_BYTES = 64 * 1024
"""Room for everything in a request beside the action (type, seed, env_id, episode id, JSON punctuation)."""
MAX_MESSAGE_BYTES = MAX_ACTION_CHARS * JSON_BYTES_PER_CHAR + ENVELOPE_BYTES
"""The largest request body or WebSocket message a client may send: a step with the largest action, every character
escaped. Larger ones are refused while they are read, before they are parsed."""

@dataclass(frozen=True)
class ServeConfig:
    """Every knob of ``spade serve``, in one place."""

    env_ids: tuple[str, ...]
    max_sessions: int = 256
    idle_timeout_s: float = 300.0
    step_timeout_s: float = 30.0
    """Every step's and reset's time limit; a floor no client can lower (a client's ``timeout_s`` is ignored)."""
    max_abandoned_steps: int = 8
    """Steps past their limit still running in their threads, per client; at the cap that client's new steps are
    refused at once (each still holds its worker slot until it returns)."""
    learner_seat: int = 0
    max_concurrent_requests: int = 64
    """HTTP requests in progress at once (WebSocket sessions are capped by ``max_sessions``); past it: 503."""
    worker_slots: int = 32
    """Resets and steps running at once over all sessions (threads); a slot is held only while its work runs."""
    steps_per_client: int = 16
    """Worker slots one client (peer address, or address and ``X-Spade-Client`` header) may hold at once: half the
    slots by default, so one trainer with many sessions runs in parallel and another client still finds slots."""
    sessions_per_client: int = 128
    """WebSocket sessions one client may hold open; past it the new connection is closed with code 1013."""
    queue_timeout_s: float = 10.0
    """How long a reset or step waits for a worker slot before it is refused with "busy, retry after"."""

    def uvicorn_settings(self) -> dict[str, Any]:
        """What uvicorn itself must enforce: the largest WebSocket message."""
        return {"ws_max_size": MAX_MESSAGE_BYTES}
