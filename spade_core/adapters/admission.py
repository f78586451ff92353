"""Who may run a step on ``spade serve`` now: worker slots shared fairly between clients, with a queue deadline.

A *client* is the peer address of a connection, refined by the ``X-Spade-Client`` header when it sends one (so
several trainers behind one proxy are told apart). Every reset and step takes one of ``worker_slots`` slots for as
long as its work runs and gives it back when the work returns (a step abandoned at the step limit keeps its slot
until its thread returns, so slow work is paid for by the client that sent it). A client holds at most
``steps_per_client`` slots at once. A step that cannot get a slot waits in the queue; when a slot frees it goes to
the waiting client holding the fewest slots (the longest-waiting first among equals), so an honest client is served
next however many steps other clients have queued. A step still queued after ``queue_timeout_s`` is refused with a
"busy, retry after" error; nothing waits without a bound.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections import Counter
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

from spade_core import linear_re
from spade_core.adapters.session import SessionError

CLIENT_HEADER = b"x-spade-client"
"""The header a client may send to name itself; its value refines the peer address (see :func:`client_key`)."""
CLIENT_ID = linear_re.compile(r"[A-Za-z0-9._:-]{1,64}")
"""The allowed client names: short, printable, no spaces."""
UNKNOWN_PEER = "unknown-peer"

current_client: contextvars.ContextVar[str] = contextvars.ContextVar("spade_serve_client", default=UNKNOWN_PEER)
"""The client of the request or WebSocket being served (set by :class:`~spade_core.adapters.request_limits.
RequestLimits` for each connection)."""


class ServerBusy(SessionError):
    """No worker slot freed in time, or the client is at one of its quotas: retry later."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class BadClientId(SessionError):
    """The ``X-Spade-Client`` header is not an allowed client name."""


def client_key(scope: MutableMapping[str, Any]) -> str:
    """``host`` of the peer, or ``host/name`` when the connection sends ``X-Spade-Client: name``."""
    peer = scope.get("client")
    host = str(peer[0]) if peer else UNKNOWN_PEER
    named = dict(scope.get("headers") or []).get(CLIENT_HEADER)
    if named is None:
        return host
    name = named.decode("latin-1")
    if not CLIENT_ID.fullmatch(name):
        raise BadClientId(f"the X-Spade-Client header {name[:80]!r} is not a client name: use 1-64 characters of "
                          "letters, digits and . _ : -")
    return f"{host}/{name}"


@dataclass(eq=False)
class _Waiter:
    client: str
    future: asyncio.Future[None]
    loop: asyncio.AbstractEventLoop
    since: float
    granted: bool = False


@dataclass
class Admission:
    """``slots`` worker slots shared between clients; see the module docstring."""

    slots: int
    per_client: int
    queue_timeout_s: float
    _held: Counter[str] = field(default_factory=Counter)
    _waiting: list[_Waiter] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    _in_use: int = 0

    @property
    def in_use(self) -> int:
        return self._in_use

    def _take(self, client: str) -> None:
        self._held[client] += 1
        self._in_use += 1

    def held(self, client: str) -> int:
        return self._held[client]

    async def acquire(self, client: str) -> None:
        """Take a slot for ``client``, waiting at most ``queue_timeout_s``; else :class:`ServerBusy`."""
        with self._lock:  # a free slot and nobody waiting: take it without queueing
            if not self._waiting and self._in_use < self.slots and self._held[client] < self.per_client:
                self._take(client)
                return
        loop = asyncio.get_running_loop()
        waiter = _Waiter(client, loop.create_future(), loop, time.monotonic())
        with self._lock:
            self._waiting.append(waiter)
            self._grant()
        try:
            await asyncio.wait_for(asyncio.shield(waiter.future), self.queue_timeout_s)
        except BaseException as exc:
            granted, timed_out = self._withdraw(waiter), isinstance(exc, TimeoutError)
            if granted and timed_out:
                return  # the slot came just as the wait ended: use it
            if granted:
                self.release(client)
            if not timed_out:
                raise
            with self._lock:
                queued, held = len(self._waiting), self._held[client]
            raise ServerBusy(
                f"the server is busy: no worker slot freed within {self.queue_timeout_s:g} s "
                f"({self.slots} slots, ServeConfig.worker_slots; this client holds {held} of its "
                f"{self.per_client}, ServeConfig.steps_per_client; {queued} steps queued); retry after "
                f"{self.queue_timeout_s:g} s", retry_after_s=self.queue_timeout_s) from None

    def _withdraw(self, waiter: _Waiter) -> bool:
        """Take ``waiter`` out of the queue; True when it had been granted a slot meanwhile (still held)."""
        with self._lock:
            if not waiter.granted:
                self._waiting.remove(waiter)
            return waiter.granted

    def release(self, client: str) -> None:
        """Give back a slot ``client`` held (thread-safe: called when a step's work returns, in its thread)."""
        with self._lock:
            self._held[client] -= 1
            self._in_use -= 1
            if self._held[client] <= 0:
                del self._held[client]
            self._grant()

    def _grant(self) -> None:
        """Under the lock: hand free slots to the waiting clients holding the fewest, oldest waiter first."""
        while self._waiting and self._in_use < self.slots:
            eligible = [w for w in self._waiting if self._held[w.client] < self.per_client]
            if not eligible:
                return
            chosen = min(eligible, key=lambda w: (self._held[w.client], w.since))
            self._waiting.remove(chosen)
            self._take(chosen.client)
            chosen.granted = True
            chosen.loop.call_soon_threadsafe(_wake, chosen.future)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)

