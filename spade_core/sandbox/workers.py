"""The lifecycle of a pool's workers: one preloaded launcher process per pool (:mod:`.launcher`), the workers it
starts, ``prestart`` of them kept idle and ready, eviction when the pool is full, and shutdown.

:class:`WorkerLifecycle` is the lowest layer of :class:`~spade_core.sandbox.pool.WorkerPool` (then :mod:`.exchange`,
:mod:`.placement`, which places instances on these workers, and :mod:`.batch`); it asks the layers above what losing
a worker means for what they placed there (``_ungroup``, ``_orphan_instances``, ``_close_instances``).

Locking: the pool's lock (``_lock``) covers bookkeeping only (the worker lists, placement, eviction, the launcher's
control socket) and is never held across a call on a worker's channel; each worker's own ``lock`` is held for an
exchange on its channel, so calls on different workers run at once and calls on one worker stay in order. A call
reserves its worker first (``in_flight``, under the pool's lock), and a reserved worker is never evicted or retired.
A thread holding the pool's lock never waits for a worker's lock: the order is a worker's lock, then the pool's.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import Any

from spade_core.errors import SandboxCrashed, SandboxError, SandboxMemoryError
from spade_core.sandbox import cleanup, scratch
from spade_core.sandbox.allowlist import AllowList, merged_allowlist
from spade_core.sandbox.channel import ChannelError, Worker
from spade_core.sandbox.launcher import BOOTSTRAP
from spade_core.sandbox.limits import SAFE_ENVIRON, SandboxLimits, cpu_armed_from_outside


class _Reservations(threading.local):
    count = 0
    """Workers this thread has reserved (a thread never waits for a reservation of its own to end)."""


_PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class WorkerLifecycle:
    """A launcher and the workers it started for one pool; see the module docstring."""

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        max_workers: int | None = None,
        memory_budget_mb: int | None = None,
        instances_per_worker: int = 128,
        prestart: int = 2,
        allowlist: AllowList | None = None,
        worker_wait_s: float | None = None,
    ) -> None:
        self.limits = limits or SandboxLimits()
        per_worker = self.limits.worker_memory_mb
        if memory_budget_mb is None:
            memory_budget_mb = max(2 * per_worker, int(_physical_memory_mb() * 0.75))
        if memory_budget_mb < per_worker:
            raise ValueError(f"WorkerPool(memory_budget_mb={memory_budget_mb}) holds no worker: each reserves "
                             f"{per_worker} MB (SandboxLimits.memory_mb {self.limits.memory_mb} + max_scratch_mb "
                             f"{self.limits.max_scratch_mb}); raise the budget or lower the limits")
        self.memory_budget_mb = memory_budget_mb
        self.max_workers = max_workers or memory_budget_mb // per_worker
        self.instances_per_worker = instances_per_worker
        self.prestart = prestart
        self.allowlist = allowlist if allowlist is not None else merged_allowlist()
        self.worker_wait_s = 2 * self.limits.call_timeout_s if worker_wait_s is None else worker_wait_s
        """How long making room for a worker waits for calls in flight on a full pool before it is refused."""
        self._lock = threading.RLock()
        self._freed = threading.Condition(self._lock)
        """Notified when a reservation ends or a worker leaves (room may have been made)."""
        self._mine = _Reservations()
        self._launcher: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._scratch_root: str | None = None
        self._idle: list[Worker] = []
        self._workers: dict[int, Worker] = {}
        self._serials = itertools.count(1)
        self.launcher_info: dict[str, Any] = {}
        self.worker_failures = 0
        self._closed = False
        cleanup.track(self)

    @property
    def closed(self) -> bool:
        """Whether :meth:`shutdown` ran (the pool cannot be used afterwards)."""
        return self._closed

    def _ungroup(self, worker: Worker) -> None:
        """``worker`` leaves the pool: it no longer serves its code group."""

    def _orphan_instances(self, worker: Worker) -> None:
        """``worker`` was lost: the instances it hosted have no worker until they are replayed elsewhere."""

    def _close_instances(self) -> None:
        """The pool shuts down: every instance is closed."""

    # -- lifecycle -----------------------------------------------------------------------------------------
    def start(self) -> WorkerLifecycle:
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
        cleanup.install_signal_handlers()
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
        self._close_control()
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
        cleanup.untrack(self)

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
        self._close_instances()

    def _close_control(self) -> None:
        """Close the control socket to the launcher (once; a socket already broken is closed all the same)."""
        if self._control is not None:
            try:
                self._control.close()
            except OSError:
                pass
            self._control = None

    def _shutdown_wait(self) -> None:
        self._close_control()
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

    def __enter__(self) -> WorkerLifecycle:
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

    def _spawn(self, limits_override: dict[str, Any] | None = None, role: str = "env") -> Worker:
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
        worker = Worker(host_end, int(reply["pid"]), next(self._serials))
        worker.reserved_mb = self._memory_of(limits_override)
        if not cpu_armed_from_outside(self.limits):
            worker.cpu_armed = self.limits.cpu_s_per_worker  # armed at spawn with its whole budget, never re-armed
        self._workers[worker.serial] = worker
        return worker

    def _await_ready(self, worker: Worker) -> None:
        if worker.ready:
            return
        try:
            hello = worker.recv(time.monotonic() + self.limits.spawn_timeout_s, 1 << 20, 10_000)
        except ChannelError as exc:
            status = self._exit_status(worker)
            self._lose_worker(worker, "failed to start")
            raise SandboxCrashed(f"a sandbox worker failed to start ({exc.kind}; {status})") from None
        if not isinstance(hello, dict) or not isinstance(hello.get("hello"), dict):
            self._lose_worker(worker, "bad hello")
            raise SandboxCrashed("a sandbox worker sent a malformed greeting")
        worker.layers = dict(hello["hello"].get("layers") or {})
        worker.ready = True

    def _memory_of(self, limits_override: dict[str, Any] | None) -> int:
        """The budget a worker started with these limits reserves (:attr:`SandboxLimits.worker_memory_mb`)."""
        if not limits_override:
            return self.limits.worker_memory_mb
        return SandboxLimits.from_dict({**self.limits.to_dict(), **limits_override}).worker_memory_mb

    @property
    def reserved_mb(self) -> int:
        """The memory budget the pool's live workers hold (each reserved it before it started)."""
        with self._lock:
            return sum(w.reserved_mb for w in self._workers.values())

    def _fits(self, memory_mb: int) -> bool:
        return len(self._workers) < self.max_workers and self.reserved_mb + memory_mb <= self.memory_budget_mb

    def _replenish(self) -> None:
        while len(self._idle) < self.prestart and self._fits(self.limits.worker_memory_mb):
            self._idle.append(self._spawn())

    def _take_worker(self, limits_override: dict[str, Any] | None = None, role: str = "env") -> Worker:
        if limits_override is None and role == "env":
            while self._idle:
                worker = self._idle.pop(0)
                if not worker.dead:
                    self._replenish()
                    return worker
        memory_mb = self._memory_of(limits_override)
        deadline = time.monotonic() + self.worker_wait_s
        while not self._fits(memory_mb):  # the budget is reserved before the worker starts
            self._evict_one(memory_mb, deadline)
        worker = self._spawn(limits_override, role)
        if limits_override is None and role == "env":
            self._replenish()
        return worker

    def _evict_hosting(self) -> bool:
        """Make room by retiring a worker whose instances are not in a call (they are rebuilt at their next call);
        False when there is none. A lifecycle without instances has none."""
        return False

    def _evict_one(self, memory_mb: int, deadline: float) -> None:
        """Retire one worker to make room (an emptied one first, else one whose instances are between calls), or
        wait until ``deadline`` for a call in flight on another thread to end; the pool's lock is held."""
        empties = [w for w in self._workers.values()
                   if w.group is not None and not w.instances and not w.dead and not w.single_use and not w.in_flight]
        if not empties and self._idle:
            empties = [self._idle.pop()]
        if not empties and self._evict_hosting():
            return
        if empties:
            self._retire(min(empties, key=lambda w: w.last_used), "evicted to make room")
            return
        others = self._in_flight() - self._mine.count
        left = deadline - time.monotonic()
        if others > 0 and left > 0:
            self._freed.wait(left)
            return
        waited = f"; {others} calls of other threads were still in flight after {self.worker_wait_s:g} s" if others else ""
        raise SandboxMemoryError(
            f"the sandbox pool is full: {len(self._workers)} workers (at most {self.max_workers}) hold "
            f"{self.reserved_mb} MB of its {self.memory_budget_mb} MB budget and a new one needs {memory_mb} MB "
            f"(memory_mb + max_scratch_mb; {self.instances_per_worker} instances each){waited}; close environments "
            "or raise WorkerPool(memory_budget_mb=..., instances_per_worker=...)"
        )

    def _in_flight(self) -> int:
        return sum(w.in_flight for w in self._workers.values())

    def _reserve(self, worker: Worker) -> None:
        """Reserve ``worker`` for a call (the pool's lock is held): it is not evicted or retired until
        :meth:`_unreserve`."""
        worker.in_flight += 1
        self._mine.count += 1

    def _unreserve(self, worker: Worker) -> None:
        with self._lock:
            worker.in_flight -= 1
            self._mine.count -= 1
            self._freed.notify_all()

    def _retire(self, worker: Worker, reason: str) -> None:
        with self._lock:
            worker.kill(reason)
            self._forget(worker)

    def _forget(self, worker: Worker) -> None:
        with self._lock:
            self._workers.pop(worker.serial, None)
            if worker in self._idle:
                self._idle.remove(worker)
            self._ungroup(worker)
            self._freed.notify_all()

    def _lose_worker(self, worker: Worker, reason: str) -> None:
        """A worker is gone: forget it; instances it hosted will be replayed elsewhere on their next call."""
        with self._lock:
            worker.kill(reason)
            self._forget(worker)
            self._orphan_instances(worker)
            worker.instances.clear()
            self.worker_failures += 1

    def _exit_status(self, worker: Worker) -> str:
        try:
            with self._lock:  # the launcher's control socket is shared by the pool's threads
                reply = self._control_call({"op": "status", "pid": worker.pid, "wait": 1.0})
        except SandboxError:
            return "exit status unknown"
        return _describe_status(reply.get("status"), reply.get("stderr") or "", reply.get("reason"))

    # -- introspection ---------------------------------------------------------------------------------------
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
            self._reserve(worker)
        try:
            with worker.lock:
                self._await_ready(worker)
                layers = dict(worker.layers)
        finally:
            self._unreserve(worker)
        with self._lock:
            if not worker.dead and worker.serial in self._workers:
                self._idle.insert(0, worker)
        return layers


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


def _physical_memory_mb() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    except (ValueError, OSError):
        return 8192
