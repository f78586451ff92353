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
import itertools
import threading
from collections import Counter, deque
from collections.abc import Iterator, MutableMapping
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
    """One queued reset or step: its future is resolved True when granted a slot, False when its deadline passed."""

    client: str
    future: asyncio.Future[bool]
    order: int
    """Arrival order over all clients (the longest-waiting first among clients holding equally many slots)."""
    thread: int
    """The thread of the future's event loop: a grant made on it resolves the future at once, without a wakeup."""
    granted: bool = False


@dataclass
class Admission:
    """``slots`` worker slots shared between clients; see the module docstring.

    Waiters queue per client (first come, first served within a client), so choosing the next grant looks at the
    clients with waiters, not at every waiting step, and never scans the queue."""

    slots: int
    per_client: int
    queue_timeout_s: float
    _held: Counter[str] = field(default_factory=Counter)
    _queues: dict[str, deque[_Waiter]] = field(default_factory=dict)
    _arrivals: Iterator[int] = field(default_factory=itertools.count)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    _in_use: int = 0

    @property
    def in_use(self) -> int:
        return self._in_use

    @property
    def queued(self) -> int:
        with self._lock:
            return sum(len(queue) for queue in self._queues.values())

    def _take(self, client: str) -> None:
        self._held[client] += 1
        self._in_use += 1

    def held(self, client: str) -> int:
        return self._held[client]

    async def acquire(self, client: str) -> None:
        """Take a slot for ``client``, waiting at most ``queue_timeout_s``; else :class:`ServerBusy`."""
        loop = asyncio.get_running_loop()
        with self._lock:  # a free slot and nobody waiting: take it without queueing
            if not self._queues and self._in_use < self.slots and self._held[client] < self.per_client:
                self._take(client)
                return
            waiter = _Waiter(client, loop.create_future(), next(self._arrivals), threading.get_ident())
            self._queues.setdefault(client, deque()).append(waiter)
            self._grant()
        if waiter.granted:
            return
        deadline = loop.call_later(self.queue_timeout_s, self._expire, waiter)
        try:
            granted = await waiter.future
        except BaseException:  # cancelled while queued: leave the queue, or give back a slot granted meanwhile
            self._withdraw(waiter)
            raise
        finally:
            deadline.cancel()
        if not granted:
            raise self._busy(client)

    def _busy(self, client: str) -> ServerBusy:
        with self._lock:
            held = self._held[client]
            queued = sum(len(queue) for queue in self._queues.values())
        return ServerBusy(
            f"the server is busy: no worker slot freed within {self.queue_timeout_s:g} s "
            f"({self.slots} slots, ServeConfig.worker_slots; this client holds {held} of its "
            f"{self.per_client}, ServeConfig.steps_per_client; {queued} steps queued); retry after "
            f"{self.queue_timeout_s:g} s", retry_after_s=self.queue_timeout_s)

    def _expire(self, waiter: _Waiter) -> None:
        """On the waiter's loop at its deadline: out of the queue, refused; unless a slot was granted first."""
        with self._lock:
            if waiter.granted:
                return
            self._dequeue(waiter)
        if not waiter.future.done():
            waiter.future.set_result(False)

    def _withdraw(self, waiter: _Waiter) -> None:
        with self._lock:
            if not waiter.granted:
                self._dequeue(waiter)
                return
        self.release(waiter.client)

    def _dequeue(self, waiter: _Waiter) -> None:
        """Under the lock: take a waiter that was never granted out of its client's queue (if it is still there: a
        waiter past its deadline may be cancelled before it runs again)."""
        queue = self._queues.get(waiter.client)
        if queue is None or waiter not in queue:
            return
        queue.remove(waiter)
        if not queue:
            del self._queues[waiter.client]

    def release(self, client: str) -> None:
        """Give back a slot ``client`` held (thread-safe: an abandoned step's slot is given back in its thread)."""
        with self._lock:
            self._held[client] -= 1
            self._in_use -= 1
            if self._held[client] <= 0:
                del self._held[client]
            self._grant()

    def _grant(self) -> None:
        """Under the lock: hand free slots to the waiting clients holding the fewest, oldest waiter first."""
        while self._queues and self._in_use < self.slots:
            chosen = self._next_client()
            if chosen is None:
                return
            queue = self._queues[chosen]
            waiter = queue.popleft()
            if not queue:
                del self._queues[chosen]
            self._take(chosen)
            waiter.granted = True
            if waiter.thread == threading.get_ident():
                _wake(waiter.future)
            else:
                waiter.future.get_loop().call_soon_threadsafe(_wake, waiter.future)

    def _next_client(self) -> str | None:
        """Under the lock: the client with waiters and room in its quota that holds the fewest slots (the one whose
        first waiter came first among equals); None when every waiting client is at its quota."""
        best: tuple[int, int] | None = None
        chosen = None
        for client, queue in self._queues.items():
            held = self._held[client]
            if held >= self.per_client:
                continue
            key = (held, queue[0].order)
            if best is None or key < best:
                best, chosen = key, client
        return chosen


def _wake(future: asyncio.Future[bool]) -> None:
    if not future.done():
        future.set_result(True)

