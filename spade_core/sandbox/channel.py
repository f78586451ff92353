"""The host's end of one worker's channel: its socket, its process, and the length-prefixed JSON frames on it.

A frame is refused before it is parsed when it is too big (``max_bytes``), holds about too many JSON values
(``max_elements``) or decodes to too much text (an astral character makes Python store 4 bytes per character); a
large frame is read into one buffer of its final size. Every failure is a :class:`ChannelError` whose ``kind``
(``timeout``, ``eof``, ``oversize``, ``protocol``) the pool turns into the typed sandbox error; a worker's own
error reply becomes one by :func:`error_from_reply`.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from spade_core.errors import (
    EnvCodeError,
    EnvLoadError,
    SandboxCrashed,
    SandboxError,
    SandboxMemoryError,
    SandboxPolicyError,
    SandboxTimeout,
    SpadeError,
)
from spade_core.sandbox import wire

_LARGE_FRAME = 1 << 20
"""Frames above this size are read into a buffer of their final size."""
_ASTRAL_LEADS = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")
_CAUSES: dict[str, type[SandboxError]] = {
    "policy": SandboxPolicyError, "exception": EnvCodeError, "memory": SandboxMemoryError,
    "timeout": SandboxTimeout, "crashed": SandboxCrashed,
}
METHOD_NAMES = {"reset": "reset", "step": "step", "hint": "privileged_hint", "ref": "reference_action",
                "new": "__init__", "load": "load"}
"""The name a message's method has in error messages (the environment method it runs)."""


def error_from_reply(err: dict[str, Any], what: str, env_id: str | None) -> SpadeError:
    """The typed error for a worker's ``{"err": ...}`` reply to ``what`` (an op or call method)."""
    cause = err.get("cause")
    method = METHOD_NAMES.get(what, what)
    phase = err.get("phase")
    if phase == "module":
        method = "loading the module"
    elif phase == "__init__":
        method = "__init__"
    message = str(err.get("msg") or "")[:4000]
    if cause == "load":
        return EnvLoadError(f"{env_id + ': ' if env_id else ''}{message}")
    cls = _CAUSES.get(str(cause), EnvCodeError)
    label = method if method.startswith("loading") else f"{method}()"
    return cls(f"{label}: {message}", env_id=env_id)


class ChannelError(Exception):
    """A worker's channel failed: ``kind`` is ``timeout``, ``eof``, ``oversize`` or ``protocol``."""

    def __init__(self, kind: str, detail: str = "") -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind}: {detail}")


class Worker:
    """Host-side end of one worker: its socket, pid (and pidfd), the code it hosts and its instances."""

    def __init__(self, sock: socket.socket, pid: int, serial: int) -> None:
        self.sock = sock
        self.pid = pid
        self.serial = serial
        self.pidfd: int | None = None
        try:
            self.pidfd = os.pidfd_open(pid)
        except (OSError, AttributeError):
            self.pidfd = None
        self.group: str | None = None
        self.loaded: set[str] = set()
        self.instances: set[int] = set()
        self.ready = False
        self.layers: dict[str, str] = {}
        self.dead = False
        self.killed_because: str | None = None
        self.last_used = time.monotonic()
        self.buf = bytearray()
        self.single_use = False
        self.reserved_mb = 0
        """The pool's memory budget this worker holds (reserved before it started)."""
        self.last_frame_bytes = 0
        self.last_frame_values = 0
        # CPU policing (see budgets.arm_cpu): what /proc said last, the host-measured call time since, and
        # the soft RLIMIT_CPU the host set from outside
        self.cpu_seen = 0.0
        self.cpu_seen_at: float | None = None
        self.busy_since_seen = 0.0
        self.cpu_armed = 0
        self.start_ticks: int | None = None
        self.lock = threading.Lock()
        """Held for each exchange on the channel (a message and its reply): calls on one worker stay in order."""
        self.in_flight = 0
        """Calls reserved on this worker (changed under the pool's lock): a worker with any is never evicted."""

    def kill(self, reason: str) -> None:
        if self.dead:  # never signal a pid we no longer own (it may have been reused)
            return
        if self.killed_because is None:
            self.killed_because = reason
        try:
            if self.pidfd is not None:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            else:
                os.kill(self.pid, signal.SIGKILL)
        except (ProcessLookupError, OSError):
            pass
        self.close()

    def close(self) -> None:
        self.dead = True
        try:
            self.sock.close()
        except OSError:
            pass
        if self.pidfd is not None:
            try:
                os.close(self.pidfd)
            except OSError:
                pass
            self.pidfd = None

    def send(self, message: Any, deadline: float) -> None:
        data = wire.frame(wire.dumps(message))
        try:
            self.sock.settimeout(max(deadline - time.monotonic(), 0.001))
            self.sock.sendall(data)
        except TimeoutError:
            raise ChannelError("timeout", "the worker stopped reading its channel") from None
        except OSError as exc:
            raise ChannelError("eof", str(exc)) from None

    def recv(self, deadline: float, max_bytes: int, max_elements: int) -> Any:
        """One frame, bounded before it is parsed: at most ``max_bytes`` and about ``max_elements`` JSON values.

        A large frame is read into one buffer of its final size (no growing buffer, no 16 MiB ``recv`` copies),
        so a frame that is refused has cost the host its size once.
        """
        buf = self.buf
        while True:
            if len(buf) >= 4:
                (size,) = wire.HEADER.unpack_from(buf)
                if size > max_bytes:
                    raise ChannelError("oversize", f"{size} bytes (limit {max_bytes})")
                if len(buf) < 4 + size and size > _LARGE_FRAME:
                    buf = self.buf = self._read_rest(buf, 4 + size, deadline)
                if len(buf) >= 4 + size:
                    end = 4 + size
                    count = size + 1 if size < max_elements else (
                        buf.count(b",", 4, end) + buf.count(b"[", 4, end) + buf.count(b"{", 4, end) + 1)
                    self.last_frame_bytes, self.last_frame_values = end, count
                    if count > max_elements:
                        buf.clear()
                        raise ChannelError("oversize", f"about {count} JSON values (limit {max_elements})")
                    if size > max_bytes // 4:
                        decoded = size * _char_width(buf, end)
                        if decoded > max_bytes:
                            buf.clear()
                            raise ChannelError("oversize", f"{size} bytes that decode to about {decoded} bytes of "
                                                f"text (limit {max_bytes})")
                    if len(buf) == end:
                        del buf[:4]
                        payload = buf
                        self.buf = bytearray()
                    else:
                        payload = buf[4:end]
                        del buf[:end]
                    try:
                        return wire.loads(payload)
                    except wire.WireError as exc:
                        raise ChannelError("protocol", str(exc)) from None
                want = 4 + size - len(buf)
            else:
                want = 4
            buf += self._recv_chunk(max(want, 1 << 16), deadline)

    def _recv_chunk(self, size: int, deadline: float) -> bytes:
        return self._before(deadline, lambda: self.sock.recv(size))

    def _before(self, deadline: float, receive: Callable[[], Any]) -> Any:
        """One socket read that must deliver something before ``deadline`` (timeout or end of stream otherwise)."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ChannelError("timeout")
        try:
            self.sock.settimeout(remaining)
            got = receive()
        except TimeoutError:
            raise ChannelError("timeout") from None
        except OSError as exc:
            raise ChannelError("eof", str(exc)) from None
        if not got:
            raise ChannelError("eof")
        return got

    def _read_rest(self, head: bytearray, total: int, deadline: float) -> bytearray:
        """Read a frame of ``total`` bytes (``head`` already received) into one preallocated buffer."""
        frame = bytearray(total)
        filled = len(head)
        frame[:filled] = head
        view = memoryview(frame)
        try:
            while filled < total:
                rest = view[filled:]
                filled += self._before(deadline, lambda rest=rest: self.sock.recv_into(rest))
        finally:
            view.release()
        return frame


def _char_width(buf: bytearray, end: int) -> int:
    """Bytes per character of the string a frame's UTF-8 payload (``buf[4:end]``) decodes to, at most: Python
    stores a string with one astral character at 4 bytes per character, so a 16 MiB frame can cost 64 MiB."""
    body = buf[4:end] if len(buf) != end else None
    if body is None:
        header = bytes(buf[:4])
        buf[:4] = b"    "
        ascii_only = buf.isascii()
        buf[:4] = header
    else:
        ascii_only = body.isascii()
    if ascii_only:
        return 1
    return 4 if any(buf.find(lead, 4, end) >= 0 for lead in _ASTRAL_LEADS) else 2
