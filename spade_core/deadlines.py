"""When a phase stops starting new work: a :class:`Deadline` (a point on the monotonic clock, and a stop request
that expires it at once).

A phase that is given a deadline checks it before the work it would start (a rollout turn or episode, a designer
round or repair attempt, a small-world arm), never after: past it, the phase starts nothing new and ends what is
running in the way it documents. A stop request (SIGTERM, Ctrl-C: :class:`StopRequest`) expires every deadline
that shares it, wherever the phase is.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field


@dataclass
class StopRequest:
    """Set once (by a signal handler, say); every :class:`Deadline` built on it is expired from then on."""

    reason: str | None = None  # what asked to stop, e.g. "SIGTERM"
    _event: threading.Event = field(default_factory=threading.Event, repr=False)

    def request(self, reason: str) -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    @property
    def requested(self) -> bool:
        return self._event.is_set()


@dataclass(frozen=True)
class Deadline:
    """``at``: a :func:`time.monotonic` time (None: no time limit); ``stop``: a shared stop request (None: none)."""

    at: float | None = None
    stop: StopRequest | None = None

    @classmethod
    def after(cls, seconds: float, stop: StopRequest | None = None) -> Deadline:
        """The deadline ``seconds`` from now."""
        return cls(time.monotonic() + seconds, stop)

    def expired(self) -> bool:
        if self.stop is not None and self.stop.requested:
            return True
        return self.at is not None and time.monotonic() >= self.at

    def remaining(self) -> float:
        """Seconds left (0 once expired; infinity without a time limit)."""
        if self.stop is not None and self.stop.requested:
            return 0.0
        return math.inf if self.at is None else max(0.0, self.at - time.monotonic())


NO_DEADLINE = Deadline()
"""Never expires: what a phase runs under when nobody bounds it."""
