"""The forkserver-style launcher: a fresh, preloaded interpreter that forks sandbox workers on request.

The host never forks itself (it may hold torch/vLLM state and threads); it starts this launcher once per pool as a
new interpreter with a fixed, minimal environment. The launcher imports only the sandbox modules and the
allow-listed real modules (not the ``spade_core`` package, whose import registers environments), enters a fresh
network namespace, freezes its heap (``gc.freeze``, so forked workers share its pages) and then serves requests on
a ``SOCK_SEQPACKET`` control socket:

- ``spawn`` (with the worker's end of a host socketpair attached as SCM_RIGHTS) -> ``{"pid": n}``
- ``status {pid, wait}`` -> ``{"status": waitstatus | null, "stderr": tail of the worker's log}``
- ``kill {pid}``, ``shutdown``; end-of-file on the control socket (the host died) means shutdown.

On shutdown every worker is killed and reaped and the scratch directories are removed: no orphans.

The launcher runs as root and never acts on anything a worker can touch: a worker's stderr is an unnamed file the
launcher opened before the fork (read back through the launcher's own descriptor, at most its last 4,000 bytes),
scratch dirs are measured (quota ``max_scratch_mb``) and removed by descriptor without following links, and a forked
worker drops the launcher's records of every other worker before any untrusted code runs.

Where the filesystem view works (root, asked once at start), a worker's scratch is a tmpfs of its own inside its
mount namespace, sized by the quota: the kernel refuses a write past it (ENOSPC), the launcher never sees (or
reads) what is in it, and it is gone with the worker. The log is a sealed memfd the kernel stops at
:data:`MAX_LOG_BYTES`. Such workers are never measured.

An idle pool costs nothing: the launcher sleeps in ``poll`` on its control socket and one pidfd per worker (readable
when the worker exits). While workers exist it also wakes every ``SandboxLimits.scratch_check_s`` for the scratch
police, which reads each worker's ``/proc/<pid>/schedstat`` (its run time in ns and its count of times scheduled)
and walks the scratch only of the workers that ran since their last walk: a worker that has not run has not written.
Workers whose quota the kernel enforces (:data:`KERNEL`) need no tick: with only those, the launcher sleeps until
a request or an exit.
"""

from __future__ import annotations

import fcntl
import gc
import json
import os
import select
import signal
import socket
import sys
import time
import traceback
from typing import Any

from spade_core.sandbox import limits, oslayers, scratch

BOOTSTRAP = """
import os, sys, types
root = sys.argv[1]
sys.path.insert(0, root)
for name in ("spade_core", "spade_core.contract"):
    pkg = types.ModuleType(name)
    pkg.__path__ = [os.path.join(root, *name.split("."))]
    sys.modules[name] = pkg
from spade_core.sandbox.launcher import main
main(sys.argv[2])
"""
"""Run as ``python -s -P -B -c BOOTSTRAP <project root> <config file>``; stubs the packages so that their
``__init__`` (which imports gymnasium and touches the registry) does not run in the launcher."""

PRELOAD_ENCODINGS = ("utf_8", "ascii", "latin_1", "utf_16", "utf_32", "cp1252", "idna", "unicode_escape", "raw_unicode_escape")
MAX_STATUSES = 1024
MAX_LOG_TAIL = 4000
MAX_LOG_BYTES = 4 * 1024 * 1024
"""A worker's unnamed stderr log never holds more: a memfd sealed at this size refuses a longer write (where memfds
are missing, a larger log gets the worker killed by the police). Without the filesystem view it also counts toward
the scratch quota."""


OWN = "own"
"""The worker runs alone under its own uid (root launcher, ``drop_uid``): no thread, no child, and no other worker
can write its scratch, so its own run time says whether its disk use can have changed."""
SHARED = "shared"
"""The worker keeps the host's uid but cannot start a thread or a process (``RLIMIT_NPROC=0`` binds a process with
no capabilities): its scratch can change only when some worker of the pool ran."""
ALWAYS = "always"
"""Threads or processes are possible (root without the uid drop, or capabilities): measured on every tick."""
KERNEL = "kernel"
"""The worker's scratch is a tmpfs of its own (the filesystem view) and its log a sealed memfd: the kernel refuses a
write past either bound, so the worker is never measured."""


class _Child:
    __slots__ = ("log_fd", "mark", "pidfd", "scratch", "scratch_mb", "tracking")

    def __init__(self, scratch: str, log_fd: int, scratch_mb: int, pidfd: int | None, tracking: str) -> None:
        self.scratch = scratch
        self.log_fd = log_fd
        self.scratch_mb = scratch_mb
        self.pidfd = pidfd
        self.tracking = tracking
        self.mark: bytes | None = None
        """The worker's ``schedstat`` when its scratch was last measured (None: never, or unreadable)."""


def _anonymous_log(directory: str) -> tuple[int, bool]:
    """A file with no name for a worker's stderr, and whether the kernel bounds it: a memfd sealed at
    :data:`MAX_LOG_BYTES` (in memory, on no filesystem), else ``O_TMPFILE`` in ``directory``, else a file created
    and unlinked at once. The worker writes it through its stderr descriptor, the launcher reads it through its own
    descriptor, and no path exists for the worker to replace with a symlink."""
    try:
        fd = os.memfd_create("spade-worker-log", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    except (OSError, AttributeError):
        fd = None
    if fd is not None:
        try:
            os.ftruncate(fd, MAX_LOG_BYTES)
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL)
            return fd, True
        except (OSError, AttributeError):
            os.close(fd)
    try:
        return os.open(directory, os.O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o600), False
    except (OSError, AttributeError):
        path = os.path.join(directory, f".log-{os.getpid()}-{time.monotonic_ns()}")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        os.unlink(path)
        return fd, False


def _log_tail(fd: int) -> str:
    """The last :data:`MAX_LOG_TAIL` bytes of a worker's log before the point its writes reached (the offset the
    worker's stderr shares with this descriptor; a sealed memfd's size is its bound, not what was written)."""
    try:
        end = min(os.lseek(fd, 0, os.SEEK_CUR), os.fstat(fd).st_size)
        data = os.pread(fd, MAX_LOG_TAIL, max(0, end - MAX_LOG_TAIL))
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


class Launcher:
    def __init__(self, config: dict[str, Any]) -> None:
        from spade_core.sandbox import allowlist, guards, oslayers

        self.control = socket.socket(fileno=int(config["control_fd"]))
        self.limits_data: dict[str, Any] = config["limits"]
        self.limits = limits.SandboxLimits.from_dict(self.limits_data)
        self.scratch_root: str = config["scratch_root"]
        self.children: dict[int, _Child] = {}
        self.statuses: dict[int, tuple[int, int, str | None]] = {}
        self.reasons: dict[int, str] = {}
        self.pid = os.getpid()
        self.poller = select.poll()
        self.poller.register(self.control.fileno(), select.POLLIN)
        self.capable = _has_capabilities()
        if self.limits.network_namespace:
            try:
                oslayers.unshare_network()
                self.netns = "on"
            except oslayers.LayerUnavailable as exc:
                self.netns = f"off: {exc.strerror}"
        else:
            self.netns = "off: disabled by SandboxLimits.network_namespace"
        self.scratch_tmpfs = self._probe_filesystem_view()
        self.seccomp = limits.seccomp_program(self.limits)
        self.standins, self.problems = allowlist.build_standins(config["allowlist"])
        self.agent_standins = {name: mod for name, mod in self.standins.items() if name in allowlist.AGENT_MODULES}
        guards.make_builtins(self.standins)  # records reachable classes and shared containers once, before forks
        guards.make_builtins(self.agent_standins)
        for enc in PRELOAD_ENCODINGS:
            "x".encode(enc)
        _preload()

    def _probe_filesystem_view(self) -> bool:
        """Whether workers get the filesystem view (and with it a scratch tmpfs), asked once by a forked child."""
        probe_dir = os.path.join(self.scratch_root, "fsview-probe")
        try:
            os.mkdir(probe_dir, 0o700)
            return limits.filesystem_view_works(self.limits, probe_dir)
        except OSError:
            return False
        finally:
            scratch.remove_tree(probe_dir)

    # -- requests ------------------------------------------------------------------------------------------
    def serve(self) -> None:
        signal.signal(signal.SIGTERM, lambda *_: self.shutdown())
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        gc.collect()
        gc.freeze()
        self.reply({"ready": True, "netns": self.netns, "problems": self.problems})
        tick = self.limits.scratch_check_s
        next_police = 0.0
        while True:
            try:
                self.reap()
                now = time.monotonic()
                ticking = self._needs_tick()
                if ticking and now >= next_police:
                    self.police_scratch()
                    next_police = now + tick
                # No worker the police measures: sleep until the host asks or a worker exits (its pidfd becomes
                # readable and the next pass reaps it). Otherwise until the next tick at the latest.
                timeout_ms = max(0, int((next_police - now) * 1000) + 1) if ticking else None
                ready = {fd for fd, _ in self.poller.poll(timeout_ms)}
                if self.control.fileno() in ready:
                    self.serve_one()
            except SystemExit:
                raise
            except BaseException:  # the launcher never dies of one request or one worker's tree
                try:
                    traceback.print_exc()
                except BaseException:  # even reporting must not end the loop
                    pass

    def _needs_tick(self) -> bool:
        """Whether a worker needs the police tick: its quota is not the kernel's, or it has no pidfd to wake us."""
        return any(child.tracking != KERNEL or child.pidfd is None for child in self.children.values())

    def serve_one(self) -> None:
        """Answer one request from the host (the control socket is readable; end-of-file means shutdown)."""
        fds: list[int] = []
        try:
            data, fds, _flags, _addr = socket.recv_fds(self.control, 1 << 16, 1)
        except OSError:
            data = b""
        if not data:
            self.shutdown()
        try:
            request = json.loads(data)
            op = request.get("op")
            if op == "spawn" and len(fds) == 1:
                fd = fds.pop()
                self.spawn(fd, request.get("limits"), request.get("role") == "agent")
            elif op == "status":
                self.reply(self.status(int(request["pid"]), float(request.get("wait", 1.0))))
            elif op == "kill":
                pid = int(request["pid"])
                if pid in self.children:
                    _kill(pid)
                self.reply({"ok": True})
            elif op == "shutdown":
                self.shutdown()
            else:
                self.reply({"error": f"unknown op {op!r}"})
        except Exception as exc:  # a failed request is answered, never fatal
            self.reply({"error": f"the launcher could not serve the request: {type(exc).__name__}: {exc}"[:500]})
        finally:
            for fd in fds:
                os.close(fd)

    def reply(self, message: dict[str, Any]) -> None:
        self.control.send(json.dumps(message).encode())

    def spawn(self, fd: int, limits_override: dict[str, Any] | None, agent: bool = False) -> None:
        limits_data = dict(self.limits_data, **(limits_override or {}))
        lim = limits.SandboxLimits.from_dict(limits_data)
        kernel_quota = self.scratch_tmpfs and lim.filesystem_view and not self.limits.scratch_check_idle
        try:
            log_fd, log_bounded = _anonymous_log(self.scratch_root)
        except OSError as exc:
            os.close(fd)
            self.reply({"error": f"cannot create the worker's log: {exc}"})
            return
        pid = os.fork()
        if pid == 0:  # the worker
            try:
                self.control.close()
                # Nothing of another worker survives into this one: their pids, scratch paths, log descriptors
                # and exit statuses are dropped before any untrusted code runs (the descriptors are also closed
                # by the fds layer).
                self.children.clear()
                self.statuses.clear()
                self.reasons.clear()
                self.poller = select.poll()  # the launcher's one lists every worker's pidfd
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                from spade_core.sandbox import worker

                scratch_dir = os.path.join(self.scratch_root, f"w{os.getpid()}")
                layers = limits.apply_worker_isolation(lim, keep_fd=fd, scratch=scratch_dir, launcher_pid=self.pid,
                                                       seccomp=self.seccomp, log_fd=log_fd,
                                                       scratch_tmpfs_required=kernel_quota)
                layers["netns"] = self.netns
                worker.run(fd, limits_data, self.agent_standins if agent else self.standins, layers)
            except BaseException:  # report in the log, never return into the launcher loop
                traceback.print_exc()
            os._exit(71)
        os.close(fd)
        pidfd = _pidfd(pid)
        if pidfd is not None:
            self.poller.register(pidfd, select.POLLIN)
        tracking = KERNEL if (kernel_quota and log_bounded) else self._tracking(lim)
        self.children[pid] = _Child(os.path.join(self.scratch_root, f"w{pid}"), log_fd, lim.max_scratch_mb, pidfd,
                                    tracking)
        self.reply({"pid": pid})

    def _tracking(self, lim: limits.SandboxLimits) -> str:
        """How the police measures a worker whose scratch is a host directory."""
        if self.limits.scratch_check_idle:
            return ALWAYS
        if os.geteuid() == 0 and lim.drop_uid:
            return OWN
        return ALWAYS if (os.geteuid() == 0 or self.capable) else SHARED

    def status(self, pid: int, wait: float) -> dict[str, Any]:
        deadline = time.monotonic() + wait
        self.reap()
        while pid not in self.statuses and pid in self.children:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            pidfd = self.children[pid].pidfd
            if pidfd is None:
                time.sleep(min(0.002, remaining))
            else:  # readable when the worker has exited
                waiter = select.poll()
                waiter.register(pidfd, select.POLLIN)
                waiter.poll(int(remaining * 1000) + 1)
            self.reap()
        found = self.statuses.pop(pid, None)
        if found is None:
            return {"pid": pid, "status": None, "stderr": ""}
        status, log_fd, reason = found
        tail = _log_tail(log_fd)
        os.close(log_fd)
        return {"pid": pid, "status": status, "stderr": tail, "reason": reason}

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            child = self.children.pop(pid, None)
            if child is None:
                continue
            if child.pidfd is not None:
                self.poller.unregister(child.pidfd)
                os.close(child.pidfd)
            # The scratch dir belongs to the worker's uid: remove_tree works on descriptors, never follows a
            # symlink the worker planted and never recurses. The log is an unlinked file only this launcher holds.
            scratch.remove_tree(child.scratch)
            if len(self.statuses) >= MAX_STATUSES:
                _, old_fd, _ = self.statuses.pop(next(iter(self.statuses)))
                os.close(old_fd)
            self.statuses[pid] = (status, child.log_fd, self.reasons.pop(pid, None))

    def police_scratch(self) -> None:
        """Kill workers whose disk use is over their quota, measuring only those whose use can have changed since
        their last measurement (see :data:`OWN`, :data:`SHARED`, :data:`ALWAYS`; never :data:`KERNEL`)."""
        policed = {pid: child for pid, child in self.children.items() if child.tracking != KERNEL}
        marks = {pid: _run_mark(pid) for pid in policed}
        ran = {pid for pid, child in policed.items() if marks[pid] is None or marks[pid] != child.mark}
        shared_ran = any(policed[pid].tracking != OWN for pid in ran)
        for pid, child in policed.items():
            due = (pid in ran or child.tracking == ALWAYS or (child.tracking == SHARED and shared_ran))
            if due:
                child.mark = marks[pid]  # read before the walk: anything the worker does during it shows next tick
                self.police_one(pid, child)

    def police_one(self, pid: int, child: _Child) -> None:
        """Kill the worker if its disk use is over its quota: the scratch tree (bounded walk: entries and depth),
        plus files it holds open or mapped with no name (unlinked, its stderr log)."""
        usage = scratch.measure(child.scratch, scratch.MAX_ENTRIES)
        used = usage.bytes + scratch.open_unlinked_bytes(pid)
        try:
            log_bytes = os.fstat(child.log_fd).st_blocks * 512
        except OSError:
            log_bytes = 0
        limit = child.scratch_mb * 1024 * 1024
        why = None
        if usage.too_deep:
            why = f"scratch tree deeper than {scratch.MAX_DEPTH} levels"
        elif usage.too_many:
            why = f"more than {scratch.MAX_ENTRIES} entries in the scratch dir"
        elif used > limit:
            why = f"{used // (1024 * 1024)} MB on disk (named, unlinked-but-open and log files)"
        elif log_bytes > MAX_LOG_BYTES:
            why = f"a stderr log of {log_bytes // (1024 * 1024)} MB (limit {MAX_LOG_BYTES // (1024 * 1024)} MB)"
        if why is not None:
            self.reasons[pid] = (f"scratch quota exceeded: {why} (limit {child.scratch_mb} MB, "
                                 f"{scratch.MAX_ENTRIES} entries; SandboxLimits.max_scratch_mb)")
            _kill(pid)

    def shutdown(self) -> None:
        try:
            for pid in list(self.children):
                _kill(pid)
            deadline = time.monotonic() + 5.0
            while self.children and time.monotonic() < deadline:
                self.reap()
                time.sleep(0.005)
        except BaseException:  # shutting down must end in os._exit whatever happened
            traceback.print_exc()
        try:
            self.reply({"bye": True})
        except OSError:
            pass
        os._exit(0)


def _run_mark(pid: int) -> bytes | None:
    """``/proc/<pid>/schedstat``: the task's run time (ns), wait time and number of times it was scheduled. It
    changes whenever the task runs (None when it cannot be read: the worker is then always measured)."""
    try:
        fd = os.open(f"/proc/{pid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, 256) or None
    except OSError:
        return None
    finally:
        os.close(fd)


def _pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when ``pid`` exits (None where pidfds are unavailable: the worker is
    then reaped at the police ticks, which run while any worker lives)."""
    try:
        return os.pidfd_open(pid)
    except (OSError, AttributeError):
        return None


def _has_capabilities() -> bool:
    """Whether this process holds any effective capability (then RLIMIT_NPROC may not bind its workers); True when
    unknown."""
    caps = oslayers.effective_capabilities()
    return caps is None or caps != 0


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _preload() -> None:
    """Import everything a worker may need later: after the uid drop the interpreter's files may be unreadable."""
    import collections  # noqa: F401
    import copy  # noqa: F401
    import dataclasses  # noqa: F401
    import fractions  # noqa: F401
    import json.decoder  # noqa: F401
    import statistics  # noqa: F401

    import RestrictedPython  # noqa: F401

    from spade_core.contract import inner, rng  # noqa: F401
    from spade_core.sandbox import guards, limits, policy, probes, wire, worker  # noqa: F401


def main(config_path: str) -> None:
    """Launcher entry point (see :data:`BOOTSTRAP`); reads and deletes its config file."""
    try:
        with open(config_path) as fh:
            config = json.load(fh)
        os.unlink(config_path)
        launcher = Launcher(config)
    except BaseException:  # tell the host why we could not start
        traceback.print_exc()
        sys.exit(2)
    launcher.serve()
