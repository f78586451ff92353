"""The host side of the sandbox: a pool of contained workers and the instances placed on them.

- Workers come from one preloaded launcher process per pool (:mod:`.launcher`); ``prestart`` idle workers are
  kept ready so making an environment costs a compile plus an instantiation, not a process start.
- A worker hosts instances of exactly one code record (keyed by the source's hash), up to
  ``instances_per_worker`` of them; code from different records never shares a worker, because code that escaped
  the policy could otherwise tamper with another record's instances. Emptied workers linger (up to
  ``max_idle_group_workers``) for their code and are evicted first when the pool is full.
- Memory is bounded: at most ``max_workers`` workers, each capped at ``limits.memory_mb`` of address space
  (``max_workers`` defaults to ``memory_budget_mb // limits.memory_mb``).
- Every call has a wall-clock deadline; on overrun the worker is SIGKILLed. A worker that dies, hangs, breaks the
  protocol or sends too much is replaced. The instance whose call failed gets the typed error and is rebuilt
  fresh on its next ``reset``; the *other* instances it hosted are rebuilt on a fresh worker at their next call
  by replaying their episode (seed, options and every call since ``reset``; environment code is deterministic),
  and a replay that does not reproduce the last result marks the instance failed instead of diverging silently.
- ``call_many`` sends one message per worker for any number of instances (the 64-envs-per-message path).
- Shutdown kills every worker and the launcher; it runs at interpreter exit and on SIGTERM, and the launcher
  kills all workers by itself if the host dies (end of file on its control socket).
"""

from __future__ import annotations

import atexit
import hashlib
import itertools
import json
import math
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
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
from spade_core.sandbox import scratch, wire
from spade_core.sandbox.allowlist import AllowList, merged_allowlist
from spade_core.sandbox.launcher import BOOTSTRAP
from spade_core.sandbox.limits import SAFE_ENVIRON, SandboxLimits

_PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_CAUSES: dict[str, type[SandboxError]] = {
    "policy": SandboxPolicyError, "exception": EnvCodeError, "memory": SandboxMemoryError,
    "timeout": SandboxTimeout, "crashed": SandboxCrashed,
}
BATCH_TOTAL_REPLIES = 4
"""One ``call_many`` accepts at most this many replies' worth (``max_reply_bytes``, ``max_reply_elements``) over all
its workers; a worker whose frame would go past it is replaced and its calls are redone one by one."""
_LARGE_FRAME = 1 << 20
"""Frames above this size are read into a buffer of their final size."""
CPU_CHECK_S = 0.25
"""How often (at most, per worker, at its next message) the host reads a worker's CPU time from ``/proc``."""
IDLE_CPU_SLACK_S = 0.1
"""CPU a worker may use outside the host-measured time of its calls before it is killed (timer ticks, GC)."""
_ASTRAL_LEADS = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")
_METHOD_NAMES = {"reset": "reset", "step": "step", "hint": "privileged_hint", "ref": "reference_action",
                 "new": "__init__", "load": "load"}


SubHandler = Callable[["WorkerPool", dict[str, Any], float], dict[str, Any]]
"""Serves a request a worker sends to the host in the middle of a call: ``(pool, request, call deadline)``."""
_SUB_HANDLERS: dict[str, SubHandler] = {}
MAX_SUB_REQUESTS = 256
"""Requests one call may send to the host (a code-domain environment runs the agent's code this way)."""


def register_sub_handler(op: str, handler: SubHandler) -> None:
    """Let workers ask the host for ``op`` during a call (``codeexec`` registers ``"code"``)."""
    _SUB_HANDLERS[op] = handler


class _ChannelError(Exception):
    def __init__(self, kind: str, detail: str = "") -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind}: {detail}")


class _Worker:
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
        self.last_frame_bytes = 0
        self.last_frame_values = 0
        # CPU policing (see WorkerPool._arm_cpu): what /proc said last, the host-measured call time since, and
        # the soft RLIMIT_CPU the host set from outside
        self.cpu_seen = 0.0
        self.cpu_seen_at: float | None = None
        self.busy_since_seen = 0.0
        self.cpu_armed = 0
        self.start_ticks: int | None = None

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
            raise _ChannelError("timeout", "the worker stopped reading its channel") from None
        except OSError as exc:
            raise _ChannelError("eof", str(exc)) from None

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
                    raise _ChannelError("oversize", f"{size} bytes (limit {max_bytes})")
                if len(buf) < 4 + size and size > _LARGE_FRAME:
                    buf = self.buf = self._read_rest(buf, 4 + size, deadline)
                if len(buf) >= 4 + size:
                    end = 4 + size
                    count = size + 1 if size < max_elements else (
                        buf.count(b",", 4, end) + buf.count(b"[", 4, end) + buf.count(b"{", 4, end) + 1)
                    self.last_frame_bytes, self.last_frame_values = end, count
                    if count > max_elements:
                        buf.clear()
                        raise _ChannelError("oversize", f"about {count} JSON values (limit {max_elements})")
                    if size > max_bytes // 4:
                        decoded = size * _char_width(buf, end)
                        if decoded > max_bytes:
                            buf.clear()
                            raise _ChannelError("oversize", f"{size} bytes that decode to about {decoded} bytes of "
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
                        raise _ChannelError("protocol", str(exc)) from None
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
            raise _ChannelError("timeout")
        try:
            self.sock.settimeout(remaining)
            got = receive()
        except TimeoutError:
            raise _ChannelError("timeout") from None
        except OSError as exc:
            raise _ChannelError("eof", str(exc)) from None
        if not got:
            raise _ChannelError("eof")
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


def _read_cpu(pid: int) -> tuple[int, float] | None:
    """``(start time in ticks, CPU seconds used)`` of a process from ``/proc/<pid>/stat``, or None if it is gone."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        try:
            data = os.read(fd, 4096)
        finally:
            os.close(fd)
        fields = data.rsplit(b")", 1)[1].split()
        return int(fields[19]), (int(fields[11]) + int(fields[12])) / _CLK_TCK
    except (OSError, IndexError, ValueError):
        return None


_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class _Allowance:
    """What is left of one ``call_many``'s reply budget; every frame of the batch, its retries and their replays
    is charged here, so a crash mid-batch cannot multiply what the host accepts."""

    __slots__ = ("bytes_left", "values_left")

    def __init__(self, limits: SandboxLimits) -> None:
        self.bytes_left = BATCH_TOTAL_REPLIES * (limits.max_reply_bytes + 1024)
        self.values_left = BATCH_TOTAL_REPLIES * limits.max_reply_elements

    def charge(self, worker: _Worker) -> None:
        self.bytes_left -= worker.last_frame_bytes
        self.values_left -= worker.last_frame_values

    def spent(self) -> bool:
        return self.bytes_left <= 0 or self.values_left <= 0


@dataclass
class _Code:
    key: str
    source: str
    module: str
    env_id: str | None
    workers: list[_Worker] = field(default_factory=list)


@dataclass
class _Inst:
    iid: int
    code: _Code
    knobs: dict[str, Any]
    env_id: str | None
    worker: _Worker | None = None
    broken: SandboxError | None = None
    log: list[tuple[str, Any, bool]] = field(default_factory=list)
    last_value: Any = None
    episode_time: float = 0.0
    closed: bool = False


@dataclass(frozen=True)
class LoadResult:
    """What loading designer code in the sandbox produced: the raw ``ENV_SPEC`` and class name, or the error."""

    spec: Any
    class_name: str | None
    error: SpadeError | None

    @property
    def ok(self) -> bool:
        return self.error is None


class WorkerPool:
    """Pre-started sandbox workers hosting environment instances; see the module docstring."""

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        max_workers: int | None = None,
        memory_budget_mb: int | None = None,
        instances_per_worker: int = 128,
        prestart: int = 2,
        max_idle_group_workers: int = 4,
        allowlist: AllowList | None = None,
    ) -> None:
        self.limits = limits or SandboxLimits()
        if memory_budget_mb is None:
            memory_budget_mb = max(1024, int(_physical_memory_mb() * 0.75))
        self.memory_budget_mb = memory_budget_mb
        self.max_workers = max_workers or max(2, memory_budget_mb // self.limits.memory_mb)
        self.instances_per_worker = instances_per_worker
        self.prestart = prestart
        self.max_idle_group_workers = max_idle_group_workers
        self.allowlist = allowlist if allowlist is not None else merged_allowlist()
        self.grace_s = max(0.5, 0.25 * self.limits.call_timeout_s)
        self._lock = threading.RLock()
        self._launcher: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._scratch_root: str | None = None
        self._idle: list[_Worker] = []
        self._workers: dict[int, _Worker] = {}
        self._codes: dict[str, _Code] = {}
        self._insts: dict[int, _Inst] = {}
        self._iids = itertools.count(1)
        self._serials = itertools.count(1)
        self.launcher_info: dict[str, Any] = {}
        self.replays = 0
        self.worker_failures = 0
        self._closed = False
        self._allowance: _Allowance | None = None
        self._can_raise_cpu_hard = os.geteuid() == 0
        _live_pools.add(self)

    # -- lifecycle -----------------------------------------------------------------------------------------
    def start(self) -> WorkerPool:
        """Start the launcher and the pre-started workers (otherwise done on first use)."""
        with self._lock:
            self._ensure_launcher()
            self._replenish()
        return self

    def _ensure_launcher(self) -> None:
        if self._closed:
            raise SandboxCrashed("the sandbox pool was shut down; create a new WorkerPool")
        if self._launcher is not None and self._launcher.poll() is None and self._control is not None:
            return
        self._drop_launcher()
        _install_signal_handlers()
        self._scratch_root = tempfile.mkdtemp(prefix="spade-sandbox-")
        os.chmod(self._scratch_root, 0o711)
        host_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        config = {"control_fd": child_end.fileno(), "limits": self.limits.to_dict(),
                  "scratch_root": self._scratch_root, "allowlist": self.allowlist}
        config_path = os.path.join(self._scratch_root, "launcher-config.json")
        with open(os.open(config_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as fh:
            json.dump(config, fh)  # a file, not argv: argv is world-readable in ps and bounded in size
        env = dict(SAFE_ENVIRON)
        self._launcher = subprocess.Popen(  # our own interpreter and bootstrap
            [sys.executable, "-s", "-P", "-B", "-c", BOOTSTRAP, _PROJECT_ROOT, config_path],
            pass_fds=[child_end.fileno()], env=env, cwd=self._scratch_root, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, start_new_session=True, close_fds=True,
        )
        child_end.close()
        self._control = host_end
        host_end.settimeout(self.limits.spawn_timeout_s)
        try:
            hello = json.loads(host_end.recv(1 << 20) or b"null")
        except (TimeoutError, OSError, ValueError) as exc:
            self._drop_launcher()
            raise SandboxCrashed(f"the sandbox launcher did not start: {exc}") from None
        if not isinstance(hello, dict) or not hello.get("ready"):
            code = self._launcher.poll() if self._launcher else None
            self._drop_launcher()
            raise SandboxCrashed(f"the sandbox launcher failed to start (exit code {code}); see its stderr above")
        self.launcher_info = hello

    def _drop_launcher(self) -> None:
        for worker in list(self._workers.values()):
            try:
                self._lose_worker(worker, "the launcher was restarted")
            except Exception:  # dropping goes on whatever one worker does
                pass
        self._idle.clear()
        if self._control is not None:
            try:
                self._control.close()
            except OSError:
                pass
            self._control = None
        if self._launcher is not None:
            try:
                if self._launcher.poll() is None:
                    self._launcher.kill()
                self._launcher.wait(timeout=5)
            except (subprocess.TimeoutExpired, OSError):
                pass
            self._launcher = None
        if self._scratch_root:
            scratch.remove_tree(self._scratch_root)
            self._scratch_root = None

    def shutdown(self) -> None:
        """Kill every worker and the launcher and remove the scratch root; the pool cannot be used afterwards.

        Never raises: each step runs whatever the ones before it met (a launcher that died, a worker's tree).
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            steps = (self._shutdown_launcher, self._shutdown_workers, self._shutdown_wait,
                     self._shutdown_scratch)
            for step in steps:
                try:
                    step()
                except Exception:  # the next step still runs
                    pass
        _live_pools.discard(self)

    def _shutdown_launcher(self) -> None:
        if self._control is not None:
            try:
                self._control.settimeout(5.0)
                self._control.send(b'{"op": "shutdown"}')
                self._control.recv(1 << 16)
            except OSError:
                pass

    def _shutdown_workers(self) -> None:
        for worker in list(self._workers.values()):
            worker.kill("pool shut down")
        self._workers.clear()
        self._idle.clear()
        for inst in self._insts.values():
            inst.worker = None
            inst.closed = True

    def _shutdown_wait(self) -> None:
        if self._control is not None:
            try:
                self._control.close()
            except OSError:
                pass
            self._control = None
        if self._launcher is not None:
            try:
                self._launcher.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._launcher.kill()
                self._launcher.wait(timeout=5)
            finally:
                self._launcher = None

    def _shutdown_scratch(self) -> None:
        if self._scratch_root:
            scratch.remove_tree(self._scratch_root)
            self._scratch_root = None

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    # -- launcher control ---------------------------------------------------------------------------------
    def _control_call(self, request: dict[str, Any], fds: Sequence[int] = ()) -> dict[str, Any]:
        attempts = 2 if request.get("op") == "spawn" else 1
        for _ in range(attempts):
            self._ensure_launcher()
            assert self._control is not None
            try:
                self._control.settimeout(self.limits.spawn_timeout_s)
                socket.send_fds(self._control, [json.dumps(request).encode()], list(fds))
                data = self._control.recv(1 << 20)
                if data:
                    return json.loads(data)
            except (OSError, ValueError):
                pass
            self._drop_launcher()  # it died or hangs: every worker goes with it; a new one starts on demand
        raise SandboxCrashed("the sandbox launcher stopped answering; it will be restarted on the next use")

    def _spawn(self, limits_override: dict[str, Any] | None = None, role: str = "env") -> _Worker:
        host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            request: dict[str, Any] = {"op": "spawn", "role": role}
            if limits_override:
                request["limits"] = limits_override
            reply = self._control_call(request, [worker_end.fileno()])
        finally:
            worker_end.close()
        if "pid" not in reply:
            host_end.close()
            raise SandboxCrashed(f"the launcher could not start a worker: {reply}")
        worker = _Worker(host_end, int(reply["pid"]), next(self._serials))
        self._workers[worker.serial] = worker
        return worker

    def _await_ready(self, worker: _Worker) -> None:
        if worker.ready:
            return
        try:
            hello = worker.recv(time.monotonic() + self.limits.spawn_timeout_s, 1 << 20, 10_000)
        except _ChannelError as exc:
            status = self._exit_status(worker)
            self._lose_worker(worker, "failed to start")
            raise SandboxCrashed(f"a sandbox worker failed to start ({exc.kind}; {status})") from None
        if not isinstance(hello, dict) or not isinstance(hello.get("hello"), dict):
            self._lose_worker(worker, "bad hello")
            raise SandboxCrashed("a sandbox worker sent a malformed greeting")
        worker.layers = dict(hello["hello"].get("layers") or {})
        worker.ready = True

    def _replenish(self) -> None:
        while len(self._idle) < self.prestart and len(self._workers) < self.max_workers:
            self._idle.append(self._spawn())

    def _take_worker(self, limits_override: dict[str, Any] | None = None, role: str = "env") -> _Worker:
        if limits_override is None and role == "env":
            while self._idle:
                worker = self._idle.pop(0)
                if not worker.dead:
                    self._replenish()
                    return worker
        if len(self._workers) >= self.max_workers:
            self._evict_one()
        worker = self._spawn(limits_override, role)
        if limits_override is None and role == "env":
            self._replenish()
        return worker

    def _evict_one(self) -> None:
        empties = [w for w in self._workers.values() if w.group is not None and not w.instances and not w.dead]
        if not empties and self._idle:
            empties = [self._idle.pop()]
        if not empties:
            raise SandboxMemoryError(
                f"the sandbox pool is full: {len(self._workers)} workers of {self.limits.memory_mb} MB "
                f"(memory budget {self.memory_budget_mb} MB, {self.instances_per_worker} instances each); close "
                "environments or raise WorkerPool(memory_budget_mb=..., instances_per_worker=...)"
            )
        victim = min(empties, key=lambda w: w.last_used)
        self._retire(victim, "evicted to make room")

    def _retire(self, worker: _Worker, reason: str) -> None:
        worker.kill(reason)
        self._forget(worker)

    def _forget(self, worker: _Worker) -> None:
        self._workers.pop(worker.serial, None)
        if worker in self._idle:
            self._idle.remove(worker)
        if worker.group is not None:
            code = self._codes.get(worker.group)
            if code is not None and worker in code.workers:
                code.workers.remove(worker)

    def _lose_worker(self, worker: _Worker, reason: str) -> None:
        """A worker is gone: forget it; instances it hosted will be replayed elsewhere on their next call."""
        worker.kill(reason)
        self._forget(worker)
        for iid in worker.instances:
            inst = self._insts.get(iid)
            if inst is not None and inst.worker is worker:
                inst.worker = None
        worker.instances.clear()
        self.worker_failures += 1

    def _exit_status(self, worker: _Worker) -> str:
        try:
            reply = self._control_call({"op": "status", "pid": worker.pid, "wait": 1.0})
        except SandboxError:
            return "exit status unknown"
        return _describe_status(reply.get("status"), reply.get("stderr") or "", reply.get("reason"))

    # -- placement -----------------------------------------------------------------------------------------
    def _code(self, source: str, module: str, env_id: str | None) -> _Code:
        key = hashlib.sha256(f"{module}\0{source}".encode("utf-8", "surrogatepass")).hexdigest()
        code = self._codes.get(key)
        if code is None:
            code = self._codes[key] = _Code(key, source, module, env_id)
        return code

    def _worker_for(self, code: _Code) -> _Worker:
        live = [w for w in code.workers if not w.dead and len(w.instances) < self.instances_per_worker]
        if live:
            return min(live, key=lambda w: len(w.instances))
        worker = self._take_worker()
        worker.group = code.key
        code.workers.append(worker)
        return worker

    def _request(self, worker: _Worker, message: dict[str, Any], timeout: float, what: str, inst: _Inst | None,
                 max_bytes: int | None = None) -> Any:
        """One request/reply; channel failures kill the worker and raise the typed error."""
        self._await_ready(worker)
        allowance = self._allowance
        if allowance is not None and allowance.spent():
            raise SandboxPolicyError(f"{_METHOD_NAMES.get(what, what)}() was not run: the batch it belongs to used "
                                     "its whole reply budget (SandboxLimits.max_reply_bytes, max_reply_elements)",
                                     env_id=inst.env_id if inst else None)
        worker.last_used = started = time.monotonic()
        frame: _Budget | None = getattr(_BUDGET, "frame", None)
        if frame is None:
            deadline, budget_end = started + timeout + self.grace_s, None
        else:
            deadline, budget_end = self._deadline(started + timeout + self.grace_s)
            frame.depth += 1
        try:
            if (worker.cpu_seen_at is None or started - worker.cpu_seen_at >= CPU_CHECK_S
                    or worker.cpu_seen + worker.busy_since_seen + self.limits.cpu_s_per_call > worker.cpu_armed):
                self._arm_cpu(worker, self.limits.cpu_s_per_call)
            worker.send(message, deadline)
            reply = self._recv_reply(worker, deadline, max_bytes or self.limits.max_reply_bytes + 1024,
                                     self.limits.max_reply_elements)
        except _ChannelError as exc:
            if exc.kind == "timeout" and budget_end is not None and deadline >= budget_end:
                raise self._budget_spent(worker, what, inst) from None
            raise self._channel_failure(worker, exc, what, timeout, inst) from None
        finally:
            spent = time.monotonic() - started
            worker.busy_since_seen += spent
            if frame is not None:
                frame.depth -= 1
                if frame.depth == 0:
                    frame.spent_s += spent
        if not isinstance(reply, dict) or ("ok" not in reply and not isinstance(reply.get("err"), dict)):
            raise self._channel_failure(worker, _ChannelError("protocol", "reply is not {ok|err}"), what, timeout, inst)
        return reply

    def _recv_reply(self, worker: _Worker, deadline: float, max_bytes: int, max_elements: int) -> Any:
        """The reply to the message just sent, serving the worker's requests to the host (``{"sub": ...}``) on
        the way; each answer is plain JSON data produced by trusted host code. Any exception while serving a
        request is a protocol error of this worker (it is killed): the channel never goes out of step."""
        allowance = self._allowance
        for _ in range(MAX_SUB_REQUESTS + 1):
            if allowance is not None:
                max_bytes = min(max_bytes, max(allowance.bytes_left, 0))
                max_elements = min(max_elements, max(allowance.values_left, 0))
            reply = worker.recv(deadline, max_bytes, max_elements)
            if allowance is not None:
                allowance.charge(worker)
            if not (isinstance(reply, dict) and len(reply) == 1 and "sub" in reply):
                return reply
            request = reply["sub"]
            handler = _SUB_HANDLERS.get(request.get("op")) if isinstance(request, dict) else None
            if handler is None:
                raise _ChannelError("protocol", "the worker sent an unknown request to the host")
            try:
                worker.send({"subr": handler(self, request, deadline)}, deadline)
            except _ChannelError:
                raise
            except SandboxTimeout:
                raise _ChannelError("timeout", "the time budget ran out while serving the worker's request") from None
            except Exception as exc:  # whatever a handler meets, only this worker pays
                raise _ChannelError("protocol", "the host could not serve the worker's request "
                                    f"({type(exc).__name__}); the worker was replaced") from None
        raise _ChannelError("protocol", f"more than {MAX_SUB_REQUESTS} requests to the host in one call")

    def _arm_cpu(self, worker: _Worker, budget_s: float) -> None:
        """Police and arm a worker's CPU from outside, before a message: it can neither change its own limit
        (seccomp) nor spin between calls unnoticed.

        Every :data:`CPU_CHECK_S` the host reads the worker's CPU time from ``/proc``: CPU beyond the host-measured
        time of its calls since the last reading (plus :data:`IDLE_CPU_SLACK_S`) was spent outside any call or by
        extra threads, and the worker is killed (its instances are replayed on a fresh one). Then, when the armed
        limit does not leave ``budget_s`` above what the worker may have used, ``RLIMIT_CPU`` is set with
        ``prlimit``: soft at that point plus ``cpu_s_per_call``, hard one second later (as root), never above
        ``cpu_s_per_worker``.
        """
        now = time.monotonic()
        if worker.cpu_seen_at is None or now - worker.cpu_seen_at >= CPU_CHECK_S:
            got = _read_cpu(worker.pid)
            if got is None:
                return  # gone: the send reports it
            start, cpu = got
            if worker.start_ticks is None:
                worker.start_ticks = start
            elif start != worker.start_ticks:
                return  # the pid is no longer our worker's
            if worker.cpu_seen_at is not None:
                idle = cpu - worker.cpu_seen - worker.busy_since_seen
                if idle > IDLE_CPU_SLACK_S + 0.05 * worker.busy_since_seen:
                    raise _ChannelError("protocol", f"the worker used {idle:.2f} s of CPU outside its calls "
                                        f"({cpu:.2f} s in all); it was killed")
            worker.cpu_seen, worker.busy_since_seen, worker.cpu_seen_at = cpu, 0.0, now
        need = worker.cpu_seen + worker.busy_since_seen + budget_s
        if need <= worker.cpu_armed:
            return
        cap = self.limits.cpu_s_per_worker
        soft = min(math.ceil(need + self.limits.cpu_s_per_call), cap)
        try:
            if self._can_raise_cpu_hard:
                resource.prlimit(worker.pid, resource.RLIMIT_CPU, (soft, min(soft + 1, cap)))
            else:
                resource.prlimit(worker.pid, resource.RLIMIT_CPU, (soft, cap))
        except PermissionError:
            self._can_raise_cpu_hard = False
            try:
                resource.prlimit(worker.pid, resource.RLIMIT_CPU, (soft, cap))
            except OSError:
                return
        except (OSError, ValueError):
            return
        worker.cpu_armed = soft

    # -- time budgets --------------------------------------------------------------------------------------
    def _deadline(self, deadline: float) -> tuple[float, float | None]:
        """``deadline`` cut to what is left of this thread's :func:`time_budget`; raises when it is spent."""
        frame: _Budget | None = getattr(_BUDGET, "frame", None)
        if frame is None or frame.depth:
            return deadline, None
        now = time.monotonic()
        left = frame.limit_s - frame.spent_s
        if left <= 0:
            raise frame.error(None)
        end = now + left
        return min(deadline, end), end

    def _budget_spent(self, worker: _Worker, what: str, inst: _Inst | None) -> SandboxTimeout:
        self._lose_worker(worker, "time budget spent")
        frame: _Budget = _BUDGET.frame
        frame.spent_s = frame.limit_s
        error = frame.error(inst.env_id if inst else None)
        if inst is not None:
            inst.worker = None
            inst.broken = error
        return error

    def _channel_failure(self, worker: _Worker, exc: _ChannelError, what: str, timeout: float,
                         inst: _Inst | None) -> SandboxError:
        env_id = inst.env_id if inst else None
        method = _METHOD_NAMES.get(what, what)
        if exc.kind == "timeout":
            worker.kill("timeout")
            error: SandboxError = SandboxTimeout(
                f"{method}() did not return within {timeout:g} s (wall clock); the worker was killed and will be "
                "replaced. Make the environment do less work per call.", env_id=env_id)
        elif exc.kind == "oversize":
            worker.kill("oversize reply")
            error = SandboxPolicyError(f"{method}() sent a reply of {exc.detail}; the worker was killed. Return "
                                       "smaller observations (SandboxLimits.max_reply_bytes).", env_id=env_id)
        elif exc.kind == "protocol":
            worker.kill("protocol violation")
            error = SandboxCrashed(f"the worker broke the channel protocol during {method}() ({exc.detail}); it was "
                                   "killed and will be replaced", env_id=env_id)
        else:
            status = self._exit_status(worker)
            cls: type[SandboxError] = SandboxCrashed
            if "SIGXCPU" in status:
                cls = SandboxTimeout
            elif "scratch quota exceeded" in status:
                cls = SandboxMemoryError
            elif "MemoryError" in status or "Cannot allocate memory" in status:
                cls = SandboxMemoryError
            elif "SIGSYS" in status:
                cls = SandboxPolicyError
            error = cls(f"the worker died during {method}() ({status}); it will be replaced", env_id=env_id)
        self._lose_worker(worker, str(exc))
        if inst is not None:
            inst.worker = None
            inst.broken = error
        return error

    def _error_from_reply(self, err: dict[str, Any], what: str, inst: _Inst | None,
                          env_id: str | None) -> SpadeError:
        cause = err.get("cause")
        method = _METHOD_NAMES.get(what, what)
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
        error = cls(f"{label}: {message}", env_id=env_id)
        if inst is not None and cause in ("timeout", "memory", "policy"):
            inst.broken = error  # state may be half-updated: rebuild the instance on the next reset
        return error

    # -- public operations ----------------------------------------------------------------------------------
    def load(self, source: str, *, env_id: str | None = None, module: str = "env") -> LoadResult:
        """Compile and run designer code once in a sandbox worker; return its raw ``ENV_SPEC`` or the error."""
        with self._lock:
            code = self._code(source, module, env_id)
            worker = self._worker_for(code)
            try:
                reply = self._request(worker, {"op": "load", "key": code.key, "source": source, "module": module,
                                               "where": env_id or "environment module"},
                                      self.limits.load_timeout_s, "load", None)
            except SandboxError as exc:
                return LoadResult(None, None, exc)
            if "err" in reply:
                return LoadResult(None, None, self._error_from_reply(reply["err"], "load", None, env_id))
            worker.loaded.add(code.key)
            value = reply["ok"]
            if not isinstance(value, dict):
                return LoadResult(None, None, SandboxCrashed("malformed load reply", env_id=env_id))
            return LoadResult(value.get("spec"), value.get("cls"), None)

    def create(self, source: str, *, env_id: str | None = None, knobs: Mapping[str, Any] | None = None,
               module: str = "env") -> _Inst:
        """Place a new environment instance (``cls(**knobs)``) on a worker for its code."""
        with self._lock:
            code = self._code(source, module, env_id)
            inst = _Inst(next(self._iids), code, dict(knobs or {}), env_id)
            self._insts[inst.iid] = inst
            try:
                self._place(inst)
            except BaseException:
                self._insts.pop(inst.iid, None)
                raise
            return inst

    def _place(self, inst: _Inst) -> None:
        worker = self._worker_for(inst.code)
        message: dict[str, Any] = {"op": "new", "iid": inst.iid, "key": inst.code.key, "module": inst.code.module,
                                   "knobs": wire.to_wire(inst.knobs), "where": inst.env_id or "environment module"}
        if inst.code.key not in worker.loaded:
            message["source"] = inst.code.source
        timeout = self.limits.load_timeout_s if "source" in message else self.limits.call_timeout_s
        reply = self._request(worker, message, timeout, "new", None)
        if "err" in reply:
            raise self._error_from_reply(reply["err"], "new", None, inst.env_id)
        worker.loaded.add(inst.code.key)
        worker.instances.add(inst.iid)
        inst.worker = worker

    def _restore(self, inst: _Inst) -> None:
        """Rebuild an instance whose worker was lost, replaying its episode so far. The replay's time is charged
        to the episode (``episode_budget_s``), so a worker that keeps dying cannot make the host replay for free."""
        started = time.monotonic()
        self._place(inst)
        self.replays += 1
        last: Any = None
        for method, arg, ok in inst.log:
            assert inst.worker is not None
            reply = self._request(inst.worker, {"op": "call", "iid": inst.iid, "m": method, "a": arg},
                                  self.limits.call_timeout_s, method, inst)
            now = time.monotonic()
            inst.episode_time += now - started
            started = now
            if inst.episode_time > self.limits.episode_budget_s:
                raise SandboxTimeout(
                    f"replaying the episode after its worker was lost took it to {inst.episode_time:.2f} s of "
                    f"environment time, more than its budget of {self.limits.episode_budget_s:g} s "
                    "(SandboxLimits.episode_budget_s)", env_id=inst.env_id)
            if ("ok" in reply) != ok:
                raise SandboxCrashed(f"replaying {_METHOD_NAMES[method]}() after its worker was lost gave a "
                                     "different outcome; the environment is not deterministic", env_id=inst.env_id)
            last = reply.get("ok")
        if inst.log and inst.log[-1][2] and last != inst.last_value:
            raise SandboxCrashed("replaying the episode after its worker was lost did not reproduce the last "
                                 "result; the environment is not deterministic", env_id=inst.env_id)

    def _prepare(self, inst: _Inst, method: str) -> None:
        if inst.closed:
            raise SandboxCrashed("this sandboxed environment was closed", env_id=inst.env_id)
        if method == "reset":
            if inst.broken is not None or inst.worker is None:
                self._detach(inst)
                inst.broken = None
                inst.log = []
                self._place(inst)
            return
        if inst.broken is not None:
            raise type(inst.broken)(f"the instance failed earlier ({inst.broken}); call reset() for a fresh one",
                                    env_id=inst.env_id)
        if inst.worker is None or inst.worker.dead:
            try:
                self._restore(inst)
            except SandboxError as exc:
                self._detach(inst)
                inst.broken = exc
                raise type(exc)(f"lost with its worker and could not be rebuilt: {exc}", env_id=inst.env_id) from None

    def _detach(self, inst: _Inst) -> None:
        worker = inst.worker
        inst.worker = None
        if worker is not None and not worker.dead:
            worker.instances.discard(inst.iid)
            try:
                self._request(worker, {"op": "del", "iid": inst.iid}, self.limits.call_timeout_s, "close", None)
            except SandboxError:
                pass
            self._maybe_retire(worker)

    def _maybe_retire(self, worker: _Worker) -> None:
        if worker.instances or worker.dead:
            return
        idle_groups = [w for w in self._workers.values() if w.group is not None and not w.instances and not w.dead]
        if len(idle_groups) > self.max_idle_group_workers:
            self._retire(min(idle_groups, key=lambda w: w.last_used), "idle")

    def _record(self, inst: _Inst, method: str, arg: Any, ok: bool, value: Any, seconds: float) -> None:
        if method == "reset":
            inst.log = [(method, arg, ok)]
            inst.episode_time = 0.0
        else:
            inst.log.append((method, arg, ok))
        if ok:
            inst.last_value = value
        inst.episode_time += seconds
        if inst.episode_time > self.limits.episode_budget_s:
            inst.broken = SandboxTimeout(
                f"the episode used {inst.episode_time:.2f} s of environment time, more than its budget of "
                f"{self.limits.episode_budget_s:g} s (SandboxLimits.episode_budget_s); make calls cheaper",
                env_id=inst.env_id)
            raise inst.broken

    def call(self, inst: _Inst, method: str, arg: Any = None) -> Any:
        """Run ``reset``/``step``/``hint``/``ref`` on an instance; return its raw value or raise the typed error."""
        with self._lock:
            self._prepare(inst, method)
            worker = inst.worker
            assert worker is not None
            start = time.monotonic()
            reply = self._request(worker, {"op": "call", "iid": inst.iid, "m": method, "a": arg},
                                  self.limits.call_timeout_s, method, inst)
            elapsed = time.monotonic() - start
            try:
                if "err" in reply:
                    error = self._error_from_reply(reply["err"], method, inst, inst.env_id)
                    if inst.broken is None:
                        self._record(inst, method, arg, False, None, elapsed)
                    raise error
                value = reply["ok"]
                self._record(inst, method, arg, True, value, elapsed)
            except SpadeError:
                raise
            except Exception as exc:  # host bookkeeping of a worker's reply never escapes raw
                raise self._channel_failure(worker, _ChannelError("protocol", f"unusable reply ({type(exc).__name__})"),
                                            method, self.limits.call_timeout_s, inst) from None
            return value

    def call_many(self, calls: Sequence[tuple[_Inst, str, Any]]) -> list[Any]:
        """Run many calls with one message per worker; each result is the raw value or a ``SpadeError``."""
        with self._lock:
            outer = self._allowance
            self._allowance = outer or _Allowance(self.limits)
            try:
                return self._call_many(calls)
            finally:
                self._allowance = outer

    def _call_many(self, calls: Sequence[tuple[_Inst, str, Any]]) -> list[Any]:
        results: list[Any] = [None] * len(calls)
        by_worker: dict[int, list[int]] = {}
        for index, (inst, method, _) in enumerate(calls):
            try:
                self._prepare(inst, method)
            except SpadeError as exc:
                results[index] = exc
                continue
            assert inst.worker is not None
            by_worker.setdefault(inst.worker.serial, []).append(index)
        sent: list[tuple[_Worker, list[int], float, float, float | None]] = []
        for serial, indices in by_worker.items():
            worker = self._workers.get(serial)
            if worker is None:
                continue
            message = {"op": "batch", "calls": [[calls[i][0].iid, calls[i][1], calls[i][2]] for i in indices]}
            try:
                deadline, budget_end = self._deadline(
                    time.monotonic() + len(indices) * self.limits.call_timeout_s + self.grace_s)
            except SandboxTimeout as exc:
                for index in indices:
                    results[index] = exc
                continue
            try:
                self._await_ready(worker)
                started = time.monotonic()
                self._arm_cpu(worker, len(indices) * self.limits.cpu_s_per_call)
                worker.send(message, deadline)
                sent.append((worker, indices, deadline, started, budget_end))
            except (_ChannelError, SandboxError):
                self._retry_individually(calls, indices, results, worker)
        # each batch message gets the budget of one reply (n replies of max_reply_bytes would let one message
        # cost the host n times the memory), and all of them together, retries and replays included,
        # BATCH_TOTAL_REPLIES of it (self._allowance, charged by _recv_reply)
        for worker, indices, deadline, started, budget_end in sent:
            try:
                try:
                    with _charged(time.monotonic()):
                        reply = self._recv_reply(worker, deadline,
                                                 self.limits.max_reply_bytes + 1024 + 64 * len(indices),
                                                 self.limits.max_reply_elements + 16 * len(indices))
                finally:
                    worker.busy_since_seen += time.monotonic() - started
                items = reply["ok"]
                if not isinstance(items, list) or len(items) != len(indices):
                    raise _ChannelError("protocol", "batch reply has the wrong length")
            except _ChannelError as exc:
                if exc.kind == "timeout" and budget_end is not None and deadline >= budget_end:
                    error = self._budget_spent(worker, "batch", None)
                    for index in indices:
                        results[index] = error
                        calls[index][0].broken = error
                    continue
                self._retry_individually(calls, indices, results, worker)
                continue
            except Exception:  # any unusable reply: redo the calls one by one on a fresh worker
                self._retry_individually(calls, indices, results, worker)
                continue
            charged = _charge(time.monotonic() - started, items)
            malformed = False
            for index, item, seconds in zip(indices, items, charged):
                inst, method, arg = calls[index]
                try:
                    status, value, _ = item
                    if status == "ok":
                        self._record(inst, method, arg, True, value, seconds)
                        results[index] = value
                    else:
                        error = self._error_from_reply(value, method, inst, inst.env_id)
                        if inst.broken is None:
                            self._record(inst, method, arg, False, None, seconds)
                        results[index] = error
                except SpadeError as exc:
                    results[index] = exc
                except Exception:  # a malformed item is the worker's protocol error
                    results[index] = SandboxCrashed("malformed batch item from the worker; it was replaced",
                                                    env_id=inst.env_id)
                    inst.broken = results[index]
                    malformed = True
            if malformed and not worker.dead:
                self._lose_worker(worker, "malformed batch item")
        return results

    def _retry_individually(self, calls: Sequence[tuple[_Inst, str, Any]], indices: list[int], results: list[Any],
                            worker: _Worker) -> None:
        """A batch message failed as a whole: lose the worker, then redo each call alone to find the culprit."""
        if not worker.dead:
            self._lose_worker(worker, "batch failed")
        failures = 0
        for index in indices:
            inst, method, arg = calls[index]
            if failures >= 2:
                results[index] = SandboxCrashed("the worker hosting this environment failed during a batch call",
                                                env_id=inst.env_id)
                inst.broken = results[index]
                continue
            try:
                results[index] = self.call(inst, method, arg)
            except SpadeError as exc:
                results[index] = exc
                failures += 1

    def destroy(self, inst: _Inst) -> None:
        """Remove an instance from its worker (idempotent)."""
        with self._lock:
            if inst.closed:
                return
            inst.closed = True
            self._insts.pop(inst.iid, None)
            if not self._closed:
                self._detach(inst)

    # -- code execution ------------------------------------------------------------------------------------
    def single_use_worker(self, limits_override: dict[str, Any] | None = None, role: str = "env") -> _Worker:
        """A fresh worker for one job; ``role="agent"`` gives the agent-code worker (standard-library stand-ins
        only). Call :meth:`release` when done."""
        with self._lock:
            worker = self._take_worker(limits_override, role)
            worker.single_use = True
            worker.group = f"single-use-{worker.serial}"
            return worker

    def request(self, worker: _Worker, message: dict[str, Any], timeout: float, what: str) -> Any:
        with self._lock:
            return self._request(worker, message, timeout, what, None)

    def release(self, worker: _Worker) -> None:
        with self._lock:
            self._retire(worker, "single use done")

    # -- introspection ---------------------------------------------------------------------------------------
    def worker_pid(self, inst: _Inst) -> int | None:
        return inst.worker.pid if inst.worker is not None and not inst.worker.dead else None

    def worker_pids(self) -> list[int]:
        with self._lock:
            return [w.pid for w in self._workers.values() if not w.dead]

    @property
    def launcher_pid(self) -> int | None:
        return self._launcher.pid if self._launcher is not None else None

    def layers(self) -> dict[str, str]:
        """Which isolation layers a worker of this pool runs under (``on``, or ``off: reason``)."""
        with self._lock:
            worker = self._take_worker()
            self._await_ready(worker)
            layers = dict(worker.layers)
            self._idle.insert(0, worker)
            return layers

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {"workers": len(self._workers), "idle": len(self._idle), "instances": len(self._insts),
                    "codes": len(self._codes), "replays": self.replays, "worker_failures": self.worker_failures,
                    "max_workers": self.max_workers}


def _describe_status(status: Any, stderr: str, reason: Any = None) -> str:
    if not isinstance(status, int):
        return "exit status unknown"
    if isinstance(reason, str) and reason:
        return f"killed by the launcher: {reason}"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        text = f"killed by {name}"
    elif os.WIFEXITED(status):
        text = f"exited with code {os.WEXITSTATUS(status)}"
    else:
        text = f"wait status {status}"
    tail = stderr.strip().splitlines()[-3:] if stderr else []
    if tail:
        text += "; last log lines: " + " | ".join(line[:300] for line in tail)
    return text


def _charge(elapsed: float, items: Sequence[Any]) -> list[float]:
    """Split a batch's host-measured time over its calls. The worker's own per-call figures only set the
    proportions (a worker can shift time between its own instances, never make the total smaller)."""
    weights = []
    for item in items:
        try:
            weight = float(item[2])
        except (TypeError, ValueError, IndexError):
            weight = 0.0
        weights.append(weight if 0.0 < weight < 1e6 else 0.0)
    total = sum(weights)
    if total <= 0.0:
        return [elapsed / max(1, len(items))] * len(items)
    return [elapsed * w / total for w in weights]


def _physical_memory_mb() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    except (ValueError, OSError):
        return 8192


# -- time budgets (per thread, across pools) -----------------------------------------------------------------
class _Budget:
    __slots__ = ("depth", "knob", "limit_s", "spent_s", "what")

    def __init__(self, limit_s: float, what: str, knob: str) -> None:
        self.limit_s = limit_s
        self.spent_s = 0.0
        self.what = what
        self.knob = knob
        self.depth = 0

    def error(self, env_id: str | None) -> SandboxTimeout:
        where = f" ({self.knob})" if self.knob else ""
        return SandboxTimeout(
            f"{self.what} used its whole budget of {self.limit_s:g} s of environment time{where}; its calls are "
            "too slow in total (make reset/step take milliseconds)", env_id=env_id)


_BUDGET = threading.local()


@contextmanager
def time_budget(seconds: float, what: str = "this candidate", knob: str = "") -> Iterator[None]:
    """Bound the total host-measured time of every sandbox call made from this thread inside the block.

    A call still running when the budget runs out is killed with its worker; every later call in the block fails
    at once with :class:`SandboxTimeout`. The validation pipeline gives each candidate one budget
    (``ValidationConfig.candidate_budget_s``), so code whose every call stays just under the call timeout cannot
    hold it for minutes. Nested blocks share the outer budget.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
        raise ValueError(f"time_budget needs a positive number of seconds, got {seconds!r}")
    if getattr(_BUDGET, "frame", None) is not None:
        yield
        return
    _BUDGET.frame = _Budget(float(seconds), what, knob)
    try:
        yield
    finally:
        _BUDGET.frame = None


def budget_spent() -> SandboxTimeout | None:
    """The error of this thread's :func:`time_budget` once it is used up, else None: a check that failed because
    its calls were cut off reports the budget, not what the cut-off calls looked like."""
    frame: _Budget | None = getattr(_BUDGET, "frame", None)
    return frame.error(None) if frame is not None and frame.spent_s >= frame.limit_s else None


@contextmanager
def _charged(started: float) -> Iterator[None]:
    """Charge the time from ``started`` to the end of the block to this thread's budget (outermost call only:
    requests served for a worker during its call are part of that call's time)."""
    frame: _Budget | None = getattr(_BUDGET, "frame", None)
    if frame is None:
        yield
        return
    frame.depth += 1
    try:
        yield
    finally:
        frame.depth -= 1
        if frame.depth == 0:
            frame.spent_s += time.monotonic() - started


# -- process-wide cleanup ------------------------------------------------------------------------------------
_live_pools: weakref.WeakSet[WorkerPool] = weakref.WeakSet()
_handlers_installed = False
_default_pool: WorkerPool | None = None
_default_lock = threading.Lock()


def shutdown_all() -> None:
    """Shut down every live pool (runs at interpreter exit and on SIGTERM)."""
    for pool in list(_live_pools):
        try:
            pool.shutdown()
        except Exception:  # best effort at exit
            pass


def _on_sigterm(signum: int, frame: Any) -> None:
    shutdown_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_signal_handlers() -> None:
    """Shut pools down on SIGTERM (Python's default would skip atexit); only from the main thread, only over
    the default disposition, so an application's own handler is left alone."""
    global _handlers_installed
    if _handlers_installed:
        return
    _handlers_installed = True
    atexit.register(shutdown_all)
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)


def default_pool() -> WorkerPool:
    """The process-wide pool (default limits), started on first use."""
    global _default_pool
    with _default_lock:
        if _default_pool is None or _default_pool._closed:
            _default_pool = WorkerPool()
        return _default_pool


def set_default_pool(pool: WorkerPool | None) -> None:
    """Replace the process-wide pool (e.g. with different limits); the old one is not shut down."""
    global _default_pool
    with _default_lock:
        _default_pool = pool



def probe_isolation(pool: WorkerPool | None = None, *, tcp_port: int | None = None,
                    outside_path: str | None = None, limits_override: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run the isolation probes (:mod:`.probes`) in a fresh worker: what the OS layers stop on their own.

    Returns ``{"layers": {...}, "probes": {...}}``. ``limits_override`` switches layers off to measure each one.
    """
    pool = pool or default_pool()
    worker = pool.single_use_worker(limits_override)
    try:
        reply = pool.request(worker, {"op": "probe", "host_pid": os.getpid(), "tcp_port": tcp_port,
                                      "outside_path": outside_path}, 60.0, "probe")
        return {"layers": dict(worker.layers), "probes": reply.get("ok") or reply.get("err")}
    finally:
        pool.release(worker)
